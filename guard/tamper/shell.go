package tamper

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// The wire reads a command line the way the shell would run it: parsed by
// mvdan.cc/sh (the parser behind shfmt) and walked statement by statement,
// with the shell's own expansion (word splitting and IFS, parameter
// operators, brace expansion, $'…', globbing as bash does it: no dotfiles).
// What the line sets up is followed: variables, cd (scoped to subshells),
// functions and aliases defined in the line, what echo and printf feed a
// pipe. What it cannot know (a command's output, $1 outside a function,
// an unset variable) expands to unknownPart, which never matches a
// protected path by itself.

// unknownPart stands for a part of a word the wire could not resolve: a
// path holding it matches only through the known folder before it.
const unknownPart = "\x00"

// maxShellDepth bounds how deep bash -c, eval, functions, $(…) and
// heredoc scripts are followed.
const maxShellDepth = 8

// maxLoopItems bounds the items of a for loop, and the lines of a
// while-read loop, that are each followed through the loop's body.
const maxLoopItems = 64

// known reports a word without unknown parts.
func known(s string) bool { return !strings.Contains(s, unknownPart) }

// shell is what a command line has set up so far.
type shell struct {
	t       *checker
	cwd     string // "" once a cd went somewhere unknown
	oldpwd  string
	env     *shellEnv
	funcs   map[string]*syntax.Stmt
	aliases map[string][]string
	globs   globOpts
	depth   int
	probe   func(args []string) // tests: the words of each command run
}

// newShell starts a shell in cwd with the hook's environment.
func (t *checker) newShell(cwd string) *shell {
	sh := &shell{
		t:       t,
		cwd:     cwd,
		env:     &shellEnv{t: t, vars: map[string]expand.Variable{}},
		funcs:   map[string]*syntax.Stmt{},
		aliases: map[string][]string{},
	}
	// $PWD is the call's folder (globbing starts there), not the hook's.
	sh.env.setString("PWD", orUnknown(cwd))
	return sh
}

// sub is a subshell: it starts with everything this shell has, and what it
// changes stays in it.
func (sh *shell) sub() *shell {
	c := *sh
	c.env = sh.env.copy()
	c.funcs = make(map[string]*syntax.Stmt, len(sh.funcs))
	for k, v := range sh.funcs {
		c.funcs[k] = v
	}
	c.aliases = make(map[string][]string, len(sh.aliases))
	for k, v := range sh.aliases {
		c.aliases[k] = v
	}
	return &c
}

// shell checks a command line run in cwd.
func (t *checker) shell(src, cwd string) {
	t.newShell(cwd).script(src)
}

// script parses and runs src in this shell. A line the parser refuses is
// judged by its words: bash would run what comes before the error.
func (sh *shell) script(src string) {
	if sh.t.done() {
		return
	}
	if sh.depth > maxShellDepth {
		sh.t.unsure("scripts nested too deep")
		return
	}
	sh.depth++
	defer func() { sh.depth-- }()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		sh.unparsed(src)
		return
	}
	sh.stmts(f.Stmts, nil)
}

// unparsed judges a line the parser refuses: each line that parses on its
// own is run, the rest is judged as words (a command and its arguments).
func (sh *shell) unparsed(src string) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	for line := range strings.Lines(src) {
		if f, err := p.Parse(strings.NewReader(line), ""); err == nil {
			sh.stmts(f.Stmts, nil)
			continue
		}
		if words := strings.Fields(line); len(words) > 0 {
			// zsh's glob qualifiers (dir(N), *(.)) are not part of the path.
			for i, w := range words {
				if j := strings.LastIndexByte(w, '('); j > 0 && strings.HasSuffix(w, ")") {
					words[i] = w[:j]
				}
			}
			sh.call(words, nil, nil)
			// What else the line does is not known: denied when it names
			// anything protected.
			sh.t.unsure("a line runaway cannot parse")
		}
		if sh.t.done() {
			return
		}
	}
}

