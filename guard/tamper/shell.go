package tamper

import (
	"strings"
)

// A small shell reader for the tamper wire: enough of POSIX sh and bash to
// tell which commands a command line runs and which files it writes. It is
// not a shell: what it cannot follow (functions, loops' variables, aliases,
// arithmetic) stays "unknown", and unknown never matches a protected path.
// It is hand-written rather than a full parser to keep the hook small and
// fast; it never panics and is bounded by its input's length.

// unknownPart stands for a part of a word the reader could not resolve
// ($(…), an unset variable, $1…): a path holding it matches only through
// the known prefix before it.
const unknownPart = "\x00"

// maxShellDepth bounds how deep bash -c, eval, $(…) and heredoc scripts are
// followed.
const maxShellDepth = 6

// wordPart is one piece of a shell word before expansion.
type wordPart struct {
	text   string
	kind   partKind
	quoted bool // inside '…' or "…": no tilde or glob
}

type partKind uint8

const (
	partLit     partKind = iota
	partVar              // $NAME or ${NAME}
	partUnknown          // $(…), `…`, $1, ${x:-y}, …
)

// shellWord is one word of a command line, as parts to expand later (a
// variable assigned earlier in the line changes what later words mean).
type shellWord struct {
	parts []wordPart
}

// literal is the word's text when it has no expansions (for operators such
// as `--` and option names); ok is false otherwise.
func (w shellWord) literal() (string, bool) {
	var b strings.Builder
	for _, p := range w.parts {
		if p.kind != partLit {
			return "", false
		}
		b.WriteString(p.text)
	}
	return b.String(), true
}

// redirect is one redirection of a simple command.
type redirect struct {
	op     string // ">", ">>", "<", "<<", "<<<", "<>", "&>", ">&", …
	target shellWord
	body   string // heredoc body (op "<<")
}

// writes reports whether the redirection writes to its target file.
func (r redirect) writes() bool {
	switch r.op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		// `>&2` duplicates a descriptor; `>& file` writes the file.
		s, ok := r.target.literal()
		return !ok || !isDigits(s) && s != "-"
	}
	return false
}

// simpleCmd is one command of a pipeline: its words and redirections.
type simpleCmd struct {
	words  []shellWord
	redirs []redirect
}

// stdinText is what a heredoc or here-string feeds the command, if any.
func (c *simpleCmd) stdinText(ex *expander) (string, bool) {
	for _, r := range c.redirs {
		switch r.op {
		case "<<", "<<-":
			return r.body, true
		case "<<<":
			return ex.text(r.target), true
		}
	}
	return "", false
}

// pipeline is commands joined by |; a script is pipelines in order.
type pipeline []*simpleCmd

type shellScript struct {
	pipelines []pipeline
	subs      []string // bodies of $(…), `…`, <(…), >(…): run too
}

// parseShell reads a command line into pipelines. It is forgiving: an
// unterminated quote ends at the end of the input.
func parseShell(src string) *shellScript {
	p := &shellParser{src: src}
	p.parse()
	return &p.script
}

type shellParser struct {
	src     string
	i       int
	script  shellScript
	cur     *simpleCmd
	pipe    pipeline
	pending []heredocRef // heredocs whose bodies start after the next newline
}

func (p *shellParser) parse() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.src) && p.src[p.i+1] == '\n':
			p.i += 2
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '\n':
			p.i++
			p.endPipeline()
			p.readHeredocs()
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		case c == ';' || c == '&' && !p.at("&>"):
			p.i++
			if p.at("&") || p.at(";") { // && and ;;
				p.i++
			}
			p.endPipeline()
		case c == '|':
			p.i++
			if p.at("|") { // ||
				p.i++
				p.endPipeline()
			} else {
				if p.at("&") { // |&
					p.i++
				}
				p.endCmd()
			}
		case c == '(' || c == ')':
			// Subshells and groups run their commands like any other.
			p.i++
			p.endPipeline()
		case c == '<' || c == '>' || c == '&':
			p.redirection()
		default:
			p.word()
		}
	}
	p.endPipeline()
}

func (p *shellParser) at(s string) bool { return strings.HasPrefix(p.src[p.i:], s) }

