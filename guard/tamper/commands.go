package tamper

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// What the wire knows about the commands a line runs: which of their
// arguments they write or remove, which run other commands or code, and
// runaway's and the agents' own switches. A program it does not know that
// is handed a protected file is denied: editors, converters and the like
// write where they are pointed.

// pathOp is what a command does to a path argument.
type pathOp uint8

const (
	opWrite  pathOp = iota // writes it (or what is inside it)
	opDeep                 // removes, moves or locks it, and everything under it
	opUnlink               // as opDeep, but only its name: another hard link to the file is left alone
)

// run checks one command, given as its expanded words; it returns what
// the command prints when that is known (echo, printf, cat of a heredoc).
func (sh *shell) run(args []string, cmdEnv map[string]string, in *stdin) *stdin {
	var viaXargs bool
	args, cmdEnv, viaXargs, in = sh.unwrap(args, cmdEnv, in)
	if len(args) == 0 || sh.t.done() {
		return nil
	}
	if !known(args[0]) {
		// A program the wire cannot name: judged by what it is handed.
		sh.unknownProgram(args)
		return nil
	}
	name := filepath.Base(args[0])
	if sh.isRunaway(args[0]) {
		name = "runaway"
	}
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		name = "python"
	}
	rest := args[1:]
	switch name {
	case "echo":
		text := echoText(rest)
		// -e escapes (\x22…) are not followed: then the text is not known.
		return &stdin{text: text + "\n", exact: !strings.Contains(text, "\\")}
	case "printf":
		return sh.printf(rest)
	case "cat":
		ops := operands(rest, "")
		if len(ops) == 0 && in != nil {
			return in
		}
		// $(cat list): small files' text is known.
		var text strings.Builder
		for _, o := range ops {
			f := sh.fileText(o)
			if f == nil {
				return &stdin{text: strings.Join(rest, " ")}
			}
			text.WriteString(f.text)
		}
		return &stdin{text: text.String(), exact: len(ops) > 0}
	case "which", "command-v":
		if len(rest) > 0 {
			return &stdin{text: "/usr/bin/" + filepath.Base(rest[len(rest)-1]) + "\n", exact: true}
		}
	case "dirname", "basename", "realpath", "readlink":
		// Path arithmetic in $(…): what it prints is known.
		return sh.pathOutput(name, operands(rest, ""))
	case "cd", "pushd":
		sh.chdir(cdTarget(sh, rest))
	case "popd":
		sh.chdir("")
	case "alias":
		for _, a := range rest {
			if n, v, ok := strings.Cut(a, "="); ok && n != "" {
				sh.aliases[n] = strings.Fields(v)
			}
		}
	case "read":
		sh.read(rest, in)
	case "mapfile", "readarray":
		// mapfile [-t] NAME: the lines it reads, as an array.
		if ops := operands(rest, "dnOsuCc"); in != nil {
			name := "MAPFILE"
			if len(ops) > 0 {
				name = ops[0]
			}
			sh.env.vars[name] = expand.Variable{Set: true, Kind: expand.Indexed, List: strings.Split(strings.TrimRight(in.text, "\n"), "\n")}
		}
	case "trap":
		// trap 'CMD' SIGNALS: CMD runs later, in this shell.
		if ops := operands(rest, ""); len(ops) > 1 {
			sh.script(ops[0])
		}
	case "at", "batch":
		// The commands at reads run later: judged now.
		if f := optionValues(rest, "-f"); len(f) > 0 {
			sh.sub().scriptFile(f[0], nil)
		} else if in != nil {
			sh.sub().script(in.text)
		}
	case "crontab":
		if ops := operands(rest, "u"); in != nil && (len(ops) == 0 || ops[0] == "-") {
			sh.cronLines(in.text)
		} else if len(ops) > 0 {
			if f := sh.fileText(ops[0]); f != nil {
				sh.cronLines(f.text)
			}
		}
	case "tmux", "screen", "byobu":
		// Their commands run in a new shell: tmux new 'CMD', send-keys
		// 'CMD', run-shell 'CMD'; screen -dm CMD (unwrapped below).
		if name != "screen" {
			// tmux(1): -S SOCKET, -t TARGET, -c DIR, -n NAME, -F FORMAT…
			ops := operands(rest, "sStcnFxyeLf")
			for _, a := range ops[min(1, len(ops)):] {
				sh.sub().script(a)
			}
			return nil
		}
		if ops := operands(rest, "SpXcL"); len(ops) > 0 {
			sh.sub().call(ops, cmdEnv, nil)
		}
	case "set":
		if len(rest) > 0 && (rest[0] == "--" || !strings.HasPrefix(rest[0], "-") && !strings.HasPrefix(rest[0], "+")) {
			sh.env.params = operands(rest, "")
		}
	case "unset":
		for _, n := range operands(rest, "") {
			sh.subscripted(n)
			delete(sh.env.vars, n)
		}
	case "shopt":
		sh.shopt(rest)
	case "compgen":
		return sh.compgen(rest)
	case "eval":
		sh.script(strings.Join(rest, " "))
	case "source", ".":
		if len(rest) > 0 {
			sh.scriptFile(rest[0], in)
		}
	default:
		if p, ok := programs[name]; ok {
			return sh.apply(p, &call{name: name, args: rest, env: cmdEnv, in: in, viaXargs: viaXargs})
		}
		if !sh.agentCommand(name, rest, cmdEnv) && !readers[name] {
			sh.unknownProgram(args)
		}
	}
	return nil
}

// The code of the rows with a grammar of their own.

