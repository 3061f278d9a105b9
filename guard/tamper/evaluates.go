package tamper

import (
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where bash evaluates text that reads like data. In arithmetic (( … )),
// $(( … )), let, [[ … -eq … ]], a subscript, a slice) a variable's value
// is itself an arithmetic expression, and a subscript in it runs its
// command substitutions: x='a[$(cmd)]'; (( x )) runs cmd. So does the
// name printf -v, unset or [[ -v ]] are given, the target of ${!x} and
// of a name reference (declare -n), and ${x@P}. Some variables are run:
// PS4 when tracing, PROMPT_COMMAND, BASH_ENV and ENV (a file) when the
// next bash starts, the editors, pagers and ssh commands git and others
// start through a shell.
//
// Where the text is known, the reader runs it as the code it is. Where it
// is not (a command's output, a value from outside the line), the call is
// opaque: what runs cannot be known, and it is denied when it names
// runaway's files, an agent's settings or an agent (see touchesProtected);
// otherwise it passes, and the tripwire watches what it changes.

// maxEvalDepth bounds how far values naming values are followed.
const maxEvalDepth = 8

// arith judges an arithmetic expression bash evaluates.
func (sh *shell) arith(e syntax.ArithmExpr) {
	if e == nil || sh.t.done() {
		return
	}
	switch x := e.(type) {
	case *syntax.BinaryArithm:
		sh.arith(x.X)
		sh.arith(x.Y)
	case *syntax.UnaryArithm:
		sh.arith(x.X)
	case *syntax.ParenArithm:
		sh.arith(x.X)
	case *syntax.Word:
		sh.arithWord(x)
	}
}

// arithWord: a word in arithmetic is expanded, and what it holds is
// evaluated as arithmetic in turn (names by their values).
func (sh *shell) arithWord(w *syntax.Word) {
	if lit := w.Lit(); lit != "" {
		sh.arithText(lit, 0)
		return
	}
	sh.arithText(sh.literal(w), 0) // literal runs its substitutions
}

// arithText judges text bash evaluates as arithmetic: its substitutions
// run, and each name in it is evaluated by its value.
func (sh *shell) arithText(s string, depth int) {
	if sh.t.done() {
		return
	}
	if depth > maxEvalDepth {
		sh.opaque("arithmetic over values that name values too deep")
		return
	}
	if !known(s) {
		sh.opaque("bash evaluates a value as code in arithmetic, and runaway cannot know this one (compare numbers with [ \"$n\" -gt 0 ], which does not)")
		return
	}
	if strings.ContainsAny(s, "$`") {
		sh.docText(s)
	}
	for _, name := range arithNames(s) {
		v := sh.env.Get(name)
		if !v.IsSet() {
			continue
		}
		sh.arithText(v.String(), depth+1)
	}
}

// arithNames are the variable names in an arithmetic text (not the
// letters of a number such as 0x1f or 16#ff).
func arithNames(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			for i < len(s) && (isNameByte(s[i]) || s[i] == '#' || s[i] == '@') {
				i++
			}
		case isNameByte(c):
			j := i
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			i++
		}
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// docText runs the substitutions of a text bash expands as a word (a
// value with a subscript, a prompt string): $(…), `…`, and the
// arithmetic and parameters in it.
func (sh *shell) docText(s string) {
	if sh.depth > maxShellDepth {
		sh.opaque("values that expand values nested too deep")
		return
	}
	sh.depth++
	defer func() { sh.depth-- }()
	w, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Document(strings.NewReader(s))
	if err != nil {
		sh.opaque("a value bash expands that runaway cannot parse")
		return
	}
	sh.document(w)
}

// subscripted judges a name bash is handed as text (printf -v NAME,
// unset NAME, [[ -v NAME ]], a name reference's target): a subscript in it
// is arithmetic.
func (sh *shell) subscripted(name string) {
	if !known(name) {
		sh.opaque("bash evaluates the subscript of a name it is given, and runaway cannot know this one")
		return
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		sh.arithText(strings.TrimSuffix(name[i+1:], "]"), 0)
	}
}

// evalParts judges the parts of a word bash evaluates while expanding it,
// before the word is expanded: arithmetic, subscripts and slices, ${!x},
// ${x@P}.
func (sh *shell) evalParts(w *syntax.Word) {
	if w == nil {
		return
	}
	syntax.Walk(w, func(n syntax.Node) bool {
		if sh.t.done() {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // run by expansion itself
		case *syntax.ArithmExp:
			sh.arith(x.X)
			return false
		case *syntax.ParamExp:
			sh.paramExp(x)
		}
		return true
	})
}

// paramExp: the parts of ${…} bash evaluates.
func (sh *shell) paramExp(pe *syntax.ParamExp) {
	if pe.Index != nil {
		sh.arith(pe.Index)
	}
	if pe.Slice != nil {
		sh.arith(pe.Slice.Offset)
		sh.arith(pe.Slice.Length)
	}
	if pe.Param == nil {
		return
	}
	name := pe.Param.Value
	if pe.Excl && pe.Index == nil && pe.Names == 0 {
		// ${!x}: x's value names the variable, subscript and all.
		sh.subscripted(sh.env.Get(name).String())
	}
	if pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps && pe.Exp.Word != nil && pe.Exp.Word.Lit() == "P" {
		v := sh.env.Get(name)
		if s := v.String(); !known(s) {
			sh.opaque("${" + name + "@P} expands a value runaway cannot know as a prompt, which runs its substitutions")
		} else {
			sh.docText(s)
		}
	}
}

// testExpr judges [[ … ]]: the operands of -eq, -ne, -lt, -le, -gt, -ge
// are arithmetic, -v's is a name; everything else is expanded as usual.
func (sh *shell) testExpr(e syntax.TestExpr) {
	switch x := e.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); ok {
					sh.arithWord(w)
				} else {
					sh.testExpr(side)
				}
			}
			return
		}
		sh.testExpr(x.X)
		sh.testExpr(x.Y)
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar) {
			sh.subscripted(sh.literal(w))
			return
		}
		sh.testExpr(x.X)
	case *syntax.ParenTest:
		sh.testExpr(x.X)
	case *syntax.Word:
		sh.literal(x)
	}
}