func (p *shellParser) cmd() *simpleCmd {
	if p.cur == nil {
		p.cur = &simpleCmd{}
	}
	return p.cur
}

func (p *shellParser) endCmd() {
	if p.cur != nil && (len(p.cur.words) > 0 || len(p.cur.redirs) > 0) {
		p.pipe = append(p.pipe, p.cur)
	}
	p.cur = nil
}

func (p *shellParser) endPipeline() {
	p.endCmd()
	if len(p.pipe) > 0 {
		p.script.pipelines = append(p.script.pipelines, p.pipe)
	}
	p.pipe = nil
}

// redirOps are the redirection operators, longest first.
var redirOps = []string{"&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<<", "<>", ">", "<"}

// redirection reads an operator at p.i (fd digits already consumed) and its
// target word.
func (p *shellParser) redirection() {
	if p.at("<(") || p.at(">(") {
		p.cmd().words = append(p.cmd().words, shellWord{parts: []wordPart{{kind: partUnknown}}})
		p.i++
		p.script.subs = append(p.script.subs, p.balanced('(', ')'))
		return
	}
	op := ""
	for _, o := range redirOps {
		if p.at(o) {
			op = o
			break
		}
	}
	if op == "" { // a lone & (background) is handled by parse; be safe
		p.i++
		return
	}
	p.i += len(op)
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
	r := &redirect{op: op}
	if p.i < len(p.src) && !isOperatorByte(p.src[p.i]) {
		r.target = p.readWord()
	}
	c := p.cmd()
	c.redirs = append(c.redirs, *r)
	if op == "<<" || op == "<<-" {
		// The slice may grow and move: remember the command and index.
		p.pending = append(p.pending, heredocRef{c, len(c.redirs) - 1})
	}
}

// heredocRef points at a heredoc redirection waiting for its body.
type heredocRef struct {
	cmd *simpleCmd
	idx int
}

// readHeredocs reads the bodies of the heredocs opened on the line just
// ended.
func (p *shellParser) readHeredocs() {
	refs := p.pending
	p.pending = nil
	for _, ref := range refs {
		r := &ref.cmd.redirs[ref.idx]
		delim, _ := r.target.literal()
		if delim == "" {
			delim = wordText(r.target)
		}
		var body strings.Builder
		for p.i < len(p.src) {
			end := strings.IndexByte(p.src[p.i:], '\n')
			line := p.src[p.i:]
			if end >= 0 {
				line = p.src[p.i : p.i+end]
				p.i += end + 1
			} else {
				p.i = len(p.src)
			}
			check := line
			if r.op == "<<-" {
				check = strings.TrimLeft(line, "\t")
			}
			if strings.TrimRight(check, "\r") == delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		r.body = body.String()
	}
}

// wordText is a word's literal text with expansions left out, for heredoc
// delimiters.
func wordText(w shellWord) string {
	var b strings.Builder
	for _, p := range w.parts {
		b.WriteString(p.text)
	}
	return b.String()
}

func isOperatorByte(c byte) bool {
	switch c {
	case ';', '&', '|', '(', ')', '<', '>', '\n':
		return true
	}
	return false
}

// word reads a word, or a redirection that starts with fd digits (2>file).
func (p *shellParser) word() {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	if p.i > start && p.i < len(p.src) && (p.src[p.i] == '<' || p.src[p.i] == '>') {
		p.redirection()
		return
	}
	p.i = start
	w := p.readWord()
	if len(w.parts) > 0 {
		c := p.cmd()
		c.words = append(c.words, w)
	}
}

// readWord reads one word from p.i: quotes removed, expansions kept as parts.
func (p *shellParser) readWord() shellWord {
	var w shellWord
	var lit strings.Builder
	flush := func(quoted bool) {
		if lit.Len() > 0 {
			w.parts = append(w.parts, wordPart{text: lit.String(), quoted: quoted})
			lit.Reset()
		}
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || isOperatorByte(c):
			flush(false)
			return w
		case c == '\\':
			if p.i+1 < len(p.src) {
				if p.src[p.i+1] != '\n' {
					flush(false)
					lit.WriteByte(p.src[p.i+1])
					flush(true) // an escaped character is quoted
				}
				p.i += 2
			} else {
				p.i++
			}
		case c == '\'':
			flush(false)
			p.i++
			end := strings.IndexByte(p.src[p.i:], '\'')
			if end < 0 {
				end = len(p.src) - p.i
			}
			w.parts = append(w.parts, wordPart{text: p.src[p.i : p.i+end], quoted: true})
			p.i = min(len(p.src), p.i+end+1)
		case c == '"':
			flush(false)
			p.i++
			p.doubleQuoted(&w)
		case c == '$':
			flush(false)
			p.dollar(&w, false)
		case c == '`':
			flush(false)
			p.backticks(&w, false)
		default:
			lit.WriteByte(c)
			p.i++
		}
	}
	flush(false)
	if len(w.parts) == 0 {
		// Only quotes: an empty word ('' or "").
		w.parts = append(w.parts, wordPart{quoted: true})
	}
	return w
}