func (sh *shell) rsyncCall(c *call) *stdin {
	if contains(c.args, "--remove-source-files") {
		if ops := operands(c.args, "efB"); len(ops) > 1 {
			sh.paths(ops[:len(ops)-1], opUnlink, true)
		}
	}
	return nil
}

func (sh *shell) unzipCall(c *call) *stdin {
	dest := optionValues(c.args, "-d")
	if len(dest) == 0 {
		dest = []string{"."}
	}
	sh.extractInto(dest[len(dest)-1], sh.archiveArg(operands(c.args, "dxP")), 0)
	return nil
}

func (sh *shell) tarCall(c *call) *stdin {
	if contains(c.args, "--remove-files") {
		sh.paths(operands(c.args, "fCbTXgKLNV"), opUnlink, true)
	}
	if extracts(c.args) {
		dest := optionValues(c.args, "-C", "--directory")
		if len(dest) == 0 {
			dest = []string{"."}
		}
		sh.extractInto(dest[len(dest)-1], sh.archiveArg(tarFile(c.args)), stripComponents(c.args))
	}
	return nil
}

// zipCall: zip -m moves the files it adds into the archive.
func (sh *shell) zipCall(c *call) *stdin {
	if hasShortFlag(c.args, 'm') || contains(c.args, "--move") {
		sh.paths(operands(c.args, "bnxitP"), opUnlink, true)
	}
	return nil
}

func (sh *shell) sedCall(c *call) *stdin {
	sh.sedScripts(c.args)
	return nil
}

func (sh *shell) perlCall(c *call) *stdin {
	sh.interpreter(c.args, "eE", c.in)
	return nil
}

func (sh *shell) awkCall(c *call) *stdin {
	sh.awk(c.args)
	return nil
}

func (sh *shell) ddCall(c *call) *stdin {
	for _, a := range c.args {
		if v, ok := strings.CutPrefix(a, "of="); ok {
			sh.pathArg(v, opWrite, true)
		}
	}
	return nil
}

func (sh *shell) goCall(c *call) *stdin {
	sh.goCmd(c.args)
	if len(c.args) > 0 && c.args[0] == "install" {
		sh.goInstall(c.args[1:], c.env)
	}
	return nil
}

func (sh *shell) cargoCall(c *call) *stdin {
	sh.cargoInstall(c.args, c.env)
	return nil
}

func (sh *shell) findCall(c *call) *stdin {
	sh.find(c.args)
	return sh.findOutput(c.args)
}

func (sh *shell) gitCall(c *call) *stdin {
	sh.git(c.args)
	return nil
}

func (sh *shell) runawayCall(c *call) *stdin {
	sh.t.deny(runawayCommand(c.args))
	return nil
}

func (sh *shell) npxCall(c *call) *stdin {
	sh.npx(c.args, c.env)
	return nil
}

// npmCall: npm exec, pnpm dlx, yarn dlx, bun x: like npx.
func (sh *shell) npmCall(c *call) *stdin {
	if len(c.args) > 0 && (c.args[0] == "exec" || c.args[0] == "dlx" || c.args[0] == "x") {
		sh.npx(c.args[1:], c.env)
	}
	sh.npmGlobal(c.args, c.env)
	return nil
}

func (sh *shell) shellCall(c *call) *stdin {
	sh.subShell(c.args, c.in)
	return nil
}

func (sh *shell) applyPatchCall(c *call) *stdin {
	if len(c.args) > 0 {
		sh.t.deny(sh.t.patch(c.args[0], sh.cwd))
	} else if c.in != nil && c.in.exact {
		sh.t.deny(sh.t.patch(c.in.text, sh.cwd))
	}
	return nil
}

func (sh *shell) interpreterCall(c *call) *stdin {
	if c.name == "python" {
		sh.pythonModule(c.args)
	}
	sh.interpreter(c.args, "cerp", c.in)
	return nil
}

func (sh *shell) pwshCall(c *call) *stdin {
	for _, code := range optionValues(c.args, "-Command", "-c", "-command") {
		sh.t.powershell(code, sh.cwd)
	}
	return nil
}

// nodeCall: node running an agent's script is that agent.
func (sh *shell) nodeCall(c *call) *stdin {
	if len(c.args) > 0 && !strings.HasPrefix(c.args[0], "-") {
		if agent := agentScript(c.args[0]); agent != "" {
			sh.agentCommand(agent, c.args[1:], c.env)
			return nil
		}
	}
	sh.interpreter(c.args, "cerp", c.in)
	return nil
}

// unknownProgram: a program the wire does not know, handed a protected
// file, may write it.
func (sh *shell) unknownProgram(args []string) {
	inside := sh.cwd == "" || sh.t.classify(sh.cwd) != notProtected
	for _, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, "--"); ok {
			_, a, _ = strings.Cut(v, "=")
		}
		if !inside && !pathLike(a) {
			continue
		}
		p := sh.abs(a)
		if p == "" || !known(p) {
			continue
		}
		if k := sh.t.classify(p); k != notProtected {
			sh.t.deny(&finding{action: "hand " + k.noun() + " to a program runaway does not know (" + strings.TrimSuffix(filepath.Base(args[0]), unknownPart) + ")", path: p, why: "which may change it"})
			return
		}
	}
}

// pathLike: a word that can name a protected file from a folder outside
// them: a path, or a protected file's name.
func pathLike(a string) bool {
	if strings.ContainsAny(a, "/~") || a == "." || a == ".." {
		return true
	}
	switch a {
	case "settings.json", "settings.local.json", "config.json", "hooks.json", "config.toml", "runaway",
		"opencode.json", "opencode.jsonc", "runaway.js", ".claude", ".codex", ".gemini", ".config", ".local":
		return true
	}
	return false
}