// evaluated says how something runs a variable's value ("" when
// nothing does): "prompt" is expanded as a prompt (its substitutions run),
// "script" is run as a command line, "file" is a script read at the next
// start. A function, not a map: the hook builds nothing at start.
func evaluated(name string) string {
	switch name {
	case "PS0", "PS1", "PS2", "PS4": // bash(1) PROMPTING; PS4 with set -x
		return "prompt"
	case "BASH_ENV", "ENV": // bash(1) INVOCATION: the next non-interactive (ENV: posix) shell
		return "file"
	case "PROMPT_COMMAND",
		// git(1), git-var(1): run through a shell; less(1) LESSOPEN (|cmd).
		"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF",
		"GIT_ASKPASS", "SSH_ASKPASS", "GIT_SSH", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN":
		return "script"
	}
	return ""
}

// assigned judges a value given to a variable something runs.
func (sh *shell) assigned(name, value string) {
	how := evaluated(name)
	if how == "" || value == "" || sh.t.done() {
		return
	}
	if !known(value) {
		sh.opaque(name + " is run later (" + how + "), and runaway cannot know its value here")
		return
	}
	switch how {
	case "prompt":
		sh.sub().docText(value)
	case "script":
		sh.sub().script(strings.TrimLeft(value, "|"))
	case "file":
		sub := sh.sub()
		if f := sub.fileText(value); f != nil {
			sub.script(f.text)
		} else if p := sh.abs(value); p == "" || !known(p) {
			sh.opaque(name + " names a script the next shell runs, and runaway cannot know which")
		} else if _, err := os.Stat(filepath.Clean(p)); err == nil {
			sh.opaque(name + " names a script the next shell runs, and runaway cannot read it")
		}
	}
}

// opaque notes what bash would run that the reader cannot know: the call
// is denied when it names anything protected (see check).
func (sh *shell) opaque(why string) {
	t := sh.t
	if t.opaqueWhy == "" {
		t.opaqueWhy = why
	}
	// What the line set up is part of what it names (a=run b=away).
	for k, v := range sh.env.vars {
		if k == "PWD" || k == "OLDPWD" {
			continue // the call's folder: a project may be called anything
		}
		if s := v.String(); known(s) && len(t.opaqueVals) < 1<<16 {
			t.opaqueVals = append(t.opaqueVals, s)
		}
	}
}

// runsAgent reports a text that runs an agent's program as a command
// (claude -p, …/codex exec), not a word that only holds its name
// (CLAUDE.md).
func runsAgent(low string) bool {
	for _, a := range agents {
		for _, p := range a.facts().Programs {
			for i := 0; ; {
				j := strings.Index(low[i:], p)
				if j < 0 {
					break
				}
				j += i
				end := j + len(p)
				before := j == 0 || strings.IndexByte(" \t\n;&|(/", low[j-1]) >= 0
				after := end == len(low) || strings.IndexByte(" \t\n;&|)", low[end]) >= 0
				if before && after {
					return true
				}
				i = end
			}
		}
	}
	return false
}

// agentFolders are the base names of the agents' config folders
// (.claude, .codex, .gemini, opencode).
func agentFolders() []string {
	var out []string
	for _, a := range agents {
		c := a.facts().Config
		if n := filepath.Base(filepath.Join(c.Default, c.Sub)); n != "." && n != "" {
			out = append(out, strings.ToLower(n))
		}
	}
	return out
}

// touchesProtected reports a call whose text (quotes and backslashes
// taken out, with the values its line set up) names runaway, a protected
// path, an agent's settings or config folder, or runs an agent.
func (t *checker) touchesProtected(c Call) bool {
	var b strings.Builder
	b.WriteString(strings.NewReplacer(`\"`, "", `'`, "", `"`, "", `\`, "").Replace(string(c.Input)))
	for _, v := range t.opaqueVals {
		b.WriteString("\n")
		b.WriteString(v)
	}
	text := b.String()
	low := strings.ToLower(text)
	for _, n := range append([]string{"runaway", "settings.json", "hooks.json", "/proc/", "xdg_"}, agentFolders()...) {
		if strings.Contains(low, n) {
			return true
		}
	}
	if runsAgent(low) {
		return true
	}
	t.resolve()
	for _, n := range t.needles {
		if strings.Contains(text, n) {
			return true
		}
	}
	return false
}
