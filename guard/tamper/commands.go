package tamper

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// What the tamper wire knows about shell commands: which of their arguments
// they write or remove, which run code, and runaway's and the agents' own
// switches.

// shellState is what a command line has set up so far: its folder and the
// variables it assigned.
type shellState struct {
	cwd   string // "" once a cd went somewhere unknown
	ex    *expander
	depth int
	// env are the NAME=value words the current command is run with
	// (before it, or after env), which last for that command only.
	env []string
}

// pathOp is what a command does to a path argument.
type pathOp uint8

const (
	opWrite pathOp = iota // writes it (or what is inside it)
	opDeep                // removes, moves or locks it, and everything under it
)

// shell checks a command line.
func (t *checker) shell(src, cwd string, depth int) *finding {
	return t.shellWith(src, &shellState{cwd: cwd, depth: depth,
		ex: &expander{getenv: t.getenv, vars: map[string]string{}, home: t.homeDir()}})
}

func (t *checker) shellWith(src string, st *shellState) *finding {
	if st.depth > maxShellDepth {
		return nil
	}
	sc := parseShell(src)
	for _, pl := range sc.pipelines {
		for i := range pl {
			if f := t.command(st, pl, i); f != nil {
				return f
			}
		}
	}
	for _, sub := range sc.subs {
		if f := t.nested(st, sub); f != nil {
			return f
		}
	}
	return nil
}

// nested checks a script run from this one (bash -c, eval, $(…), heredocs),
// with the variables known so far.
func (t *checker) nested(st *shellState, src string) *finding {
	inner := &shellState{cwd: st.cwd, depth: st.depth + 1, ex: st.ex}
	return t.shellWith(src, inner)
}

// arg is an expanded word.
type arg = expanded

func (a arg) known() bool { return !strings.Contains(a.text, unknownPart) }