// echoText is what echo prints for its arguments (-n, -e and -E left out).
func echoText(args []string) string {
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E" || args[0] == "-ne" || args[0] == "-en") {
		args = args[1:]
	}
	return strings.Join(args, " ")
}

// printf: its output, or with -v the variable it sets.
func (sh *shell) printf(args []string) *stdin {
	v := ""
	if len(args) >= 2 && args[0] == "-v" {
		v, args = args[1], args[2:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return nil
	}
	out := printfText(args[0], args[1:])
	if v != "" {
		sh.subscripted(v)
		sh.env.setString(v, out)
		return nil
	}
	// Escapes beyond \n, \t and \\ (\x22, \042, %b's) are not followed.
	return &stdin{text: out, exact: !strings.Contains(out, "\\")}
}

// read assigns the first line of what the command reads.
func (sh *shell) read(args []string, in *stdin) {
	names := operands(args, "adnNptu")
	if len(names) == 0 {
		return
	}
	line := unknownPart
	if in != nil {
		line, _, _ = strings.Cut(in.text, "\n")
	}
	words := strings.Fields(line)
	for i, n := range names {
		switch {
		case i == len(names)-1 && i < len(words):
			sh.env.setString(n, strings.Join(words[i:], " "))
		case i < len(words):
			sh.env.setString(n, words[i])
		default:
			sh.env.setString(n, "")
		}
	}
}

// chdir moves the shell ("" when where it went is unknown).
func (sh *shell) chdir(dir string) {
	sh.oldpwd = sh.cwd
	sh.cwd = dir
	sh.env.setString("OLDPWD", orUnknown(sh.oldpwd))
	sh.env.setString("PWD", orUnknown(dir))
}

func orUnknown(s string) string {
	if s == "" {
		return unknownPart
	}
	return s
}

func cdTarget(sh *shell, args []string) string {
	ops := operands(args, "")
	if len(ops) == 0 {
		return sh.t.homeDir()
	}
	if ops[0] == "-" {
		return sh.oldpwd
	}
	if !known(ops[0]) {
		return ""
	}
	// CDPATH's folders come first for a name that is not ./ or ../ or
	// absolute (bash(1), cd).
	dir := ops[0]
	if cdpath := sh.env.Get("CDPATH").String(); cdpath != "" && !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") && dir != "." && dir != ".." {
		if !known(cdpath) {
			return ""
		}
		for _, base := range strings.Split(cdpath, ":") {
			if base == "" {
				base = "."
			}
			p := sh.abs(base + "/" + dir)
			if p == "" {
				continue
			}
			if fi, err := os.Stat(filepath.Clean(p)); err == nil && fi.IsDir() {
				return p
			}
		}
	}
	return sh.abs(dir)
}

// abs is p as an absolute path from the shell's folder, not cleaned:
// symlinks are resolved before "..", as the kernel does ("" when unknown).
func (sh *shell) abs(p string) string {
	return sh.t.abs(p, sh.cwd)
}

// extracts reports a tar extraction: -x, --extract, or xf (old style).
func extracts(args []string) bool {
	for i, s := range args {
		if s == "--extract" || s == "--get" ||
			strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && strings.Contains(s, "x") ||
			i == 0 && !strings.HasPrefix(s, "-") && strings.Contains(s, "x") {
			return true
		}
	}
	return false
}

// dryRun reports --dry-run (or rsync's -n) among the options.
func dryRun(args []string) bool {
	for _, a := range args {
		if a == "--dry-run" || a == "--list-only" {
			return true
		}
	}
	return false
}

// archiveArg is the archive a command extracts, when it names a file.
func (sh *shell) archiveArg(ops []string) string {
	if len(ops) == 0 {
		return ""
	}
	return sh.abs(ops[0])
}

// extractInto: an archive's files land in dest; when dest is or holds a
// protected file, the archive's entries decide (strip: tar's
// --strip-components), and an archive the wire cannot list is denied.
func (sh *shell) extractInto(dest, archive string, strip int) {
	d := sh.abs(dest)
	if d == "" {
		return
	}
	if !known(d) {
		sh.pathArg(dest, opWrite, false)
		return
	}
	if k := sh.t.classify(d); k != notProtected {
		sh.t.deny(&finding{action: "unpack an archive into " + k.noun(), path: filepath.Clean(d)})
		return
	}
	in := sh.t.inside(d)
	if len(in) == 0 {
		return
	}
	names, ok := archiveEntries(archive)
	if !ok {
		sh.t.deny(&finding{action: "unpack an archive runaway cannot list into " + filepath.Clean(d) + ", which holds " + in[0].kind.noun(), path: in[0].path, why: "whose files it may replace"})
		return
	}
	for _, n := range names {
		parts := strings.Split(strings.TrimPrefix(filepath.ToSlash(n), "/"), "/")
		if len(parts) <= strip {
			continue
		}
		target := d + "/" + strings.Join(parts[strip:], "/")
		if k := sh.t.classify(target); k != notProtected {
			sh.t.deny(&finding{action: "unpack an archive over " + k.noun(), path: filepath.Clean(target)})
			return
		}
		if sh.t.done() {
			return
		}
	}
}

