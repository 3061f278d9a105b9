// Package configs reads and edits settings files: the agents' own (where
// runaway's hook entry goes) and runaway's config. Every edit works on a
// tailscale/hujson syntax tree so that bytes nobody asked to change stay
// byte-identical: comments, key order, indentation, CRLF and a BOM survive.
package configs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

var bom = []byte("\xef\xbb\xbf")

// Doc is one JSON or JSONC file being edited. Parse it, edit it with the
// functions of this package, and Pack it; it is never reformatted.
type Doc struct {
	// Name is how errors name the file (a path, often with ~).
	Name string
	// Strict is set for files their owner reads as plain JSON (Claude Code,
	// Codex): they must parse as strict JSON, and stay strict.
	Strict bool

	root  hujson.Value
	src   []byte // the parsed bytes, without the BOM
	bom   bool
	blank []byte // the original bytes when they held no value at all
	nl    string // "\n" or "\r\n", as the file has it
	unit  string // one level of indentation, as the file has it
}

// SyntaxError is a file that does not parse, with the place it went wrong.
type SyntaxError struct {
	Name         string
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Name, e.Line, e.Column, e.Msg)
}

// ParseDoc parses data. Missing or blank content counts as `{}`, and packs
// back to the same blank bytes while nothing is added to it.
func ParseDoc(name string, data []byte, strict bool) (*Doc, error) {
	d := &Doc{Name: name, Strict: strict}
	body := data
	if bytes.HasPrefix(body, bom) {
		d.bom = true
		body = body[len(bom):]
	}
	if len(bytes.TrimSpace(body)) == 0 {
		d.blank = bytes.Clone(data)
		if d.blank == nil {
			d.blank = []byte{}
		}
		body = []byte("{}\n")
	}
	d.src = bytes.Clone(body)
	if strict && d.blank == nil {
		if err := strictCheck(name, d.src); err != nil {
			return nil, err
		}
	}
	if off := TooDeep(d.src); off >= 0 {
		line, col := lineColumn(d.src, off)
		return nil, &SyntaxError{name, line, col, fmt.Sprintf("nested deeper than %d levels", MaxNesting)}
	}
	v, err := hujson.Parse(d.src)
	if err != nil {
		return nil, hujsonError(name, err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		line, col := lineColumn(d.src, v.StartOffset)
		return nil, &SyntaxError{name, line, col, "the file must hold one JSON object"}
	}
	d.root = v
	d.nl = detectNewline(d.src)
	d.unit = detectIndentUnit(d.src)
	return d, nil
}

// strictCheck reports where data stops being plain JSON. hujson accepts
// comments and trailing commas, which Claude Code and Codex reject.
func strictCheck(name string, data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > 0 {
			off-- // Offset counts the bad byte as read
		}
		if _, herr := hujson.Parse(data); herr == nil {
			// JSON with comments or trailing commas: say which, and why it
			// matters, rather than the decoder's bare complaint.
			if at, what, fix := notJSON(data, off); what != "" {
				line, col := lineColumn(data, at)
				return &SyntaxError{name, line, col, what + " is not JSON: Claude Code and Codex read their settings files as strict JSON, so the agent cannot read this file either; " + fix}
			}
		}
		line, col := lineColumn(data, off)
		return &SyntaxError{name, line, col, se.Error()}
	}
	return &SyntaxError{name, 1, 1, err.Error()}
}

// notJSON names what the plain-JSON decoder stopped at, offset off, in a
// file that is valid JSON with comments: a comment, or a trailing comma
// (whose offset it returns), and how to mend it.
func notJSON(data []byte, off int) (at int, what, fix string) {
	if off < 0 || off >= len(data) {
		return off, "", ""
	}
	switch rest := data[off:]; {
	case bytes.HasPrefix(rest, []byte("//")):
		return off, "a // comment", "remove the comment (to the end of the line)"
	case bytes.HasPrefix(rest, []byte("/*")):
		return off, "a /* */ comment", "remove the comment (up to */)"
	case rest[0] == '}' || rest[0] == ']':
		i := len(bytes.TrimRight(data[:off], " \t\r\n")) - 1
		if i >= 0 && data[i] == ',' {
			return i, "a trailing comma", "remove the comma"
		}
	}
	return off, "", ""
}

// hujsonError turns hujson's "hujson: line L, column C: msg" into a SyntaxError.
func hujsonError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "hujson: ")
	var line, col int
	if n, _ := fmt.Sscanf(msg, "line %d, column %d:", &line, &col); n == 2 {
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return &SyntaxError{name, line, col, msg}
	}
	return &SyntaxError{name, 1, 1, msg}
}