// command checks command idx of a pipeline.
func (t *checker) command(st *shellState, pl pipeline, idx int) *finding {
	c := pl[idx]
	for _, r := range c.redirs {
		if r.writes() {
			if f := t.pathArg(st, st.ex.expand(r.target), opWrite, true); f != nil {
				return f
			}
		}
	}
	words := c.words
	n := 0
	for n < len(words) {
		if _, _, ok := assignment(words[n]); !ok {
			break
		}
		n++
	}
	if n == len(words) {
		// Only assignments: they last for the rest of the line.
		for _, w := range words {
			name, val, _ := assignment(w)
			st.ex.vars[name] = st.ex.text(val)
		}
		return nil
	}
	args := make([]arg, 0, len(words)-n)
	for _, w := range words[n:] {
		args = append(args, st.ex.expand(w))
	}
	st.env = st.env[:0]
	for _, w := range words[:n] {
		name, val, _ := assignment(w)
		st.env = append(st.env, name+"="+st.ex.text(val))
	}
	all := args
	args, viaXargs := unwrap(args)
	for _, a := range all[:len(all)-len(args)] {
		if i := strings.IndexByte(a.text, '='); i > 0 && isName(a.text[:i]) {
			st.env = append(st.env, a.text) // env NAME=value cmd
		}
	}
	if len(args) == 0 {
		return nil
	}
	if viaXargs {
		// xargs adds what the earlier commands print; their words stand in.
		args = append(args, pipeWords(st, pl, idx)...)
	}
	name := filepath.Base(args[0].text)
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		name = "python"
	}
	rest := args[1:]
	switch name {
	case "cd", "pushd":
		st.cwd = cdTarget(st, rest)
	case "for", "select":
		// for NAME in WORDS: the loop's variable stands for the word that
		// names a protected path, if one does, so that `rm "$f"` in the
		// body is judged by it.
		if len(rest) >= 2 && rest[1].text == "in" && isName(rest[0].text) && len(rest) > 2 {
			st.ex.vars[rest[0].text] = t.likeliestWord(st, rest[2:])
		}
	case "flock":
		// Holding a session's lock makes every hook answer "no decision".
		if ops := operands(rest, "wEc"); len(ops) > 0 {
			return t.pathArg(st, ops[0], opWrite, false)
		}
	case "unzip":
		return t.paths(st, optionValues(rest, "-d"), opWrite, false)
	case "tar", "bsdtar":
		if extracts(rest) {
			return t.paths(st, optionValues(rest, "-C", "--directory"), opWrite, false)
		}
	case "export", "declare", "typeset", "local", "readonly":
		for _, w := range words[n+1:] {
			if name, val, ok := assignment(w); ok {
				st.ex.vars[name] = st.ex.text(val)
			}
		}
	case "rm", "unlink", "rmdir", "shred", "srm", "trash", "trash-put":
		return t.paths(st, operands(rest, ""), opDeep, !viaXargs)
	case "mv":
		return t.copyLike(st, name, rest, "tS", viaXargs)
	case "cp", "install", "ln", "link", "rsync", "scp":
		return t.copyLike(st, name, rest, "tSmogefB", viaXargs)
	case "chmod", "chown", "chgrp", "chattr", "setfacl":
		return t.paths(st, operands(rest, ""), opDeep, !viaXargs)
	case "tee", "truncate", "sponge", "patch", "ed", "ex":
		return t.paths(st, operands(rest, "s"), opWrite, true)
	case "sed", "perl", "ruby", "yq":
		if inPlace(rest) {
			if f := t.paths(st, operands(rest, "ef"), opWrite, true); f != nil {
				return f
			}
		}
		if name == "perl" || name == "ruby" {
			return t.interpreter(st, pl, idx, rest, "eE")
		}
	case "awk", "gawk":
		for i := 0; i+1 < len(rest); i++ {
			if rest[i].text == "-i" && rest[i+1].text == "inplace" {
				return t.paths(st, operands(rest, "ivfF"), opWrite, true)
			}
		}
	case "dd":
		for _, a := range rest {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				return t.pathArg(st, arg{text: v}, opWrite, true)
			}
		}
	case "curl", "wget":
		return t.paths(st, optionValues(rest, "-o", "--output", "-O", "--output-document"), opWrite, true)
	case "go":
		return t.goCmd(st, rest)
	case "find":
		return t.find(st, rest)
	case "runaway", "runaway.exe":
		return runawayCommand(rest)
	case "npx", "bunx", "pnpx":
		return t.npx(st, rest)
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish":
		return t.subShell(st, pl, idx, rest)
	case "eval":
		var parts []string
		for _, a := range rest {
			parts = append(parts, a.text)
		}
		return t.nested(st, strings.Join(parts, " "))
	case "apply_patch", "applypatch":
		if body, ok := c.stdinText(st.ex); ok {
			return t.patch(body, st.cwd)
		}
	case "python", "node", "nodejs", "deno", "bun", "php", "lua", "osascript", "Rscript":
		return t.interpreter(st, pl, idx, rest, "cerp")
	}
	if f, ok := t.agentCommand(st, name, rest); ok {
		return f
	}
	return nil
}

// extracts reports a tar extraction: -x, --extract, or xf (old style).
func extracts(args []arg) bool {
	for i, a := range args {
		s := a.text
		if s == "--extract" || s == "--get" ||
			strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && strings.Contains(s, "x") ||
			i == 0 && !strings.HasPrefix(s, "-") && strings.Contains(s, "x") {
			return true
		}
	}
	return false
}

// likeliestWord is the first word that is or lies in a protected path, or
// else the first word.
func (t *checker) likeliestWord(st *shellState, words []arg) string {
	for _, w := range words {
		if p := abs(w.text, st.cwd); w.known() && p != "" && t.classify(p) != notProtected {
			return w.text
		}
	}
	return words[0].text
}