// tarFile is the archive tar reads: -f FILE, --file=FILE, or the f of a
// cluster (xzf FILE, -xzf FILE).
func tarFile(args []string) []string {
	if v := optionValues(args, "-f", "--file"); len(v) > 0 {
		return v[len(v)-1:]
	}
	for i, a := range args {
		if !strings.HasPrefix(a, "--") && strings.Contains(a, "f") && (i == 0 || strings.HasPrefix(a, "-")) && i+1 < len(args) {
			return args[i+1 : i+2]
		}
	}
	return nil
}

// stripComponents is tar's --strip-components=N.
func stripComponents(args []string) int {
	for _, v := range optionValues(args, "--strip-components", "--strip") {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	return 0
}

// fileText reads a small file the line names (xargs -a, source): its
// words, not exact.
func (sh *shell) fileText(name string) *stdin {
	p := sh.abs(name)
	if p == "" || !known(p) {
		return nil
	}
	if w, ok := sh.t.written[filepath.Clean(p)]; ok {
		return &stdin{text: w, exact: true} // written earlier in the line
	}
	s, err := readSmall(filepath.Clean(p))
	if err != nil || len(s) > maxScriptRead {
		return nil
	}
	return &stdin{text: s, exact: true}
}

// maxScriptRead bounds a script file or list read for the line.
const maxScriptRead = 256 << 10

// scriptFile checks a script the line runs (source, bash FILE) as it is
// on disk now.
func (sh *shell) scriptFile(name string, in *stdin) {
	switch name {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-":
		// What the command reads: a heredoc, a here-string, a pipe.
		if in != nil {
			sh.script(in.text)
		}
		return
	}
	if f := sh.fileText(name); f != nil {
		sh.script(f.text)
	}
}

// operands are the arguments that are not options; values lists the short
// options whose value is the next argument.
func operands(args []string, values string) []string {
	var out []string
	opts := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !opts || a == "-" || !strings.HasPrefix(a, "-"):
			out = append(out, a)
		case a == "--":
			opts = false
		case !strings.HasPrefix(a, "--") && len(a) == 2 && strings.IndexByte(values, a[1]) >= 0:
			i++
		}
	}
	return out
}

// optionValues are the values of the named options (-o v, -ov, --output=v).
func optionValues(args []string, names ...string) []string {
	var out []string
	for i, a := range args {
		for _, n := range names {
			switch {
			case a == n && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				out = append(out, a[len(n)+1:])
			case len(n) == 2 && n[0] == '-' && n[1] != '-' && len(a) > 2 && strings.HasPrefix(a, n) && !strings.HasPrefix(a, "--"):
				out = append(out, a[2:])
			}
		}
	}
	return out
}

// inPlace reports an in-place option: sed -i, perl -pi, yq -i, --in-place.
func inPlace(args []string) bool {
	for _, s := range args {
		if s == "--" {
			return false
		}
		if strings.HasPrefix(s, "--in-place") || s == "--inplace" {
			return true
		}
		if strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") {
			// In a cluster, -i may carry a suffix (-i.bak): look before any e.
			flags := s[1:]
			if e := strings.IndexAny(flags, "eE"); e >= 0 {
				flags = flags[:e]
			}
			if strings.Contains(flags, "i") {
				return true
			}
		}
	}
	return false
}

// paths checks each path argument.
func (sh *shell) paths(args []string, op pathOp, ancestors bool) {
	for _, a := range args {
		if sh.t.done() {
			return
		}
		sh.pathArg(a, op, ancestors)
	}
}

// copyLike checks cp, mv, install, ln, rsync: the destination is written
// (or, when it is a folder, dest/<name of each source>, and for a copy of
// a folder's contents the folder itself); mv also removes its sources; a
// hard link to a protected file is a way to write it.
func (sh *shell) copyLike(name string, args []string, values string, viaXargs bool) {
	var dest string
	if v := optionValues(args, "-t", "--target-directory"); len(v) > 0 {
		dest = v[0]
	}
	ops := operands(args, values)
	symbolic, recursive, contents := false, false, false
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			symbolic = symbolic || strings.Contains(a, "s")
			recursive = recursive || strings.ContainsAny(a, "rRa")
			contents = contents || strings.Contains(a, "T")
		}
		switch a {
		case "--symbolic":
			symbolic = true
		case "--recursive", "--archive":
			recursive = true
		case "--no-target-directory":
			contents = true
		}
	}
	if dest == "" && len(ops) == 1 && name == "ln" {
		// ln [-s] TARGET: the link is made here, under the target's name.
		if sh.cwd == "" || !known(ops[0]) {
			return
		}
		sh.hardLink(ops[0], name, symbolic)
		sh.pathArg(filepath.Join(sh.cwd, filepath.Base(ops[0])), opWrite, false)
		return
	}
	if dest == "" && len(ops) > 0 {
		dest = ops[len(ops)-1]
		ops = ops[:len(ops)-1]
	}
	if name == "mv" {
		sh.paths(ops, opUnlink, !viaXargs)
	}
	if (name == "ln" || name == "link" || name == "cp") && !(name == "cp" && !hasLinkFlag(args)) {
		for _, src := range ops {
			sh.hardLink(src, name, symbolic)
		}
	}
	if dest == "" || sh.t.done() {
		return
	}
	judged := false // copyKnown judged the file by its content
	if name == "ln" && symbolic {
		// A new link: what the old one at dest points to is not written.
		defer sh.madeLink(dest, ops, contents)
		sh.linkArg(dest)
	} else if judged = sh.copyKnown(name, ops, dest, recursive); !judged {
		sh.pathArg(dest, opWrite, false)
	}
	if !known(dest) {
		return
	}
	for _, src := range ops {
		if !known(src) || sh.t.done() {
			continue
		}
		if sh.isRunaway(src) {
			// A copy of runaway's program is runaway: remember where.
			sh.t.copies = append(sh.t.copies, filepath.Clean(sh.abs(dest)))
		}
		if judged {
			continue
		}
		merge := contents || (recursive && (strings.HasSuffix(src, "/.") || name == "rsync" && strings.HasSuffix(src, "/")))
		target := strings.TrimRight(dest, "/") + "/" + filepath.Base(src)
		if merge {
			target = dest
		}
		if !merge && !sh.isDir(dest) && len(ops) == 1 {
			target = dest
		}
		if name == "ln" && symbolic {
			sh.linkArg(target)
			continue
		}
		sh.pathArg(target, opWrite, false)
		if recursive || merge {
			if in := sh.t.inside(sh.abs(target)); len(in) > 0 {
				sh.t.deny(&finding{action: "copy a folder over " + sh.abs(target) + ", which holds " + in[0].kind.noun(), path: in[0].path})
				return
			}
		}
	}
}