// stdin is what a command reads: text when the line says it (a heredoc,
// a here-string, echo into a pipe); words stand in for output that is
// not known (the arguments of the command that writes it).
type stdin struct {
	text  string
	exact bool
	from  []string // the command whose words stand in, when not exact
}

func (sh *shell) stmts(list []*syntax.Stmt, in *stdin) {
	for _, s := range list {
		if sh.t.done() {
			return
		}
		sh.stmt(s, in)
	}
}

// stmt runs one statement; it returns what it prints, when that is known.
func (sh *shell) stmt(s *syntax.Stmt, in *stdin) *stdin {
	if sh.t.done() || s == nil {
		return nil
	}
	var writes []*syntax.Redirect
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				in = &stdin{text: sh.document(r.Hdoc), exact: true}
			}
		case syntax.WordHdoc:
			in = &stdin{text: sh.document(r.Word) + "\n", exact: true}
		case syntax.RdrIn:
			// < file: what it holds, when it is small (xargs rm < list).
			in = nil
			if fs := sh.fields(r.Word); len(fs) == 1 && (r.N == nil || r.N.Value == "0") {
				in = sh.fileText(fs[0])
			}
		default:
			writes = append(writes, r)
		}
	}
	run := sh
	if s.Background || s.Coprocess {
		run = sh.sub()
	}
	if s.Cmd == nil && in != nil {
		return in // $(< file)
	}
	out := run.command(s.Cmd, in)
	for _, r := range writes {
		target := sh.redirTarget(r)
		if !writesTo(r.Op, target) {
			continue
		}
		toFile := r.N == nil || r.N.Value == "1"
		if toFile && out != nil && out.exact {
			sh.writeKnown(target, out.text, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
		} else {
			sh.pathArg(target, opWrite, true)
		}
		if toFile {
			out = nil
		}
	}
	return out
}

// writeKnown judges a redirection whose content is known (echo, printf, a
// heredoc): a settings file is judged by what it would hold, like a Write.
func (sh *shell) writeKnown(target, text string, appendTo bool) {
	p := sh.abs(target)
	if p == "" || !known(p) {
		sh.pathArg(target, opWrite, true)
		return
	}
	sh.t.remember(p, text)
	if sh.t.classify(p) == notProtected && sh.t.laterKind(p) == "" {
		sh.pathArg(target, opWrite, true) // a folder that holds one, a glob…
		return
	}
	sh.t.deny(sh.t.writeFile(p, func(old string, exists bool) (string, bool) {
		if appendTo {
			return old + text, true
		}
		return text, true
	}, nil))
}

// redirTarget is the file a redirection names.
func (sh *shell) redirTarget(r *syntax.Redirect) string {
	if r.Word == nil {
		return ""
	}
	fs := sh.fields(r.Word)
	if len(fs) == 0 {
		return ""
	}
	return fs[0]
}

// writesTo reports a redirection that writes to its target file: `>&2`
// duplicates a descriptor, `>& file` writes the file.
func writesTo(op syntax.RedirOperator, target string) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob,
		syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		return true
	case syntax.DplOut:
		return target != "-" && !isDigits(target)
	}
	return false
}

