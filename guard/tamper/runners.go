package tamper

import "strings"

// Programs that run shell commands they are handed as their own commands:
// vim's :!cmd (vim(1) -c, +cmd, --cmd), sqlite3's .shell, .system and
// .once/.output '|cmd' (sqlite3(1) dot-commands), python -m zipfile and
// tarfile (zipfile(3), tarfile(3): -e ARCHIVE DEST unpacks).

// vimCall: the ex commands given on the line; one starting with ! (or
// :!, or system()) runs a shell command.
func (sh *shell) vimCall(c *call) *stdin {
	var cmds []string
	for i, a := range c.args {
		switch {
		case (a == "-c" || a == "--cmd") && i+1 < len(c.args):
			cmds = append(cmds, c.args[i+1])
		case strings.HasPrefix(a, "+") && len(a) > 1:
			cmds = append(cmds, a[1:])
		}
	}
	if c.in != nil && c.in.exact && (contains(c.args, "-s") || contains(c.args, "-es") || contains(c.args, "-e") || c.name == "ex") {
		cmds = append(cmds, strings.Split(c.in.text, "\n")...)
	}
	for _, cmd := range cmds {
		sh.exCommand(cmd)
	}
	return nil
}

// exCommand judges one ex command: :!CMD, :r !CMD, :w !CMD, call
// system('CMD'), :terminal CMD.
func (sh *shell) exCommand(cmd string) {
	cmd = strings.TrimLeft(strings.TrimSpace(cmd), ":")
	switch {
	case strings.HasPrefix(cmd, "!"):
		sh.sub().script(cmd[1:])
	case strings.Contains(cmd, "!"):
		if _, after, ok := strings.Cut(cmd, "!"); ok && (strings.HasPrefix(cmd, "r") || strings.HasPrefix(cmd, "w") || strings.Contains(cmd, "|")) {
			sh.sub().script(after)
		}
	}
	for _, fn := range []string{"system(", "systemlist(", "jobstart(", "term_start("} {
		if i := strings.Index(cmd, fn); i >= 0 {
			for _, lit := range stringLiterals(cmd[i:]) {
				sh.sub().script(lit)
			}
		}
	}
	if rest, ok := strings.CutPrefix(cmd, "terminal "); ok {
		sh.sub().script(rest)
	} else if rest, ok := strings.CutPrefix(cmd, "term "); ok {
		sh.sub().script(rest)
	}
}

// sqliteCall: the dot-commands on the line (-cmd, the SQL after the
// database) and on stdin that run a shell command.
func (sh *shell) sqliteCall(c *call) *stdin {
	var lines []string
	lines = append(lines, optionValues(c.args, "-cmd")...)
	ops := operands(c.args, "")
	if len(ops) > 1 {
		lines = append(lines, ops[1:]...)
	}
	if f := optionValues(c.args, "-init"); len(f) > 0 {
		if t := sh.fileText(f[0]); t != nil {
			lines = append(lines, strings.Split(t.text, "\n")...)
		}
	}
	if c.in != nil && c.in.exact {
		lines = append(lines, strings.Split(c.in.text, "\n")...)
	}
	for _, l := range lines {
		for _, stmt := range strings.Split(l, "\n") {
			stmt = strings.TrimSpace(stmt)
			for _, dot := range []string{".shell ", ".system ", ".once ", ".output ", ".excel ", ".import "} {
				rest, ok := strings.CutPrefix(stmt, dot)
				if !ok {
					continue
				}
				rest = strings.Trim(strings.TrimSpace(rest), `'"`)
				if dot == ".shell " || dot == ".system " {
					sh.sub().script(rest)
				} else if cmd, ok := strings.CutPrefix(rest, "|"); ok {
					sh.sub().script(cmd)
				} else if dot == ".once " || dot == ".output " {
					sh.pathArg(rest, opWrite, true)
				}
			}
		}
	}
	return nil
}

// pythonModule: python -m zipfile -e ARCHIVE DEST, -m tarfile -e ARCHIVE
// [DEST] unpack like unzip and tar -x.
func (sh *shell) pythonModule(args []string) {
	for i, a := range args {
		if a != "-m" || i+1 >= len(args) {
			continue
		}
		mod, rest := args[i+1], args[i+2:]
		if mod != "zipfile" && mod != "tarfile" {
			return
		}
		for j, r := range rest {
			if (r == "-e" || r == "--extract") && j+1 < len(rest) {
				dest := "."
				if j+2 < len(rest) {
					dest = rest[j+2]
				}
				sh.extractInto(dest, sh.abs(rest[j+1]), 0)
				return
			}
		}
		return
	}
}