// madeLink remembers a symlink the line makes: later paths through it go
// where it points.
func (sh *shell) madeLink(dest string, ops []string, contents bool) {
	if len(ops) != 1 || !known(dest) || !known(ops[0]) {
		return
	}
	at := sh.abs(dest)
	if sh.isDir(dest) && !contents {
		at = strings.TrimRight(at, "/") + "/" + filepath.Base(ops[0])
	}
	if sh.t.links == nil {
		sh.t.links = map[string]string{}
	}
	sh.t.links[filepath.Clean(sh.t.realPath(filepath.Dir(at)))+"/"+filepath.Base(at)] = ops[0]
}

// linkArg checks where a symlink is made: its folder is resolved, the
// old link there is replaced, not followed.
func (sh *shell) linkArg(dest string) {
	p := sh.abs(dest)
	if p == "" || !known(p) {
		sh.pathArg(dest, opWrite, false)
		return
	}
	at := filepath.Clean(sh.t.realPath(filepath.Dir(p))) + "/" + filepath.Base(p)
	sh.t.resolve()
	if k := sh.t.match(filepath.Clean(p)); k != notProtected {
		sh.t.deny(&finding{action: k.action(opWrite), path: filepath.Clean(p)})
	} else if k := sh.t.match(at); k != notProtected {
		sh.t.deny(&finding{action: k.action(opWrite), path: at})
	}
}

func hasLinkFlag(args []string) bool {
	for _, a := range args {
		if a == "--link" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "l") {
			return true
		}
	}
	return false
}

// hardLink: a hard link to a protected file is the file itself, under a
// name the wire would not know.
func (sh *shell) hardLink(src, name string, symbolic bool) {
	if symbolic {
		return
	}
	p := sh.abs(src)
	if p == "" || !known(p) {
		return
	}
	if k := sh.t.classify(p); k != notProtected {
		sh.t.deny(&finding{action: "hard-link " + k.noun(), path: p, why: "which writes it under another name"})
	}
}

func (sh *shell) isDir(p string) bool {
	a := sh.abs(p)
	if a == "" || !known(a) {
		return strings.HasSuffix(p, "/")
	}
	fi, err := os.Stat(a)
	return err == nil && fi.IsDir()
}

// isRunaway reports a program path that is runaway's (or a copy the line
// made of it).
func (sh *shell) isRunaway(prog string) bool {
	if !strings.Contains(prog, "/") {
		return false
	}
	p := sh.abs(prog)
	if p == "" || !known(p) {
		return false
	}
	p = filepath.Clean(p)
	for _, c := range sh.t.copies {
		if c == p {
			return true
		}
	}
	return sh.t.classify(p) == ownBinary
}

// pathArg checks one path a command writes (opWrite) or removes, moves or
// locks (opDeep: a folder that holds a protected file counts too, when
// ancestors is set).
func (sh *shell) pathArg(text string, op pathOp, ancestors bool) {
	if text == "" || sh.t.done() {
		return
	}
	if sh.t.checked++; sh.t.checked > maxPathChecks {
		sh.t.unsure(fmt.Sprintf("more than %d paths", maxPathChecks))
		return
	}
	p := sh.abs(text)
	if p == "" {
		return
	}
	if i := strings.Index(p, unknownPart); i >= 0 {
		// Only the known folder before the unknown part can be judged.
		j := strings.LastIndexByte(p[:i], '/')
		if j <= 0 {
			return
		}
		dir := p[:j]
		if k := sh.t.classify(dir); k == ownConfig || k == ownState {
			sh.t.deny(&finding{action: k.action(op), path: filepath.Clean(dir)})
		}
		return
	}
	k := sh.t.classify(p)
	if op == opUnlink {
		k = sh.t.classifyName(p)
	}
	if k != nil && (k.env && op != opWrite || k.unreadWrites && op == opWrite) {
		k = notProtected // removing or chmod-ing one sets nothing; see unreadWrites
	}
	if k != notProtected {
		sh.t.deny(&finding{action: k.action(op), path: filepath.Clean(p)})
		return
	}
	if op != opWrite && ancestors {
		in := sh.t.inside(p)
		if op == opUnlink {
			in = sh.t.insideName(p)
		}
		in = slices.DeleteFunc(in, func(pp protectedPath) bool { return pp.kind.env })
		if len(in) > 0 {
			sh.t.deny(&finding{action: "remove, move or lock a folder (" + filepath.Clean(p) + ") that holds " + in[0].kind.noun(), path: in[0].path})
		}
	}
}