// doubleQuoted reads up to the closing quote; p.i is just past the opening.
func (p *shellParser) doubleQuoted(w *shellWord) {
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			w.parts = append(w.parts, wordPart{text: lit.String(), quoted: true})
			lit.Reset()
		}
	}
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '"':
			p.i++
			flush()
			if len(w.parts) == 0 {
				w.parts = append(w.parts, wordPart{quoted: true})
			}
			return
		case '\\':
			if p.i+1 < len(p.src) && strings.IndexByte("$`\"\\\n", p.src[p.i+1]) >= 0 {
				if p.src[p.i+1] != '\n' {
					lit.WriteByte(p.src[p.i+1])
				}
				p.i += 2
			} else {
				lit.WriteByte(c)
				p.i++
			}
		case '$':
			flush()
			p.dollar(w, true)
		case '`':
			flush()
			p.backticks(w, true)
		default:
			lit.WriteByte(c)
			p.i++
		}
	}
	flush()
}

// backticks reads `…` at p.i: a command run for its output, checked as a
// script of its own; the word's part is unknown.
func (p *shellParser) backticks(w *shellWord, quoted bool) {
	p.i++
	end := strings.IndexByte(p.src[p.i:], '`')
	if end < 0 {
		end = len(p.src) - p.i
	}
	p.script.subs = append(p.script.subs, p.src[p.i:p.i+end])
	p.i = min(len(p.src), p.i+end+1)
	w.parts = append(w.parts, wordPart{kind: partUnknown, quoted: quoted})
}

// dollar reads an expansion at p.i (a '$').
func (p *shellParser) dollar(w *shellWord, quoted bool) {
	p.i++ // the $
	if p.i >= len(p.src) {
		w.parts = append(w.parts, wordPart{text: "$", quoted: quoted})
		return
	}
	c := p.src[p.i]
	switch {
	case c == '(':
		if p.at("((") {
			p.balanced('(', ')') // arithmetic: a number we cannot know
		} else {
			p.script.subs = append(p.script.subs, p.balanced('(', ')'))
		}
		w.parts = append(w.parts, wordPart{kind: partUnknown, quoted: quoted})
	case c == '{':
		inner := p.balanced('{', '}')
		if isName(inner) {
			w.parts = append(w.parts, wordPart{kind: partVar, text: inner, quoted: quoted})
		} else {
			w.parts = append(w.parts, wordPart{kind: partUnknown, quoted: quoted})
		}
	case c == '\'' && !quoted:
		// $'…': ANSI-C quoting; escapes beyond \\ and \' are kept as written.
		p.i++
		var b strings.Builder
		for p.i < len(p.src) && p.src[p.i] != '\'' {
			if p.src[p.i] == '\\' && p.i+1 < len(p.src) {
				switch p.src[p.i+1] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(p.src[p.i+1])
				}
				p.i += 2
				continue
			}
			b.WriteByte(p.src[p.i])
			p.i++
		}
		p.i = min(len(p.src), p.i+1)
		w.parts = append(w.parts, wordPart{text: b.String(), quoted: true})
	case isNameStart(c):
		start := p.i
		for p.i < len(p.src) && isNameByte(p.src[p.i]) {
			p.i++
		}
		w.parts = append(w.parts, wordPart{kind: partVar, text: p.src[start:p.i], quoted: quoted})
	case strings.IndexByte("0123456789@*#?$!-", c) >= 0:
		p.i++
		w.parts = append(w.parts, wordPart{kind: partUnknown, quoted: quoted})
	default:
		w.parts = append(w.parts, wordPart{text: "$", quoted: quoted})
	}
}