func (sh *shell) command(cmd syntax.Command, in *stdin) *stdin {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return sh.callExpr(c, in)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			out := sh.sub().stmt(c.X, in)
			return sh.sub().stmt(c.Y, out)
		}
		sh.stmt(c.X, in)
		return sh.stmt(c.Y, in)
	case *syntax.Subshell:
		return sh.sub().group(c.Stmts, in)
	case *syntax.Block:
		return sh.group(c.Stmts, in)
	case *syntax.IfClause:
		// Every branch may run: each is followed, one after the other.
		for ic := c; ic != nil; ic = ic.Else {
			sh.stmts(ic.Cond, in)
			sh.stmts(ic.Then, in)
		}
	case *syntax.WhileClause:
		if lines, name := sh.readLoop(c, in); lines != nil {
			for _, l := range lines {
				sh.env.setString(name, l)
				sh.stmts(c.Do, nil)
			}
			return nil
		}
		sh.stmts(c.Cond, in)
		sh.stmts(c.Do, in)
	case *syntax.ForClause:
		sh.forClause(c, in)
	case *syntax.CaseClause:
		sh.fields(c.Word)
		for _, item := range c.Items {
			sh.stmts(item.Stmts, in)
		}
	case *syntax.FuncDecl:
		if c.Name != nil {
			sh.funcs[c.Name.Value] = c.Body
		}
	case *syntax.DeclClause:
		sh.declare(c)
	case *syntax.TimeClause:
		return sh.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		sh.sub().stmt(c.Stmt, in)
	case *syntax.ArithmCmd:
		sh.arith(c.X)
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			sh.arith(e)
		}
	case *syntax.TestClause:
		sh.testExpr(c.X)
	}
	return nil
}

// group runs ( … ) or { … }: what it prints is what its commands print.
func (sh *shell) group(list []*syntax.Stmt, in *stdin) *stdin {
	var text strings.Builder
	exact := true
	for _, s := range list {
		if sh.t.done() {
			return nil
		}
		out := sh.stmt(s, in)
		if out == nil {
			exact = false
			continue
		}
		text.WriteString(out.text)
		if !strings.HasSuffix(out.text, "\n") {
			text.WriteByte('\n')
		}
		exact = exact && out.exact
	}
	return &stdin{text: text.String(), exact: exact}
}

// readLoop: `… | while read [-r] NAME; do …; done` with a known input: the
// lines the body runs with.
func (sh *shell) readLoop(c *syntax.WhileClause, in *stdin) ([]string, string) {
	if in == nil || c.Until || len(c.Cond) != 1 {
		return nil, ""
	}
	call, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || call.Args[0].Lit() != "read" {
		return nil, ""
	}
	name := call.Args[len(call.Args)-1].Lit()
	if !isName(name) {
		return nil, ""
	}
	var lines []string
	for l := range strings.Lines(in.text) {
		if l = strings.TrimSpace(l); l != "" && len(lines) < maxLoopItems {
			lines = append(lines, l)
		}
	}
	if lines == nil {
		lines = []string{}
	}
	return lines, name
}

func (sh *shell) forClause(c *syntax.ForClause, in *stdin) {
	it, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		if cs, ok := c.Loop.(*syntax.CStyleLoop); ok {
			sh.arith(cs.Init)
			sh.arith(cs.Cond)
			sh.arith(cs.Post)
		}
		sh.stmts(c.Do, in)
		return
	}
	var items []string
	if it.InPos.IsValid() {
		items = sh.fields(it.Items...)
	} else {
		items = sh.env.params // for NAME; do: the positional parameters
	}
	if len(items) == 0 {
		items = []string{unknownPart}
	}
	items = sh.likeliestFirst(items)
	for i, item := range items {
		if i == maxLoopItems || sh.t.done() {
			break
		}
		sh.env.setString(it.Name.Value, item)
		sh.stmts(c.Do, in)
	}
}

// declare: export, declare, local, readonly, typeset.
func (sh *shell) declare(c *syntax.DeclClause) {
	exported := c.Variant.Value == "export"
	var nameref, integer bool
	for _, a := range c.Args {
		if a.Naked {
			if a.Value != nil {
				for _, f := range sh.fields(a.Value) {
					exported = exported || f == "-x"
					if strings.HasPrefix(f, "-") {
						nameref = nameref || strings.ContainsRune(f, 'n')
						integer = integer || strings.ContainsRune(f, 'i')
					}
				}
			}
			if a.Name != nil && exported {
				v := sh.env.Get(a.Name.Value)
				v.Exported = true
				sh.env.vars[a.Name.Value] = v
			}
			continue
		}
		sh.assign(a)
		if a.Name != nil && a.Value != nil && (nameref || integer) {
			v := sh.env.Get(a.Name.Value).String()
			if nameref {
				// Assignments to the name change another variable: not followed.
				sh.subscripted(v)
				sh.opaque("a name reference (declare -n " + a.Name.Value + "=…) makes its assignments change another variable, which runaway does not follow")
			} else {
				sh.arithText(v, 0) // declare -i: the value is arithmetic
			}
		}
		if exported && a.Name != nil {
			v := sh.env.vars[a.Name.Value]
			v.Exported = true
			sh.env.vars[a.Name.Value] = v
		}
	}
}