// maxPathChecks bounds the path arguments checked in one call; no real
// command comes near it.
const maxPathChecks = 20000

// action says what a command does to a protected file.
func (k *fileKind) action(op pathOp) string {
	if op != opWrite {
		return "remove, move or lock " + k.noun()
	}
	if k == ownBinary {
		return "replace runaway's program"
	}
	return "change " + k.noun()
}

// runawayCommand denies the subcommands only the person may run: allow
// (raises a cap), remove and setup (rewire the hooks); setup --dry-run
// only shows. And hook: a hook call from inside a tool call is not the
// agent's hook, and forged calls would change the session's count (a
// halted turn forgotten, a loop's run broken).
func runawayCommand(args []string) *finding {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			return nil
		}
	}
	ops := operands(args, "")
	if len(ops) == 0 {
		return nil
	}
	switch sub := ops[0]; sub {
	case "setup", "remove", "uninstall":
		if dryRun(args) {
			return nil
		}
		fallthrough
	case "allow", "accept":
		return &finding{action: "run `runaway " + sub + "`", why: "which only the person may run"}
	case "hook":
		return &finding{action: "run `runaway hook` from a tool call", why: "which only the agent runs, before each tool call: a call made up here would change what runaway counts"}
	}
	return nil
}

// goCmd: `go run <runaway's main package> allow|remove|setup`, and go build
// or install -o onto a protected path.
func (sh *shell) goCmd(args []string) {
	if len(args) == 0 {
		return
	}
	switch args[0] {
	case "build", "install":
		sh.paths(optionValues(args[1:], "-o"), opWrite, true)
		return
	case "run":
	default:
		return
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && goValueFlags[strings.TrimLeft(a, "-")] {
				i++
			}
			continue
		}
		pkg, _, _ := strings.Cut(strings.TrimRight(a, "/"), "@")
		if filepath.Base(pkg) == "runaway" || (pkg == "." && filepath.Base(sh.cwd) == "runaway") {
			sh.t.deny(runawayCommand(rest[i+1:]))
		}
		return
	}
}

// goValueFlags are go run's build flags that take a value.
var goValueFlags = map[string]bool{
	"C": true, "tags": true, "ldflags": true, "gcflags": true, "asmflags": true, "mod": true,
	"modfile": true, "exec": true, "p": true, "o": true, "overlay": true, "pgo": true,
	"pkgdir": true, "toolexec": true, "buildmode": true, "compiler": true, "gccgoflags": true,
	"installsuffix": true, "covermode": true, "coverpkg": true,
}

// npx: `npx @anthropic-ai/claude-code …`, `npx runaway remove`.
func (sh *shell) npx(args []string, cmdEnv map[string]string) {
	ops := operands(args, "p")
	if len(ops) == 0 {
		return
	}
	pkg, _, _ := strings.Cut(strings.TrimPrefix(ops[0], "@"), "@")
	rest := args[index(args, ops[0])+1:]
	if agent := agentPackage(pkg); agent != "" {
		sh.agentCommand(agent, rest, cmdEnv)
		return
	}
	if pkg == "runaway" || strings.HasSuffix(pkg, "/runaway") {
		sh.t.deny(runawayCommand(rest))
	}
}

// index is the position of s in args (-1 when absent).
func index(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// subShell: sh -c SCRIPT, a script file, or a script fed on stdin
// (a heredoc, `echo … | sh`).
func (sh *shell) subShell(args []string, in *stdin) {
	for i, a := range args {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			for j, s := range args[i+1:] {
				if !strings.HasPrefix(s, "-") {
					// sh -c SCRIPT NAME ARGS…: $1… are ARGS.
					sub := sh.sub()
					sub.env.params = []string{}
					if rest := args[i+1+j+1:]; len(rest) > 1 {
						sub.env.params = rest[1:]
					}
					sub.script(s)
					return
				}
			}
			return
		}
	}
	if ops := operands(args, "o"); len(ops) > 0 {
		sh.sub().scriptFile(ops[0], in)
		return
	}
	if in != nil {
		sh.sub().script(in.text)
	}
}

// interpreter: python -c, perl -e, node -e … and scripts fed on stdin or
// given as a file. The code is not run or parsed: it is denied when it
// both names a protected path (or builds one from its parts) and does
// something that writes.
func (sh *shell) interpreter(args []string, codeFlags string, in *stdin) {
	var code []string
	for i, s := range args {
		if len(s) >= 2 && s[0] == '-' && s[1] != '-' && strings.IndexByte(codeFlags, s[len(s)-1]) >= 0 && i+1 < len(args) {
			code = append(code, args[i+1])
		}
		if (s == "--eval" || s == "--print" || s == "eval") && i+1 < len(args) {
			code = append(code, args[i+1])
		}
	}
	if len(code) == 0 {
		if ops := operands(args, "mWX"); len(ops) > 0 && ops[0] != "-" {
			if f := sh.fileText(ops[0]); f != nil {
				code = append(code, f.text)
			}
		}
	}
	if in != nil {
		code = append(code, in.text)
	}
	for _, c := range code {
		sh.t.deny(sh.t.code(c))
	}
}