// balanced returns the text between the open byte at p.i and its matching
// close, honouring quotes and nesting, and moves p.i past the close.
func (p *shellParser) balanced(open, close byte) string {
	p.i++ // the open byte
	start, depth := p.i, 1
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch c {
		case '\\':
			p.i += 2
			continue
		case '\'':
			if end := strings.IndexByte(p.src[p.i+1:], '\''); end >= 0 {
				p.i += end + 2
				continue
			}
		case '"':
			// Skip a double-quoted string, with its escapes.
			j := p.i + 1
			for j < len(p.src) && p.src[j] != '"' {
				if p.src[j] == '\\' {
					j++
				}
				j++
			}
			p.i = min(len(p.src), j+1)
			continue
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				inner := p.src[start:p.i]
				p.i++
				return inner
			}
		}
		p.i++
	}
	p.i = min(p.i, len(p.src))
	return p.src[start:p.i]
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i]) {
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

// expander turns words into text, with the variables of the environment
// and those assigned earlier in the same command line.
type expander struct {
	getenv func(string) string
	vars   map[string]string
	home   string
}

// expanded is a word's text and what the reader knows about it.
type expanded struct {
	text string // unknown parts are unknownPart
	glob bool   // an unquoted *, ? or [ (a pattern, not a name)
}

func (ex *expander) expand(w shellWord) expanded {
	var b strings.Builder
	var e expanded
	for i, p := range w.parts {
		switch p.kind {
		case partLit:
			t := p.text
			if i == 0 && !p.quoted && ex.home != "" && (t == "~" || strings.HasPrefix(t, "~/")) {
				t = ex.home + t[1:]
			} else if i == 0 && !p.quoted && strings.HasPrefix(t, "~") {
				t = unknownPart // ~user
			}
			if !p.quoted && strings.ContainsAny(t, "*?[") {
				e.glob = true
			}
			b.WriteString(t)
		case partVar:
			v, ok := ex.lookup(p.text)
			if !ok {
				v = unknownPart
			}
			b.WriteString(v)
		default:
			b.WriteString(unknownPart)
		}
	}
	e.text = b.String()
	return e
}

// text is the word's expanded text (unknown parts as unknownPart).
func (ex *expander) text(w shellWord) string { return ex.expand(w).text }

func (ex *expander) lookup(name string) (string, bool) {
	if v, ok := ex.vars[name]; ok {
		return v, true
	}
	if name == "HOME" && ex.home != "" {
		return ex.home, true
	}
	v := ""
	if ex.getenv != nil {
		v = ex.getenv(name)
	}
	if v == "" {
		// What the agent's shell would most likely see: the XDG and agent
		// defaults (a wrong guess only matters for paths under them).
		if d, ok := envDefaults[name]; ok && ex.home != "" {
			return ex.home + "/" + d, true
		}
		return "", false
	}
	return v, true
}

// assignment splits NAME=value; ok is false for any other word.
func assignment(w shellWord) (name string, value shellWord, ok bool) {
	if len(w.parts) == 0 || w.parts[0].kind != partLit || w.parts[0].quoted {
		return "", shellWord{}, false
	}
	first := w.parts[0].text
	eq := strings.IndexByte(first, '=')
	if eq <= 0 || !isName(first[:eq]) {
		return "", shellWord{}, false
	}
	rest := first[eq+1:]
	value.parts = append(value.parts, w.parts[1:]...)
	if rest != "" {
		value.parts = append([]wordPart{{text: rest}}, value.parts...)
	}
	if len(value.parts) == 0 {
		value.parts = []wordPart{{quoted: true}}
	}
	return first[:eq], value, true
}