// assign sets a variable for the rest of the line.
func (sh *shell) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	switch {
	case a.Array != nil:
		var list []string
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				list = append(list, sh.fields(e.Value)...)
			}
		}
		sh.env.vars[name] = expand.Variable{Set: true, Kind: expand.Indexed, List: list}
	case a.Index != nil:
		// an element of an array: not followed, but its subscript runs
		sh.arith(a.Index)
		if a.Value != nil {
			sh.literal(a.Value)
		}
		sh.env.setString(name, unknownPart)
	default:
		v := ""
		if a.Value != nil {
			v = sh.literal(a.Value)
		}
		if a.Append {
			v = sh.env.Get(name).String() + v
		}
		sh.env.setString(name, v)
		sh.assigned(name, v)
	}
}

// callExpr runs a simple command.
func (sh *shell) callExpr(c *syntax.CallExpr, in *stdin) *stdin {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			sh.assign(a)
		}
		return nil
	}
	// FOO=bar cmd: FOO is set for cmd only.
	var cmdEnv map[string]string
	for _, a := range c.Assigns {
		if a.Name != nil && a.Value != nil {
			if cmdEnv == nil {
				cmdEnv = map[string]string{}
			}
			cmdEnv[a.Name.Value] = sh.literal(a.Value)
			sh.assigned(a.Name.Value, cmdEnv[a.Name.Value])
		}
	}
	return sh.call(sh.fields(c.Args...), cmdEnv, in)
}

// call runs a command given as its expanded words.
func (sh *shell) call(args []string, cmdEnv map[string]string, in *stdin) *stdin {
	if len(args) == 0 || sh.t.done() {
		return nil
	}
	if alias, ok := sh.aliases[args[0]]; ok {
		args = append(append([]string{}, alias...), args[1:]...)
	}
	if body, ok := sh.funcs[args[0]]; ok {
		if sh.depth > maxShellDepth {
			sh.t.unsure("functions nested too deep")
			return nil
		}
		sh.depth++
		saved := sh.env.params
		sh.env.params = args[1:]
		out := sh.stmt(body, in)
		sh.env.params = saved
		sh.depth--
		return out
	}
	if sh.probe != nil {
		sh.probe(args)
	}
	if out := sh.run(args, cmdEnv, in); out != nil {
		return out
	}
	// What it prints is not known: its words stand in (find's folders for
	// xargs).
	return &stdin{text: strings.Join(args[1:], " "), from: args}
}

// fields expands words as the shell does for a command's arguments.
func (sh *shell) fields(words ...*syntax.Word) []string {
	var out []string
	for _, w := range words {
		sh.evalParts(w)
		sh.unmatchable(w)
		fs, err := expand.Fields(sh.config(), w)
		if err != nil {
			// What cannot be expanded is unknown.
			fs = []string{unknownPart}
		}
		for i := range fs {
			fs[i] = unknownOf(fs[i])
		}
		out = append(out, fs...)
	}
	return out
}

// literal expands a word as the shell does an assignment's value: no
// splitting, no globbing.
func (sh *shell) literal(w *syntax.Word) string {
	sh.evalParts(w)
	s, err := expand.Literal(sh.config(), w)
	if err != nil {
		return unknownPart
	}
	s = unknownOf(s)
	// The shell expands ~ at the start of an assignment's value too.
	if len(w.Parts) > 0 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			if home := sh.t.homeDir(); home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
				s = home + s[1:]
			}
		}
	}
	return s
}