// unwrap drops commands that run another command (sudo, env, xargs, time,
// nice, timeout, keywords such as then/do) and their options.
func unwrap(args []arg) ([]arg, bool) {
	xargs := false
	for len(args) > 0 {
		name := filepath.Base(args[0].text)
		values := ""
		switch name {
		case "sudo", "doas":
			values = "ugCDhprtU"
		case "env":
			values = "uCS"
		case "nice":
			values = "n"
		case "timeout":
			values = "sk"
		case "xargs":
			values = "IdEnLPsa"
			xargs = true
		case "ionice":
			values = "cnp"
		case "stdbuf", "command", "builtin", "exec", "nohup", "time", "chronic", "unbuffer",
			"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "busybox":
		default:
			return args, xargs
		}
		args = args[1:]
		for len(args) > 0 {
			a := args[0].text
			switch {
			case a == "--":
				args = args[1:]
			case strings.HasPrefix(a, "-") && len(a) > 1:
				args = args[1:]
				if !strings.HasPrefix(a, "--") && len(a) == 2 && strings.IndexByte(values, a[1]) >= 0 && len(args) > 0 {
					args = args[1:]
				}
				continue
			case name == "env" && strings.Contains(a, "=") && isName(a[:strings.IndexByte(a, '=')]):
				args = args[1:]
				continue
			}
			break
		}
		if name == "timeout" && len(args) > 0 {
			args = args[1:] // the duration
		}
	}
	return args, xargs
}

// operands are the arguments that are not options; values lists the short
// options whose value is the next argument.
func operands(args []arg, values string) []arg {
	var out []arg
	opts := true
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case !opts || a == "-" || !strings.HasPrefix(a, "-"):
			out = append(out, args[i])
		case a == "--":
			opts = false
		case !strings.HasPrefix(a, "--") && len(a) == 2 && strings.IndexByte(values, a[1]) >= 0:
			i++
		}
	}
	return out
}

// optionValues are the values of the named options (-o v, --output=v).
func optionValues(args []arg, names ...string) []arg {
	var out []arg
	for i, a := range args {
		for _, n := range names {
			if a.text == n && i+1 < len(args) {
				out = append(out, args[i+1])
			} else if v, ok := strings.CutPrefix(a.text, n+"="); ok && strings.HasPrefix(n, "--") {
				out = append(out, arg{text: v, glob: a.glob})
			}
		}
	}
	return out
}