// find: -delete, or -exec of a command that is not a reader, on a start
// folder that is or holds a protected path.
func (sh *shell) find(args []string) {
	var starts []string
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	mutates, filtered := false, false
	var names []string
	for ; i < len(args); i++ {
		switch args[i] {
		case "-delete":
			mutates = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(args) {
				prog := filepath.Base(args[i+1])
				if !readers[prog] || prog == "sed" || prog == "awk" || prog == "find" || prog == "git" || prog == "python" || prog == "node" {
					mutates = true
				}
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				sh.pathArg(args[i+1], opWrite, true)
			}
		case "-name", "-iname":
			if i+1 < len(args) {
				names = append(names, args[i+1])
			}
			filtered = true
		case "-path", "-ipath", "-wholename", "-regex", "-iregex":
			filtered = true
			names = append(names, "*") // cannot tell: as if it matched
		}
	}
	if !mutates {
		return
	}
	for _, s := range starts {
		p := sh.abs(s)
		if p == "" || !known(p) {
			continue
		}
		if k := sh.t.classify(p); k != notProtected {
			sh.t.deny(&finding{action: k.action(opDeep), path: filepath.Clean(p)})
			return
		}
		for _, pp := range sh.t.inside(p) {
			if !filtered || nameMatchesBelow(names, filepath.Clean(p), pp.path) {
				sh.t.deny(&finding{action: "remove or change files under " + filepath.Clean(p) + ", among them " + pp.kind.noun(), path: pp.path})
				return
			}
		}
	}
}

// cronLines checks a crontab's commands (each line after its schedule).
func (sh *shell) cronLines(text string) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#") || strings.Contains(f[0], "="):
		case strings.HasPrefix(f[0], "@") && len(f) > 1:
			sh.sub().script(strings.Join(f[1:], " "))
		case len(f) > 5:
			sh.sub().script(strings.Join(f[5:], " "))
		}
	}
}

// pathOutput is what dirname, basename, realpath and readlink print.
func (sh *shell) pathOutput(name string, ops []string) *stdin {
	var out []string
	for _, o := range ops {
		if !known(o) {
			return nil
		}
		switch name {
		case "dirname":
			out = append(out, filepath.Dir(o))
		case "basename":
			out = append(out, filepath.Base(o))
		default:
			p := sh.abs(o)
			if p == "" {
				return nil
			}
			out = append(out, sh.t.realPath(p))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &stdin{text: strings.Join(out, "\n") + "\n", exact: true}
}

// findOutput stands in for what find prints: the protected paths at or
// under its start folders that its -name filters match (the rest of its
// output cannot matter to the wire).
func (sh *shell) findOutput(args []string) *stdin {
	var starts, names []string
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	filtered := false
	for ; i+1 < len(args); i++ {
		switch args[i] {
		case "-name", "-iname":
			names, filtered = append(names, args[i+1]), true
		case "-path", "-ipath", "-wholename", "-regex", "-iregex":
			names, filtered = append(names, "*"), true
		}
	}
	var out []string
	for _, s := range starts {
		p := sh.abs(s)
		if p == "" || !known(p) {
			return nil
		}
		if sh.t.classify(p) != notProtected {
			out = append(out, filepath.Clean(p))
			continue
		}
		for _, pp := range sh.t.inside(p) {
			if !filtered || nameMatchesBelow(names, filepath.Clean(p), pp.path) {
				out = append(out, pp.path)
			}
		}
	}
	return &stdin{text: strings.Join(out, "\n") + "\n", exact: true, from: append([]string{"find"}, args...)}
}

// nameMatchesBelow reports whether a -name pattern matches the name of q,
// of a folder between dir and q, or (q being a folder) of what is in it.
func nameMatchesBelow(names []string, dir, q string) bool {
	match := func(name string) bool {
		for _, n := range names {
			if ok, _ := filepath.Match(n, name); ok {
				return true
			}
		}
		return false
	}
	for cur := q; cur != dir && cur != filepath.Dir(cur); cur = filepath.Dir(cur) {
		if match(filepath.Base(cur)) {
			return true
		}
	}
	// Two levels are enough for runaway's folders (state/sessions/*.json).
	entries, _ := os.ReadDir(q)
	for _, e := range entries {
		if match(e.Name()) {
			return true
		}
		if e.IsDir() {
			sub, _ := os.ReadDir(filepath.Join(q, e.Name()))
			for _, s := range sub {
				if match(s.Name()) {
					return true
				}
			}
		}
	}
	return false
}

// sedScripts: sed's w command and the w flag of s write a file
// (`sed -n 'w FILE'`, `s/a/b/w FILE`).
func (sh *shell) sedScripts(args []string) {
	scripts := optionValues(args, "-e", "--expression")
	if len(scripts) == 0 {
		if ops := operands(args, "efl"); len(ops) > 0 {
			scripts = ops[:1]
		}
	}
	for _, s := range scripts {
		for cmd := range strings.SplitSeq(s, "\n") {
			for _, part := range strings.Split(cmd, ";") {
				part = strings.TrimSpace(part)
				if f, ok := sedWriteFile(part); ok {
					sh.pathArg(f, opWrite, true)
				}
			}
		}
	}
}

// sedWriteFile finds the file of a w command or an s///w flag.
func sedWriteFile(cmd string) (string, bool) {
	// Skip an address (line numbers, $, /re/, ranges).
	c := strings.TrimLeft(cmd, "0123456789,$!~ ")
	if strings.HasPrefix(c, "/") {
		if j := strings.Index(c[1:], "/"); j >= 0 {
			c = strings.TrimLeft(c[j+2:], "!, ")
		}
	}
	switch {
	case strings.HasPrefix(c, "w ") || strings.HasPrefix(c, "W "):
		return strings.TrimSpace(c[2:]), true
	case strings.HasPrefix(c, "s") && len(c) > 1:
		d := c[1]
		parts := strings.SplitN(c[2:], string(d), 3)
		if len(parts) == 3 {
			flags := parts[2]
			if i := strings.IndexByte(flags, 'w'); i >= 0 {
				return strings.TrimSpace(flags[i+1:]), true
			}
		}
	}
	return "", false
}

// awk: -i inplace, and the files its program prints or writes into
// (print > "file", FILENAME).
func (sh *shell) awk(args []string) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-i" && args[i+1] == "inplace" {
			sh.paths(operands(args, "ivfF"), opWrite, true)
			return
		}
	}
	ops := operands(args, "vfF")
	if len(ops) == 0 {
		return
	}
	prog, files := ops[0], ops[1:]
	for _, target := range awkTargets(prog) {
		if target == "FILENAME" {
			sh.paths(files, opWrite, true)
			continue
		}
		sh.pathArg(target, opWrite, true)
	}
	if strings.Contains(prog, "system(") {
		sh.t.deny(sh.t.code(prog))
	}
}