// document expands a heredoc's body (nothing when its delimiter is quoted:
// the parser leaves it literal).
func (sh *shell) document(w *syntax.Word) string {
	sh.evalParts(w)
	s, err := expand.Document(sh.config(), w)
	if err != nil {
		return unknownPart
	}
	return unknownOf(s)
}

func (sh *shell) config() *expand.Config {
	return &expand.Config{
		Env:       sh.env,
		CmdSubst:  sh.cmdSubst,
		ProcSubst: sh.procSubst,
		ReadDir2:  sh.t.readDir,
		// Globs match as the line's shopt says: dotglob (or GLOBIGNORE
		// set) matches dotfiles, nocaseglob ignores case. extglob's
		// patterns are matched always: where it is off, bash refuses them.
		GlobStar:   sh.globs.star,
		DotGlob:    sh.globs.dot || sh.env.Get("GLOBIGNORE").String() != "",
		NoCaseGlob: sh.globs.noCase,
		NullGlob:   sh.globs.null,
		ExtGlob:    true,
	}
}

// unmatchable: a glob the reader cannot match as bash would (extglob's
// !(…), which matches everything but a pattern), in a folder that holds
// protected files, leaves the call unjudged: it is denied.
func (sh *shell) unmatchable(w *syntax.Word) {
	var prefix strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if i := strings.IndexAny(x.Value, "*?["); i >= 0 {
				return // an ordinary glob: matched by expansion
			}
			prefix.WriteString(x.Value)
			continue
		case *syntax.ExtGlob:
			if x.Op.String() != "!(" {
				return
			}
			dir := sh.abs(filepath.Dir(prefix.String() + "x")) // abs reads a leading ~
			if dir != "" && known(dir) && (sh.t.classify(dir) != notProtected || len(sh.t.inside(dir)) > 0) {
				sh.t.unsure("a glob (" + x.Op.String() + x.Pattern.Value + ")) that matches everything but a pattern, in a folder that holds runaway's files or an agent's settings: name the files instead")
			}
			return
		default:
			// Quotes and expansions before the glob: judged when expanded.
			return
		}
	}
}

// globOpts are the shell options that change what a glob matches.
type globOpts struct{ star, dot, noCase, null bool }

// shopt sets or unsets the glob options it names.
func (sh *shell) shopt(args []string) {
	on := true
	for _, a := range args {
		switch a {
		case "-s":
			on = true
		case "-u":
			on = false
		case "globstar":
			sh.globs.star = on
		case "dotglob":
			sh.globs.dot = on
		case "nocaseglob":
			sh.globs.noCase = on
		case "nullglob":
			sh.globs.null = on
		}
	}
}

// cmdSubst runs $(…) in a subshell; what it prints is known only for echo
// and printf of known words.
func (sh *shell) cmdSubst(w io.Writer, cs *syntax.CmdSubst) error {
	sub := sh.sub()
	var out *stdin
	for _, s := range cs.Stmts {
		out = sub.stmt(s, nil)
	}
	if out != nil && out.exact && len(cs.Stmts) == 1 {
		_, err := io.WriteString(w, strings.TrimRight(out.text, "\n"))
		return err
	}
	_, err := io.WriteString(w, unknownOutput)
	return err
}

// unknownOutput stands for a command's output the wire cannot know while
// expansion runs: expand drops NUL bytes from $(…) as bash does, so
// unknownPart would vanish there. unknownOf turns it back.
const unknownOutput = "\x01"

// unknownOf is an expanded word with unknownOutput made unknownPart.
func unknownOf(s string) string { return strings.ReplaceAll(s, unknownOutput, unknownPart) }

