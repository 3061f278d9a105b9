// Package powershell is a light reader of PowerShell's statements and
// words (about_Parsing, about_Quoting_Rules, about_Variables): enough for
// the tamper wire to tell which cmdlet runs and which paths it is handed.
// It judges nothing.
package powershell

import "strings"

// Option is the value of the named option (case-insensitive), or "".
func Option(args []string, name string) string {
	for i, a := range args {
		if strings.EqualFold(a, name) && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// Positional are the arguments that are neither options nor their values
// (an option's value follows it unless it is a switch: guessed by the next
// word not starting with -).
func Positional(args []string) []string {
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

// Statements splits on ; | newlines && || outside quotes and braces.
func Statements(src string) []string {
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

// Words splits a statement into words, quotes removed and variables
// replaced by what vars says they hold ($HOME, $env:NAME, ${env:NAME}:
// vars is given HOME, env:NAME).
func Words(stmt string, vars func(name string) string) []string {
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
			b.WriteString(expand(stmt[i+1:i+1+end], vars))
			i += end + 1
		default:
			in = true
			j := i
			for j < len(stmt) && stmt[j] != ' ' && stmt[j] != '\t' && stmt[j] != '\'' && stmt[j] != '"' && stmt[j] != ',' {
				j++
			}
			b.WriteString(expand(stmt[i:j], vars))
			i = j - 1
		}
	}
	flush()
	return out
}

// expand replaces the variables in s (a lone $ stays).
func expand(s string, vars func(name string) string) string {
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
		if name == "" {
			b.WriteByte('$')
		} else {
			b.WriteString(vars(name))
		}
		i = k - 1
	}
	return b.String()
}