// inPlace reports an in-place option: sed -i, perl -pi, yq -i, --in-place.
func inPlace(args []arg) bool {
	for _, a := range args {
		s := a.text
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

func cdTarget(st *shellState, args []arg) string {
	ops := operands(args, "")
	if len(ops) == 0 {
		return st.ex.home
	}
	if !ops[0].known() || ops[0].text == "-" {
		return ""
	}
	return abs(ops[0].text, st.cwd)
}

// pipeWords are the words the earlier commands of a pipeline pass on (what
// echo or find would print), for xargs.
func pipeWords(st *shellState, pl pipeline, idx int) []arg {
	var out []arg
	for _, c := range pl[:idx] {
		for i, w := range c.words {
			if i > 0 {
				out = append(out, st.ex.expand(w))
			}
		}
	}
	return operands(out, "")
}

// paths checks each path argument.
func (t *checker) paths(st *shellState, args []arg, op pathOp, ancestors bool) *finding {
	for _, a := range args {
		if f := t.pathArg(st, a, op, ancestors); f != nil {
			return f
		}
	}
	return nil
}

// copyLike checks cp, mv, install, ln, rsync: the destination is written
// (or, when it is a folder, dest/<name of each source>); mv also removes its
// sources.
func (t *checker) copyLike(st *shellState, name string, args []arg, values string, viaXargs bool) *finding {
	var dest *arg
	if v := optionValues(args, "-t", "--target-directory"); len(v) > 0 {
		dest = &v[0]
	}
	ops := operands(args, values)
	if dest == nil && len(ops) == 1 && name == "ln" {
		// ln -s TARGET: the link is made here, under the target's name.
		if st.cwd == "" || !ops[0].known() {
			return nil
		}
		return t.pathArg(st, arg{text: filepath.Join(st.cwd, filepath.Base(ops[0].text))}, opWrite, false)
	}
	if dest == nil && len(ops) > 0 {
		dest = &ops[len(ops)-1]
		ops = ops[:len(ops)-1]
	}
	if name == "mv" {
		if f := t.paths(st, ops, opDeep, !viaXargs); f != nil {
			return f
		}
	}
	if dest == nil {
		return nil
	}
	if f := t.pathArg(st, *dest, opWrite, false); f != nil {
		return f
	}
	if dest.known() && !dest.glob {
		for _, src := range ops {
			if !src.known() {
				continue
			}
			in := arg{text: strings.TrimRight(dest.text, "/") + "/" + filepath.Base(src.text)}
			if f := t.pathArg(st, in, opWrite, false); f != nil {
				return f
			}
		}
	}
	return nil
}

// pathArg checks one path a command writes (opWrite) or removes, moves or
// locks (opDeep: a folder that holds a protected file counts too, when
// ancestors is set).
func (t *checker) pathArg(st *shellState, a arg, op pathOp, ancestors bool) *finding {
	text := a.text
	if text == "" {
		return nil
	}
	if t.checked++; t.checked > maxPathChecks {
		// Checking more would take the hook past its deadline, which lets
		// the call through: refuse instead.
		return &finding{action: fmt.Sprintf("write to more than %d paths", maxPathChecks), why: "more than runaway can check in time"}
	}
	if i := strings.Index(text, unknownPart); i >= 0 {
		// Only the known folder before the unknown part can be judged.
		j := strings.LastIndexByte(text[:i], '/')
		if j <= 0 {
			return nil
		}
		dir := abs(text[:j], st.cwd)
		if dir == "" {
			return nil
		}
		if k := t.classify(dir); k == ownConfig || k == ownState {
			return &finding{action: k.action(op), path: dir}
		}
		return nil
	}
	p := abs(text, st.cwd)
	if p == "" {
		return nil
	}
	if a.glob {
		return t.globArg(p, op, ancestors)
	}
	if k := t.classify(p); k != notProtected {
		return &finding{action: k.action(op), path: p}
	}
	if op == opDeep && ancestors {
		if k, q := t.ancestorOf(p); k != notProtected {
			return &finding{action: "remove, move or lock a folder (" + p + ") that holds " + k.noun(), path: q}
		}
	}
	return nil
}

// maxPathChecks bounds the path arguments checked in one call; no real
// command comes near it.
const maxPathChecks = 20000

// maxGlob bounds how many matches of a pattern are looked at.
const maxGlob = 256

// globArg checks a pattern: against the protected paths (and, for removals,
// their folders) as a pattern, and against the files it matches now.
func (t *checker) globArg(pattern string, op pathOp, ancestors bool) *finding {
	t.resolve()
	for _, pp := range t.protected {
		for q := pp.path; ; q = filepath.Dir(q) {
			if ok, _ := filepath.Match(pattern, q); ok {
				if q == pp.path {
					return &finding{action: pp.kind.action(op), path: pp.path}
				}
				if op == opDeep && ancestors {
					return &finding{action: "remove, move or lock a folder (" + q + ") that holds " + pp.kind.noun(), path: pp.path}
				}
			}
			if q == filepath.Dir(q) {
				break
			}
		}
	}
	// Patterns inside a protected folder (~/.config/runaway/*.json).
	if k := t.classify(filepath.Dir(pattern[:strings.IndexAny(pattern, "*?[")] + "x")); k == ownConfig || k == ownState {
		return &finding{action: k.action(op), path: pattern}
	}
	if strings.ContainsAny(filepath.Dir(pattern), "*?[") {
		return nil // reading many folders on every call costs too much
	}
	matches, _ := filepath.Glob(pattern)
	if len(matches) > maxGlob {
		matches = matches[:maxGlob]
	}
	for _, m := range matches {
		if k := t.classify(m); k != notProtected {
			return &finding{action: k.action(op), path: m}
		}
	}
	return nil
}

// action says what a command does to a protected file.
func (k fileKind) action(op pathOp) string {
	if op == opDeep {
		return "remove, move or lock " + k.noun()
	}
	if k == ownBinary {
		return "replace runaway's program"
	}
	return "change " + k.noun()
}

// runawayCommand denies the subcommands only the person may run: allow
// (raises a cap), remove and setup (rewire the hooks).
func runawayCommand(args []arg) *finding {
	for _, a := range args {
		if a.text == "-h" || a.text == "--help" {
			return nil
		}
	}
	ops := operands(args, "")
	if len(ops) == 0 {
		return nil
	}
	switch sub := ops[0].text; sub {
	case "allow", "remove", "setup", "uninstall":
		return &finding{action: "run `runaway " + sub + "`", why: "which only the person may run"}
	}
	return nil
}

// goCmd: `go run <runaway's main package> allow|remove|setup`, and go build
// or install -o onto a protected path.
func (t *checker) goCmd(st *shellState, args []arg) *finding {
	if len(args) == 0 {
		return nil
	}
	switch args[0].text {
	case "build", "install":
		return t.paths(st, optionValues(args[1:], "-o"), opWrite, true)
	case "run":
	default:
		return nil
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i].text
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && goValueFlags[strings.TrimLeft(a, "-")] {
				i++
			}
			continue
		}
		pkg, _, _ := strings.Cut(strings.TrimRight(a, "/"), "@")
		if filepath.Base(pkg) == "runaway" || (pkg == "." && filepath.Base(st.cwd) == "runaway") {
			return runawayCommand(rest[i+1:])
		}
		return nil
	}
	return nil
}