// procSubst runs <(…) and >(…) in a subshell: the word is a pipe's path.
func (sh *shell) procSubst(ps *syntax.ProcSubst) (string, error) {
	sub := sh.sub()
	var out *stdin
	for _, s := range ps.Stmts {
		out = sub.stmt(s, nil)
	}
	sh.t.procs++
	p := fmt.Sprintf("/dev/fd/%d", 62+sh.t.procs)
	if out != nil && out.exact && ps.Op == syntax.CmdIn {
		// source <(echo …), bash <(…): what it prints is read as a file.
		sh.t.remember(p, out.text)
	}
	return p, nil
}

// shellEnv is the variables a command line sees: the hook's environment,
// the defaults of the XDG and agent folders, and what the line assigned.
type shellEnv struct {
	t      *checker
	vars   map[string]expand.Variable
	params []string // $1…; nil outside a function
}

func (e *shellEnv) copy() *shellEnv {
	c := *e
	c.vars = make(map[string]expand.Variable, len(e.vars))
	for k, v := range e.vars {
		c.vars[k] = v
	}
	return &c
}

func (e *shellEnv) setString(name, v string) {
	e.vars[name] = expand.Variable{Set: true, Kind: expand.String, Str: v}
}

func str(s string) expand.Variable { return expand.Variable{Set: true, Kind: expand.String, Str: s} }

// Get implements expand.Environ.
func (e *shellEnv) Get(name string) expand.Variable {
	if v, ok := e.vars[name]; ok {
		return v
	}
	switch name {
	case "IFS":
		return expand.Variable{} // unset: the default
	case "HOME":
		if h := e.t.homeDir(); h != "" {
			return str(h)
		}
	case "#":
		return str(strconv.Itoa(len(e.params)))
	case "@", "*":
		return expand.Variable{Set: true, Kind: expand.Indexed, List: e.params}
	}
	if n, err := strconv.Atoi(name); err == nil {
		if n >= 1 && n <= len(e.params) {
			return str(e.params[n-1])
		}
		return str(unknownPart)
	}
	if !isName(name) {
		return str(unknownPart) // $$, $?, ~user ("HOME user")…
	}
	if v := e.t.getenv(name); v != "" {
		return str(v)
	}
	// What the agent's shell most likely sees: the XDG and agent defaults.
	if d, ok := envDefault(name); ok {
		if h := e.t.homeDir(); h != "" {
			return str(filepath.Join(h, d))
		}
	}
	// Unset for the hook, so most likely for the agent's shell too (which
	// ${X:-default} relies on).
	return expand.Variable{}
}

// Set implements expand.WriteEnviron (${x:=y} assigns).
func (e *shellEnv) Set(name string, vr expand.Variable) error {
	if vr.Kind == expand.KeepValue {
		return nil
	}
	e.vars[name] = vr
	return nil
}

// Each implements expand.Environ; only the line's own variables are listed.
func (e *shellEnv) Each(f func(string, expand.Variable) bool) {
	for k, v := range e.vars {
		if !f(k, v) {
			return
		}
	}
}

// readDir lists a folder for globbing, once per call and within the wire's
// time budget.
func (t *checker) readDir(dir string) ([]fs.DirEntry, error) {
	if t.done() {
		return nil, errBudget
	}
	if es, ok := t.dirs[dir]; ok {
		return es, nil
	}
	if t.dirs == nil {
		t.dirs = map[string][]fs.DirEntry{}
	}
	es, err := os.ReadDir(filepath.Clean(dir))
	if len(es) > maxDirEntries {
		es = es[:maxDirEntries]
	}
	t.dirs[dir] = es
	return es, err
}

// maxDirEntries bounds what globbing sees of one folder.
const maxDirEntries = 20000

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// likeliestFirst puts the items that are or lie in a protected path first,
// so that a long loop is followed where it matters.
func (sh *shell) likeliestFirst(items []string) []string {
	var first, rest []string
	for _, it := range items {
		if p := sh.abs(it); p != "" && known(p) && sh.t.classify(p) != notProtected {
			first = append(first, it)
		} else {
			rest = append(rest, it)
		}
	}
	return append(first, rest...)
}
