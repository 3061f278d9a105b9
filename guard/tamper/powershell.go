package tamper

import (
	"path/filepath"
	"strings"
)

// Claude Code's PowerShell tool (and pwsh -Command): a light reader of
// PowerShell's statements and words, enough to tell which cmdlet runs and
// which paths it is handed. A cmdlet that writes, or one the wire does not
// know, handed a protected path is denied; runaway, the agents and shells
// are judged as on Bash.

// psReaders are cmdlets and aliases that only read or print.
var psReaders = map[string]bool{
	"get-content": true, "gc": true, "cat": true, "type": true, "select-string": true, "sls": true,
	"test-path": true, "get-item": true, "gi": true, "get-childitem": true, "gci": true, "ls": true,
	"dir": true, "resolve-path": true, "rvpa": true, "get-filehash": true, "convertfrom-json": true,
	"write-output": true, "echo": true, "write-host": true, "get-acl": true, "measure-object": true,
	"format-list": true, "format-table": true, "out-host": true, "out-string": true, "where-object": true,
	"select-object": true, "foreach-object": true, "%": true, "?": true, "split-path": true, "join-path": true,
	"get-location": true, "set-location": true, "cd": true, "sl": true, "push-location": true, "pop-location": true,
}

// powershell checks a PowerShell command line run in cwd.
func (t *checker) powershell(src, cwd string) {
	for _, stmt := range psStatements(src) {
		if t.done() {
			return
		}
		words := t.psWords(stmt)
		if len(words) == 0 {
			continue
		}
		// Redirections write their target.
		var args []string
		for i := 0; i < len(words); i++ {
			w := words[i]
			if strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>") || strings.HasPrefix(w, "*>") {
				target := strings.TrimLeft(w, "*12>")
				if target == "" && i+1 < len(words) {
					i++
					target = words[i]
				}
				t.psPath(target, cwd, "redirect into")
				continue
			}
			args = append(args, w)
		}
		if len(args) == 0 {
			continue
		}
		for len(args) > 0 && (args[0] == "&" || args[0] == ".") {
			args = args[1:]
		}
		if len(args) == 0 {
			continue
		}
		prog := args[0]
		name := strings.ToLower(strings.TrimSuffix(filepath.Base(strings.ReplaceAll(prog, `\`, "/")), ".exe"))
		switch {
		case name == "set-location" || name == "cd" || name == "sl":
			if len(args) > 1 {
				cwd = t.abs(args[1], cwd)
			}
		case psReaders[name]:
		case name == "runaway" || t.classify(t.abs(prog, cwd)) == ownBinary:
			t.deny(runawayCommand(args[1:]))
		case name == "bash" || name == "sh" || name == "wsl" || name == "claude" || name == "codex" || name == "npx" || name == "node" || name == "git":
			q := make([]string, len(args))
			for i, a := range args {
				q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
			}
			t.shell(strings.Join(q, " "), cwd)
		case name == "copy-item" || name == "cp" || name == "copy" || name == "cpi":
			dest := psOption(args, "-destination")
			if dest == "" {
				if pos := psPositional(args[1:]); len(pos) > 1 {
					dest = pos[len(pos)-1]
				}
			}
			t.psPath(dest, cwd, "copy onto")
		default:
			for _, a := range args[1:] {
				if !strings.HasPrefix(a, "-") {
					t.psPath(a, cwd, "run "+prog+" on")
				}
			}
		}
	}
}

// psPath denies a protected path handed to a cmdlet that may write it.
func (t *checker) psPath(p, cwd, what string) {
	a := t.abs(strings.ReplaceAll(p, `\`, "/"), cwd)
	if a == "" || !known(a) {
		return
	}
	if k := t.classify(a); k != notProtected {
		t.deny(&finding{action: what + " " + k.noun(), path: filepath.Clean(a)})
		return
	}
	if in := t.inside(a); len(in) > 0 {
		t.deny(&finding{action: what + " a folder that holds " + in[0].kind.noun(), path: in[0].path})
	}
}

func psOption(args []string, name string) string {
	for i, a := range args {
		if strings.EqualFold(a, name) && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// psPositional are the arguments that are neither options nor their values
// (an option's value follows it unless it is a switch: guessed by the next
// word not starting with -).
func psPositional(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// psStatements splits on ; | newlines && || outside quotes and braces.
func psStatements(src string) []string {
	var out []string
	var b strings.Builder
	var quote byte
	depth := 0
	flush := func() {
		if s := strings.TrimSpace(b.String()); s != "" {
			out = append(out, s)
		}
		b.Reset()
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '{' || c == '(':
			depth++
		case c == '}' || c == ')':
			depth--
		case depth <= 0 && (c == ';' || c == '|' || c == '\n' || c == '&' && i+1 < len(src) && src[i+1] == '&'):
			flush()
			if c == '&' || c == '|' && i+1 < len(src) && src[i+1] == '|' {
				i++
			}
			continue
		}
		b.WriteByte(c)
	}
	flush()
	return out
}

// psWords splits a statement into words, quotes removed and variables
// expanded: $HOME, $env:NAME, ${env:NAME}; others are unknown.
func (t *checker) psWords(stmt string) []string {
	var out []string
	var b strings.Builder
	in := false
	flush := func() {
		if in {
			out = append(out, b.String())
		}
		b.Reset()
		in = false
	}
	for i := 0; i < len(stmt); i++ {
		c := stmt[i]
		switch {
		case c == ' ' || c == '\t' || c == ',':
			flush()
		case c == '\'':
			in = true
			end := strings.IndexByte(stmt[i+1:], '\'')
			if end < 0 {
				end = len(stmt) - i - 1
			}
			b.WriteString(stmt[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			in = true
			end := strings.IndexByte(stmt[i+1:], '"')
			if end < 0 {
				end = len(stmt) - i - 1
			}
			b.WriteString(t.psExpand(stmt[i+1 : i+1+end]))
			i += end + 1
		default:
			in = true
			j := i
			for j < len(stmt) && stmt[j] != ' ' && stmt[j] != '\t' && stmt[j] != '\'' && stmt[j] != '"' && stmt[j] != ',' {
				j++
			}
			b.WriteString(t.psExpand(stmt[i:j]))
			i = j - 1
		}
	}
	flush()
	return out
}

// psExpand expands PowerShell variables in s.
func (t *checker) psExpand(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		j := i + 1
		braced := j < len(s) && s[j] == '{'
		if braced {
			j++
		}
		k := j
		for k < len(s) && (s[k] == '_' || s[k] == ':' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		name := s[j:k]
		if braced && k < len(s) && s[k] == '}' {
			k++
		}
		low := strings.ToLower(name)
		switch {
		case low == "home" || low == "env:home" || low == "env:userprofile":
			b.WriteString(t.homeDir())
		case strings.HasPrefix(low, "env:"):
			if v := t.getenv(name[4:]); v != "" {
				b.WriteString(v)
			} else if d, ok := envDefaults[name[4:]]; ok && t.homeDir() != "" {
				b.WriteString(t.homeDir() + "/" + d)
			} else {
				b.WriteString(unknownPart)
			}
		case name == "":
			b.WriteByte('$')
		default:
			b.WriteString(unknownPart)
		}
		i = k - 1
	}
	return b.String()
}