// awkTargets are the files an awk program redirects into: a quoted
// string or FILENAME after > or >>; an expression the wire cannot read
// is unknown.
func awkTargets(prog string) []string {
	var out []string
	inStr := false
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		if c == '"' {
			inStr = !inStr
			continue
		}
		if inStr || c != '>' {
			continue
		}
		j := i + 1
		if j < len(prog) && prog[j] == '>' {
			j++
		}
		for j < len(prog) && prog[j] == ' ' {
			j++
		}
		rest := prog[j:]
		switch {
		case strings.HasPrefix(rest, `"`):
			if end := strings.IndexByte(rest[1:], '"'); end >= 0 {
				out = append(out, rest[1:1+end])
			}
		case strings.HasPrefix(rest, "FILENAME"):
			out = append(out, "FILENAME")
		}
		i = j - 1
	}
	return out
}

// printfText formats printf's output for the common directives.
func printfText(format string, args []string) string {
	var b strings.Builder
	ai := 0
	next := func() string {
		if ai < len(args) {
			ai++
			return args[ai-1]
		}
		return ""
	}
	for {
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\':
					b.WriteByte('\\')
				default:
					b.WriteByte('\\')
					b.WriteByte(format[i])
				}
			case c == '%' && i+1 < len(format):
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
					j++
				}
				if j < len(format) {
					switch format[j] {
					case '%':
						b.WriteByte('%')
					case 's', 'b', 'q', 'd', 'i', 'u', 'x', 'X', 'o', 'c', 'f', 'g', 'e':
						b.WriteString(next())
					}
				}
				i = j
			default:
				b.WriteByte(c)
			}
		}
		if ai == 0 || ai >= len(args) {
			break
		}
	}
	return b.String()
}

// compgen -G PATTERN prints what the glob matches, -f and -d the files
// and folders whose names start with a prefix (dotfiles too): what it
// prints is known, so $(compgen …) and | xargs are followed.
func (sh *shell) compgen(args []string) *stdin {
	var glob, prefix string
	dirsOnly := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-G" && i+1 < len(args):
			i++
			glob = args[i]
		case a == "-f", a == "-A" && i+1 < len(args) && args[i+1] == "file":
		case a == "-d", a == "-A" && i+1 < len(args) && args[i+1] == "directory":
			dirsOnly = true
		case a == "-A":
			i++
		case !strings.HasPrefix(a, "-"):
			prefix = a
		}
	}
	switch {
	case glob != "":
		if !known(glob) {
			return nil
		}
		w := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: glob}}}
		fs, err := expand.Fields(sh.config(), w)
		if err != nil || len(fs) == 1 && fs[0] == glob {
			return &stdin{exact: true}
		}
		return &stdin{text: strings.Join(fs, "\n") + "\n", exact: true}
	case prefix != "":
		p := sh.abs(prefix)
		if p == "" || !known(p) {
			return nil
		}
		dir, base := filepath.Split(p)
		es, err := sh.t.readDir(filepath.Clean(dir))
		if err != nil {
			return &stdin{exact: true}
		}
		shown := strings.TrimSuffix(prefix, base)
		var out strings.Builder
		for _, e := range es {
			if strings.HasPrefix(e.Name(), base) && (!dirsOnly || e.IsDir()) {
				out.WriteString(shown + e.Name() + "\n")
			}
		}
		return &stdin{text: out.String(), exact: true}
	}
	return nil
}

// copyKnown judges cp, install or mv of one file onto a settings or env
// file by what the source holds, as a Write of it would be (a new
// project's .claude/settings.json from a template, cp .env.example .env);
// it reports whether it judged.
func (sh *shell) copyKnown(name string, ops []string, dest string, recursive bool) bool {
	if len(ops) != 1 || recursive || !known(dest) || !known(ops[0]) || !(name == "cp" || name == "install" || name == "mv") {
		return false
	}
	target := sh.abs(dest)
	if target == "" {
		return false
	}
	if fi, err := os.Stat(filepath.Clean(target)); err == nil && fi.IsDir() {
		target = filepath.Join(target, filepath.Base(ops[0]))
	}
	k := sh.t.classify(target)
	if k == nil || k.owned() || k.change == nil && !k.env {
		return false
	}
	src := sh.fileText(ops[0])
	if src == nil {
		return false
	}
	sh.t.remember(target, src.text)
	sh.t.deny(sh.t.writeFile(target, func(string, bool) (string, bool) { return src.text, true }, nil))
	return true
}
