package tamper

import (
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/guard/tamper/powershell"
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
	for _, stmt := range powershell.Statements(src) {
		if t.done() {
			return
		}
		words := powershell.Words(stmt, t.psVar)
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
			dest := powershell.Option(args, "-destination")
			if dest == "" {
				if pos := powershell.Positional(args[1:]); len(pos) > 1 {
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

// psVar is what a PowerShell variable holds, as far as the wire knows:
// the home folder, the environment ($env:NAME, with the agents' defaults),
// and unknown for the rest.
func (t *checker) psVar(name string) string {
	low := strings.ToLower(name)
	switch {
	case low == "home" || low == "env:home" || low == "env:userprofile":
		return t.homeDir()
	case strings.HasPrefix(low, "env:"):
		if v := t.getenv(name[4:]); v != "" {
			return v
		} else if d, ok := envDefault(name[4:]); ok && t.homeDir() != "" {
			return t.homeDir() + "/" + d
		}
	}
	return unknownPart
}