// goValueFlags are go run's build flags that take a value.
var goValueFlags = map[string]bool{
	"C": true, "tags": true, "ldflags": true, "gcflags": true, "asmflags": true, "mod": true,
	"modfile": true, "exec": true, "p": true, "o": true, "overlay": true, "pgo": true,
	"pkgdir": true, "toolexec": true, "buildmode": true, "compiler": true, "gccgoflags": true,
	"installsuffix": true, "covermode": true, "coverpkg": true,
}

// npx: `npx @anthropic-ai/claude-code …`, `npx @openai/codex …`.
func (t *checker) npx(st *shellState, args []arg) *finding {
	ops := operands(args, "p")
	if len(ops) == 0 {
		return nil
	}
	pkg, _, _ := strings.Cut(strings.TrimPrefix(ops[0].text, "@"), "@")
	rest := args[len(args)-len(ops)+1:]
	if agent := agentPackage(pkg); agent != "" {
		f, _ := t.agentCommand(st, agent, rest)
		return f
	}
	switch {
	case pkg == "runaway" || strings.HasSuffix(pkg, "/runaway"):
		return runawayCommand(rest)
	}
	return nil
}

// subShell: sh -c SCRIPT, a heredoc or here-string fed to a shell, or a
// pipeline into one (`echo … | sh`).
func (t *checker) subShell(st *shellState, pl pipeline, idx int, args []arg) *finding {
	for i, a := range args {
		if strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "c") {
			for _, s := range args[i+1:] {
				if !strings.HasPrefix(s.text, "-") {
					return t.nested(st, s.text)
				}
			}
			return nil
		}
	}
	if len(operands(args, "o")) > 0 {
		return nil // a script file: not read
	}
	if body, ok := pl[idx].stdinText(st.ex); ok {
		return t.nested(st, body)
	}
	if idx > 0 {
		var parts []string
		for _, a := range pipeWords(st, pl, idx) {
			parts = append(parts, a.text)
		}
		return t.nested(st, strings.Join(parts, " "))
	}
	return nil
}