func lineColumn(b []byte, n int) (line, column int) {
	n = min(max(n, 0), len(b))
	line = 1 + bytes.Count(b[:n], []byte("\n"))
	column = 1 + len([]rune(string(b[bytes.LastIndexByte(b[:n], '\n')+1:n])))
	return line, column
}

// Pack returns the file's bytes as they are after the edits.
func (d *Doc) Pack() []byte {
	if d.blank != nil && len(d.rootObject().Members) == 0 {
		return bytes.Clone(d.blank)
	}
	out := d.root.Pack()
	if d.bom {
		out = append(bytes.Clone(bom), out...)
	}
	return out
}

// Blank reports whether the file held no value (missing, empty or only
// whitespace) when it was parsed.
func (d *Doc) Blank() bool { return d.blank != nil }

// Value decodes the whole file (comments and trailing commas allowed) into v.
func (d *Doc) Value(v any) error {
	c := d.root.Clone()
	c.Standardize()
	return json.Unmarshal(c.Pack(), v)
}

func (d *Doc) rootObject() *hujson.Object { return d.root.Value.(*hujson.Object) }

func detectNewline(b []byte) string {
	crlf := bytes.Count(b, []byte("\r\n"))
	if crlf > 0 && crlf*2 >= bytes.Count(b, []byte("\n")) {
		return "\r\n"
	}
	return "\n"
}

// detectIndentUnit returns the file's indentation step: a tab when lines
// are tab-indented, else the smallest space indentation, else two spaces.
func detectIndentUnit(b []byte) string {
	smallest := 0
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == len(line) || len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		switch trimmed[0] {
		case '"', '{', '}', '[', ']':
		default:
			continue // comment bodies and numbers say nothing reliable
		}
		lead := line[:len(line)-len(trimmed)]
		if lead[0] == '\t' {
			return "\t"
		}
		if n := len(lead) - len(bytes.TrimLeft(lead, " ")); n > 0 && (smallest == 0 || n < smallest) {
			smallest = n
		}
	}
	if smallest == 0 {
		return "  "
	}
	return strings.Repeat(" ", smallest)
}

// lineIndent returns the whitespace that starts the line holding offset.
func (d *Doc) lineIndent(offset int) string {
	offset = min(max(offset, 0), len(d.src))
	start := bytes.LastIndexByte(d.src[:offset], '\n') + 1
	end := start
	for end < len(d.src) && (d.src[end] == ' ' || d.src[end] == '\t') {
		end++
	}
	return string(d.src[start:end])
}

// style is how new content is laid out inside one container so that it
// looks like its siblings.
type style struct {
	inline bool   // siblings share one line
	before string // the bytes before a new element: newline + indentation, or a space
	indent string // the new element's indentation (multi-line only)
	closer string // the container's bytes before its closing bracket, when it was empty
	colon  string // the bytes after a member's colon
	nl     string
	unit   string
}

// styleFor works out the layout of an element appended to the container v,
// whose elements are elems (their BeforeExtra is what precedes each).
func (d *Doc) styleFor(v *hujson.Value, elems []*hujson.Value, colon string) style {
	s := style{nl: d.nl, unit: d.unit, colon: colon}
	own := d.lineIndent(v.StartOffset)
	if len(elems) == 0 {
		s.indent = own + d.unit
		s.before = d.nl + s.indent
		s.closer = d.nl + own
		return s
	}
	last := string(elems[len(elems)-1].BeforeExtra)
	i := strings.LastIndexByte(last, '\n')
	if i < 0 {
		s.inline = true
		if isBlank(last) {
			s.before = last
		}
		return s
	}
	s.indent = last[i+1:]
	if !isBlank(s.indent) {
		s.indent = own + d.unit
	}
	s.before = d.nl + s.indent
	return s
}

func isBlank(s string) bool { return strings.Trim(s, " \t") == "" }

// colonStyle returns the spacing after the colons of obj's members.
func colonStyle(obj *hujson.Object) string {
	for _, m := range obj.Members {
		b := string(m.Value.BeforeExtra)
		if isBlank(b) && len(m.Name.AfterExtra) == 0 {
			return b
		}
	}
	return " "
}

// Ordered JSON for rendering new content: objects keep the key order given.
type (
	jsonObject []jsonMember
	jsonMember struct {
		Key   string
		Value any
	}
	jsonArray []any
	// inlineArray is an array of strings written on one line, as people
	// write a command's arguments.
	inlineArray []string
)