// interpreter: python -c, perl -e, node -e … and scripts fed on stdin. The
// code is not run or parsed: it is denied when it both names a protected
// path and does something that writes.
func (t *checker) interpreter(st *shellState, pl pipeline, idx int, args []arg, codeFlags string) *finding {
	var code []string
	for i, a := range args {
		s := a.text
		if len(s) >= 2 && s[0] == '-' && s[1] != '-' && strings.IndexByte(codeFlags, s[len(s)-1]) >= 0 && i+1 < len(args) {
			code = append(code, args[i+1].text)
		}
		if s == "--eval" || s == "--print" || s == "eval" {
			if i+1 < len(args) {
				code = append(code, args[i+1].text)
			}
		}
	}
	if body, ok := pl[idx].stdinText(st.ex); ok {
		code = append(code, body)
	}
	if idx > 0 {
		for _, a := range pipeWords(st, pl, idx) {
			code = append(code, a.text)
		}
	}
	for _, c := range code {
		if f := t.code(c); f != nil {
			return f
		}
	}
	return nil
}

// writeHints are what code that writes, removes or runs something looks
// like, in the usual scripting languages (lower case).
var writeHints = []string{
	"write", "unlink", "remove", "rmtree", "rename", "replace(", "truncate", "chmod", "chown",
	"symlink", "shutil", "system(", "subprocess", "spawn", "exec", "dump(", "rmsync", "rmdir",
	"fileutils", "file.delete", "popen", "copy", "move", "'w'", "\"w\"", "'a'", "\"a\"", "'w+'",
	"\"w+\"", "'wb'", "\"wb\"", "'a+'", "\"a+\"", "'x'", "'>", "\">", ">>", "touch(",
}

// code judges a snippet of script code.
func (t *checker) code(src string) *finding {
	t.resolve()
	for _, n := range t.needles {
		if !strings.Contains(src, n) {
			continue
		}
		low := strings.ToLower(src)
		for _, h := range writeHints {
			if strings.Contains(low, h) {
				return &finding{action: "run code that writes near " + n, why: "a file that keeps runaway's guard on"}
			}
		}
		return nil
	}
	return nil
}

// find: -delete, or -exec of a command that removes or writes, on a start
// folder that is or holds a protected path.
func (t *checker) find(st *shellState, args []arg) *finding {
	var starts []arg
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i].text, "-") && args[i].text != "(" && args[i].text != "!" {
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []arg{{text: "."}}
	}
	mutates, filtered := false, false
	var names []string
	for ; i < len(args); i++ {
		switch args[i].text {
		case "-delete":
			mutates = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(args) {
				switch filepath.Base(args[i+1].text) {
				case "rm", "mv", "unlink", "shred", "truncate", "chmod", "chown", "tee", "sed", "perl", "cp", "ln", "sh", "bash":
					mutates = true
				}
			}
		case "-name", "-iname":
			if i+1 < len(args) {
				names = append(names, args[i+1].text)
			}
			filtered = true
		case "-path", "-ipath", "-wholename", "-regex", "-iregex":
			filtered = true
			names = append(names, "*") // cannot tell: as if it matched
		}
	}
	if !mutates {
		return nil
	}
	for _, s := range starts {
		p := abs(s.text, st.cwd)
		if p == "" || !s.known() {
			continue
		}
		if k := t.classify(p); k != notProtected {
			return &finding{action: k.action(opDeep), path: p}
		}
		for _, pp := range t.inside(p) {
			if !filtered || nameMatchesBelow(names, p, pp.path) {
				return &finding{action: "remove or change files under " + p + ", among them " + pp.kind.noun(), path: pp.path}
			}
		}
	}
	return nil
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