func isInlineArray(v any) bool { _, ok := v.(inlineArray); return ok }

func isObject(v any) bool { _, ok := v.(jsonObject); return ok }

// setObject replaces the value held by v with the object o of strings (on
// one line), unless it already holds exactly those members in that order.
func (d *Doc) setObject(v *hujson.Value, o jsonObject) {
	if obj := asObject(v); obj != nil && len(obj.Members) == len(o) {
		same := true
		for i, m := range obj.Members {
			lit, ok := m.Value.Value.(hujson.Literal)
			want, isString := o[i].Value.(string)
			same = same && ok && isString && lit.Kind() == '"' && lit.String() == want &&
				m.Name.Value.(hujson.Literal).String() == o[i].Key
		}
		if same {
			return
		}
	}
	v.Value = parseRendered(render(o, style{inline: true, before: " ", colon: " "})).Value
}

// setInline replaces the value held by v with the array a, unless it
// already holds those strings.
func setInline(v *hujson.Value, a inlineArray) {
	if arr := asArray(v); arr != nil && len(arr.Elements) == len(a) {
		same := true
		for i, e := range arr.Elements {
			lit, ok := e.Value.(hujson.Literal)
			same = same && ok && lit.Kind() == '"' && lit.String() == a[i]
		}
		if same {
			return
		}
	}
	var b strings.Builder
	renderTo(&b, a, "", style{})
	v.Value = parseRendered(b.String()).Value
}

// render writes v laid out per s, starting at indentation s.indent.
func render(v any, s style) string {
	var b strings.Builder
	renderTo(&b, v, s.indent, s)
	return b.String()
}

func renderTo(b *strings.Builder, v any, indent string, s style) {
	sep := func(first bool, inner string) {
		if !first {
			b.WriteByte(',')
		}
		if s.inline {
			if !first {
				b.WriteString(s.before)
			}
			return
		}
		b.WriteString(s.nl + inner)
	}
	closeWith := func(c byte, n int) {
		if n > 0 && !s.inline {
			b.WriteString(s.nl + indent)
		}
		b.WriteByte(c)
	}
	switch v := v.(type) {
	case jsonObject:
		b.WriteByte('{')
		for i, m := range v {
			sep(i == 0, indent+s.unit)
			b.Write(hujson.String(m.Key))
			b.WriteString(":" + s.colon)
			renderTo(b, m.Value, indent+s.unit, s)
		}
		closeWith('}', len(v))
	case inlineArray:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(literal(e))
		}
		b.WriteByte(']')
	case jsonArray:
		b.WriteByte('[')
		for i, e := range v {
			sep(i == 0, indent+s.unit)
			renderTo(b, e, indent+s.unit, s)
		}
		closeWith(']', len(v))
	default:
		b.Write(literal(v))
	}
}

// literal encodes a string or number as JSON, leaving & < > readable.
func literal(v any) hujson.Literal {
	switch v := v.(type) {
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		return bytes.TrimRight(buf.Bytes(), "\n")
	case int:
		return hujson.Int(int64(v))
	case float64:
		return hujson.Literal(strconv.FormatFloat(v, 'f', -1, 64))
	case bool:
		return hujson.Bool(v)
	}
	panic(fmt.Sprintf("configs: cannot render %T", v))
}

// parseRendered turns rendered text back into a syntax tree to splice in.
func parseRendered(text string) hujson.Value {
	v, err := hujson.Parse([]byte(text))
	if err != nil {
		panic(fmt.Sprintf("configs: rendered invalid JSON %q: %v", text, err))
	}
	return v
}

// findMember returns the index of the first member of obj named name, or -1.
func findMember(obj *hujson.Object, name string) int {
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			return i
		}
	}
	return -1
}

func asObject(v *hujson.Value) *hujson.Object {
	o, _ := v.Value.(*hujson.Object)
	return o
}

func asArray(v *hujson.Value) *hujson.Array {
	a, _ := v.Value.(*hujson.Array)
	return a
}

func memberValues(obj *hujson.Object) []*hujson.Value {
	out := make([]*hujson.Value, len(obj.Members))
	for i := range obj.Members {
		out[i] = &obj.Members[i].Name
	}
	return out
}

func elementValues(arr *hujson.Array) []*hujson.Value {
	out := make([]*hujson.Value, len(arr.Elements))
	for i := range arr.Elements {
		out[i] = &arr.Elements[i]
	}
	return out
}

// appendMember adds `name: value` at the end of the object held by v.
// It returns the container's former inner bytes when it was empty, so the
// insert can be undone exactly.
func (d *Doc) appendMember(v *hujson.Value, name string, value any) (emptyInner *string) {
	obj := asObject(v)
	s := d.styleFor(v, memberValues(obj), colonStyle(obj))
	val := parseRendered(render(value, s))
	val.BeforeExtra = []byte(s.colon)
	m := hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: []byte(s.before), Value: hujson.String(name)},
		Value: val,
	}
	if len(obj.Members) == 0 {
		inner := string(obj.AfterExtra)
		emptyInner = &inner
		obj.AfterExtra = []byte(s.closer)
	} else if obj.Members[len(obj.Members)-1].Value.AfterExtra != nil {
		m.Value.AfterExtra = []byte{} // keep the file's trailing comma
	}
	obj.Members = append(obj.Members, m)
	return emptyInner
}

// appendElement adds value at the end of the array held by v; see appendMember.
func (d *Doc) appendElement(v *hujson.Value, value any) (emptyInner *string) {
	arr := asArray(v)
	s := d.styleFor(v, elementValues(arr), d.colonNear())
	e := parseRendered(render(value, s))
	e.BeforeExtra = []byte(s.before)
	if len(arr.Elements) == 0 {
		inner := string(arr.AfterExtra)
		emptyInner = &inner
		arr.AfterExtra = []byte(s.closer)
	} else if arr.Elements[len(arr.Elements)-1].AfterExtra != nil {
		e.AfterExtra = []byte{}
	}
	arr.Elements = append(arr.Elements, e)
	return emptyInner
}

// colonNear is the colon spacing used in the file's root object.
func (d *Doc) colonNear() string {
	for v := range d.root.All() {
		if o := asObject(v); o != nil && len(o.Members) > 0 {
			return colonStyle(o)
		}
	}
	return " "
}

// deleteMember removes member i of obj, keeping the file's trailing-comma
// choice and the bytes before the closing brace. A removed first member
// passes its leading bytes on, so the next one starts where it started.
func deleteMember(obj *hujson.Object, i int) {
	wasLast := i == len(obj.Members)-1
	trailing := obj.Members[i].Value.AfterExtra != nil
	if i == 0 && !wasLast {
		obj.Members[1].Name.BeforeExtra = obj.Members[0].Name.BeforeExtra
	}
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if wasLast && len(obj.Members) > 0 {
		fixTrailing(&obj.Members[len(obj.Members)-1].Value, &obj.AfterExtra, trailing)
	}
}

// deleteElement removes element i of arr; see deleteMember.
func deleteElement(arr *hujson.Array, i int) {
	wasLast := i == len(arr.Elements)-1
	trailing := arr.Elements[i].AfterExtra != nil
	if i == 0 && !wasLast {
		arr.Elements[1].BeforeExtra = arr.Elements[0].BeforeExtra
	}
	arr.Elements = append(arr.Elements[:i], arr.Elements[i+1:]...)
	if wasLast && len(arr.Elements) > 0 {
		fixTrailing(&arr.Elements[len(arr.Elements)-1], &arr.AfterExtra, trailing)
	}
}

// fixTrailing makes the new last element carry a trailing comma exactly
// when the removed one did; in hujson a non-nil AfterExtra on the last
// element means a trailing comma.
func fixTrailing(last *hujson.Value, containerAfter *hujson.Extra, trailing bool) {
	switch {
	case trailing && last.AfterExtra == nil:
		last.AfterExtra = []byte{}
	case !trailing && last.AfterExtra != nil:
		*containerAfter = append(bytes.Clone(last.AfterExtra), *containerAfter...)
		last.AfterExtra = nil
	}
}

// setLiteral replaces the value held by v with lit, keeping the bytes
// around it; it reports whether anything changed.
func setLiteral(v *hujson.Value, lit hujson.Literal) bool {
	if old, ok := v.Value.(hujson.Literal); ok && bytes.Equal(old, lit) {
		return false
	}
	v.Value = lit
	return true
}

// SetTopLevel sets the top-level member key to a number, string or bool:
// the old value's bytes are replaced, or the member is appended in the
// file's style. It reports whether the file changed.
func (d *Doc) SetTopLevel(key string, value any) bool {
	root := d.rootObject()
	if i := findMember(root, key); i >= 0 {
		return setLiteral(&root.Members[i].Value, literal(value))
	}
	d.appendMember(&d.root, key, value)
	return true
}
