package configs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/tailscale/hujson"
)

// HookSpec is the one handler runaway wants in a settings file: Claude
// Code's and Codex's shape, `{"hooks":{Event:[{"hooks":[handler]}]}}`, in a
// matcher group without a matcher, so it runs before every tool.
type HookSpec struct {
	Event   string // "PreToolUse"; Gemini CLI: "BeforeTool"
	Name    string // the handler's name, where the harness has one
	Command string
	// Args, when set, is Claude Code's exec form: Command is the program,
	// run with Args and no shell.
	Args []string
	// Shell is Claude Code's "shell" ("bash"); CommandWindows is Codex's
	// command for Windows. Empty means the field is not written.
	Shell          string
	CommandWindows string
	// StatusMessage is Codex's "statusMessage": the name its /hooks list
	// and startup review show for the entry ("Unnamed hook" without one),
	// and the status line while it runs. It is part of Codex's trust hash.
	StatusMessage string
	Timeout       int // seconds; Gemini CLI: milliseconds
	// Env is Gemini CLI's "env": variables it sets for the handler, over
	// its own environment (nil: the field is not written).
	Env jsonObject
}

// Entry is one of runaway's handlers found in a settings file.
type Entry struct {
	Event          string
	Group, Handler int // indexes in the event's array and in the group's "hooks"
	Matcher        string
	HasMatcher     bool
	Type           string
	Command        string
	Program        string   // the command's first word, shell quoting removed
	Args           []string // the words after it, up to the first operator
	ExecForm       bool     // Claude Code's exec form: Program and Args are "command" and "args"
	Shell          string   // Claude Code's "shell", if any
	CommandWindows string   // Codex's "commandWindows", if any
	StatusMessage  string   // Codex's "statusMessage", if any
	Timeout        float64
	HasTimeout     bool
	OrTrue         bool // the command ends in `|| true`, so a crash cannot block
	// Guarded: the command runs runaway only when the program is there
	// (GuardedHookCommand); Program and Args are then those of that run.
	Guarded bool
	Line    int // where the handler starts in the file
}

// Undo records what SetHook created, so that RemoveHooks can give the file
// back byte for byte. It is stored in installed.json.
type Undo struct {
	// Created is what the insert added: "hooks" (the whole hooks object),
	// "event" (the event's array), "group" (one matcher group), or "" when it
	// updated a handler that was already there.
	Created string `json:"created,omitempty"`
	// Event is the event the handler was put under.
	Event string `json:"event,omitempty"`
	// EmptyInner holds the inner bytes of the container that received the
	// new content, when it was empty (`{}` vs `{ }` vs "{\n}").
	EmptyInner *string `json:"empty_inner,omitempty"`
	// Blank holds the whole file when it was blank (empty or whitespace).
	Blank *string `json:"blank,omitempty"`
}

// Merge keeps what an earlier insert created when a later one only updated
// the handler in place.
func (u Undo) Merge(earlier *Undo) Undo {
	if u.Created == "" && earlier != nil {
		return *earlier
	}
	return u
}

// IsRunawayCommand reports whether a handler's command runs runaway's hook:
// the program, after shell unquoting, is named runaway and its first
// argument is `hook`. Substrings never count.
//
// Gemini CLI's entry is guarded against a missing program
// (GuardedHookCommand): `[ -x BIN ] && exec BIN hook gemini`.
func IsRunawayCommand(command string) bool {
	return isRunawayWords(handlerWords(command, nil))
}

// IsRunawayHandler is IsRunawayCommand for a handler in either form: shell
// form (args nil) or exec form ("command" the program, "args" its words).
func IsRunawayHandler(command string, args []string) bool {
	return isRunawayWords(handlerWords(command, args))
}

// guardedWords unwraps GuardedHookCommand's `[ -x BIN ] && exec BIN …`
// into the words of the command it guards.
func guardedWords(command string, words []string) []string {
	if len(words) >= 4 && words[0] == "[" && words[1] == "-x" && isRunawayProgram(words[2]) && words[3] == "]" {
		_, rest, ok := strings.Cut(command, "&&")
		if !ok {
			return nil
		}
		words = ShellWords(rest)
		if len(words) > 0 && words[0] == "exec" {
			words = words[1:]
		}
	}
	return words
}

func isRunawayWords(words []string) bool {
	return len(words) >= 2 && isRunawayProgram(words[0]) && words[1] == "hook"
}

func isRunawayProgram(p string) bool {
	base := p
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		base = p[i+1:]
	}
	return base == "runaway" || strings.EqualFold(base, "runaway.exe")
}

// ShellQuote quotes s for a POSIX shell: single quotes, with each ' written
// as these four characters (a code block, or gofmt would turn two quotes
// into a typographic one):
//
//	'\''
//
// Paths with spaces and quotes then reach the program intact.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HookCommand is the command written into a harness's settings file. It
// ends in `|| true` so that a crashed runaway never blocks the agent.
func HookCommand(bin string, harness agent.ID) string {
	return ShellQuote(bin) + " hook " + string(harness) + " || true"
}

// IsGuarded reports a command in GuardedHookCommand's form (or its
// PowerShell twin, GuardedPowerShellCommand).
func IsGuarded(command string) bool {
	c := strings.TrimSpace(command)
	return strings.HasPrefix(c, "[ -x ") || strings.HasPrefix(c, "if (Test-Path ")
}

// GuardedHookCommand is the command for agents that treat a failed hook as
// "block" (Gemini CLI reads exit code 127 of a missing program so) and whose
// timeout `|| true` would defeat: it runs runaway only when it is there, and
// exec lets the agent's timeout reach runaway itself.
func GuardedHookCommand(bin string, harness agent.ID) string {
	q := ShellQuote(bin)
	return "[ -x " + q + " ] && exec " + q + " hook " + string(harness)
}

// ShellWords splits the first simple command of a shell command line into
// words, removing quotes the way sh does. It stops at the first unquoted
// operator (| & ; < > ( ) or a newline).
func ShellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case strings.IndexByte("|&;<>()\n", c) >= 0:
			flush()
			return words
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				flush()
				return words
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	flush()
	return words
}

// endsOrTrue reports whether the command ends in `|| true`.
func endsOrTrue(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && f[len(f)-2] == "||" && f[len(f)-1] == "true"
}

// hooksObject returns the file's top-level "hooks" object, nil when there
// is none, or an error when "hooks" is not an object.
func (d *Doc) hooksObject() (*hujson.Value, error) {
	root := d.rootObject()
	i := findMember(root, "hooks")
	if i < 0 {
		return nil, nil
	}
	v := &root.Members[i].Value
	if asObject(v) == nil {
		return nil, d.errAt(v, `"hooks" is not an object`)
	}
	return v, nil
}

func (d *Doc) errAt(v *hujson.Value, msg string) error {
	line, col := lineColumn(d.src, v.StartOffset)
	return &SyntaxError{d.Name, line, col, msg}
}

// handlerRef points at one runaway handler in the tree.
type handlerRef struct {
	event   int // member index in hooks
	group   int
	handler int
}

// ourHandlers lists runaway's handlers under every event, in file order.
func ourHandlers(hooks *hujson.Object) []handlerRef {
	var refs []handlerRef
	for ei := range hooks.Members {
		arr := asArray(&hooks.Members[ei].Value)
		if arr == nil {
			continue
		}
		for gi := range arr.Elements {
			handlers := groupHandlers(&arr.Elements[gi])
			for hi := range handlers.Elements {
				h := &handlers.Elements[hi]
				if IsRunawayHandler(stringMember(h, "command"), stringsMember(h, "args")) {
					refs = append(refs, handlerRef{ei, gi, hi})
				}
			}
		}
	}
	return refs
}

// groupHandlers returns a matcher group's "hooks" array (empty when absent).
func groupHandlers(group *hujson.Value) *hujson.Array {
	obj := asObject(group)
	if obj == nil {
		return &hujson.Array{}
	}
	i := findMember(obj, "hooks")
	if i < 0 {
		return &hujson.Array{}
	}
	if arr := asArray(&obj.Members[i].Value); arr != nil {
		return arr
	}
	return &hujson.Array{}
}

// stringMember returns the string value of member name, or "".
func stringMember(v *hujson.Value, name string) string {
	obj := asObject(v)
	if obj == nil {
		return ""
	}
	i := findMember(obj, name)
	if i < 0 {
		return ""
	}
	lit, ok := obj.Members[i].Value.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return ""
	}
	return lit.String()
}

// stringsMember returns the member name when it is an array of strings
// (empty, not nil, when it is an empty array), else nil.
func stringsMember(v *hujson.Value, name string) []string {
	obj := asObject(v)
	if obj == nil {
		return nil
	}
	i := findMember(obj, name)
	if i < 0 {
		return nil
	}
	arr := asArray(&obj.Members[i].Value)
	if arr == nil {
		return nil
	}
	out := []string{}
	for _, e := range arr.Elements {
		lit, ok := e.Value.(hujson.Literal)
		if !ok || lit.Kind() != '"' {
			return nil
		}
		out = append(out, lit.String())
	}
	return out
}

// HookEntries lists runaway's handlers in the file, under every event.
func (d *Doc) HookEntries() ([]Entry, error) {
	hv, err := d.hooksObject()
	if err != nil || hv == nil {
		return nil, err
	}
	hooks := asObject(hv)
	var out []Entry
	for _, r := range ourHandlers(hooks) {
		ev := hooks.Members[r.event]
		group := &asArray(&ev.Value).Elements[r.group]
		h := &groupHandlers(group).Elements[r.handler]
		e := Entry{
			Event:   ev.Name.Value.(hujson.Literal).String(),
			Group:   r.group,
			Handler: r.handler,
			Type:    stringMember(h, "type"),
			Command: stringMember(h, "command"),
		}
		if gobj := asObject(group); gobj != nil {
			if i := findMember(gobj, "matcher"); i >= 0 {
				e.HasMatcher = true
				e.Matcher = stringMember(group, "matcher")
			}
		}
		args := stringsMember(h, "args")
		words := handlerWords(e.Command, args)
		e.Program, e.Args, e.ExecForm = words[0], words[1:], args != nil
		e.OrTrue = !e.ExecForm && endsOrTrue(e.Command)
		e.Shell = stringMember(h, "shell")
		e.CommandWindows = stringMember(h, "commandWindows")
		e.Guarded = IsGuarded(e.Command)
		e.StatusMessage = stringMember(h, "statusMessage")
		hobj := asObject(h)
		if i := findMember(hobj, "timeout"); i >= 0 {
			if lit, ok := hobj.Members[i].Value.Value.(hujson.Literal); ok && lit.Kind() == '0' {
				e.Timeout, e.HasTimeout = lit.Float(), true
			}
		}
		e.Line, _ = lineColumn(d.src, h.StartOffset)
		out = append(out, e)
	}
	return out, nil
}

func handlerValue(spec HookSpec) jsonObject {
	h := jsonObject{{"type", "command"}}
	if spec.Name != "" {
		h = append(h, jsonMember{"name", spec.Name})
	}
	h = append(h, jsonMember{"command", spec.Command})
	if spec.Args != nil {
		h = append(h, jsonMember{"args", inlineArray(spec.Args)})
	}
	if spec.Shell != "" {
		h = append(h, jsonMember{"shell", spec.Shell})
	}
	if spec.CommandWindows != "" {
		h = append(h, jsonMember{"commandWindows", spec.CommandWindows})
	}
	if spec.StatusMessage != "" {
		h = append(h, jsonMember{"statusMessage", spec.StatusMessage})
	}
	if spec.Env != nil {
		h = append(h, jsonMember{"env", spec.Env})
	}
	return append(h, jsonMember{"timeout", spec.Timeout})
}

// formFields are the handler fields only some entry forms have: an update
// to another form removes them.
var formFields = []string{"args", "shell", "commandWindows", "env"}

func groupValue(spec HookSpec) jsonObject {
	return jsonObject{{"hooks", jsonArray{handlerValue(spec)}}}
}

// SetHook puts spec into the file: it updates the first runaway handler in
// place (keeping anything others added to its group), removes any other
// copies of it under the same event, or appends a new matcher group,
// creating "hooks" and the event's array when missing. Nothing else moves.
func (d *Doc) SetHook(spec HookSpec) (Undo, error) {
	u := Undo{Event: spec.Event}
	if d.blank != nil {
		b := string(d.blank)
		u.Blank = &b
	}
	root := &d.root
	hv, err := d.hooksObject()
	if err != nil {
		return u, err
	}
	if hv == nil {
		u.Created = "hooks"
		u.EmptyInner = d.appendMember(root, "hooks", jsonObject{{spec.Event, jsonArray{groupValue(spec)}}})
		return u, nil
	}
	hooks := asObject(hv)
	ei := findMember(hooks, spec.Event)
	if ei < 0 {
		u.Created = "event"
		u.EmptyInner = d.appendMember(hv, spec.Event, jsonArray{groupValue(spec)})
		return u, nil
	}
	ev := &hooks.Members[ei].Value
	if asArray(ev) == nil {
		return u, d.errAt(ev, fmt.Sprintf("%q is not an array", spec.Event))
	}
	var mine []handlerRef
	for _, r := range ourHandlers(hooks) {
		if r.event == ei {
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		u.Created = "group"
		u.EmptyInner = d.appendElement(ev, groupValue(spec))
		return u, nil
	}
	// Later copies go first, so indexes of earlier ones stay valid.
	for _, r := range slices.Backward(mine[1:]) {
		removeHandler(asArray(ev), r.group, r.handler)
	}
	d.updateHandler(&groupHandlers(&asArray(ev).Elements[mine[0].group]).Elements[mine[0].handler], spec)
	return u, nil
}

// updateHandler sets our handler's fields to spec's, value by value, and
// drops the fields of another entry form (an older runaway's, or one
// written for an older agent version).
func (d *Doc) updateHandler(h *hujson.Value, spec HookSpec) {
	obj := asObject(h)
	want := handlerValue(spec)
	for _, m := range want {
		i := findMember(obj, m.Key)
		switch {
		case i >= 0 && m.Key == "statusMessage":
			// A name the person gave the entry is theirs (and so is the
			// trust hash it is part of).
		case i < 0:
			d.appendMember(h, m.Key, m.Value)
		case isInlineArray(m.Value):
			setInline(&obj.Members[i].Value, m.Value.(inlineArray))
		case isObject(m.Value):
			d.setObject(&obj.Members[i].Value, m.Value.(jsonObject))
		default:
			setLiteral(&obj.Members[i].Value, literal(m.Value))
		}
	}
	for _, f := range formFields {
		if !slices.ContainsFunc(want, func(m jsonMember) bool { return m.Key == f }) {
			if i := findMember(obj, f); i >= 0 {
				deleteMember(obj, i)
			}
		}
	}
}

// removeHandler deletes handler hi of group gi, and the group too when
// nothing is left in it: no handler and no other key (a matcher someone
// added to our group is theirs, so the group stays).
func removeHandler(events *hujson.Array, gi, hi int) {
	group := &events.Elements[gi]
	handlers := groupHandlers(group)
	deleteElement(handlers, hi)
	if len(handlers.Elements) == 0 && len(asObject(group).Members) == 1 {
		deleteElement(events, gi)
	}
}

// RemoveHooks deletes every runaway handler under every event and returns
// how many it found. With the Undos of the inserts (in the order they were
// made), it also drops what each insert created once it is empty, last
// insert first, so the file comes back byte for byte.
func (d *Doc) RemoveHooks(undos []Undo) (int, error) {
	hv, err := d.hooksObject()
	if err != nil || hv == nil {
		return 0, err
	}
	hooks := asObject(hv)
	refs := ourHandlers(hooks)
	for _, r := range slices.Backward(refs) {
		removeHandler(asArray(&hooks.Members[r.event].Value), r.group, r.handler)
	}
	if len(refs) == 0 {
		return 0, nil
	}
	for _, u := range slices.Backward(undos) {
		if !d.undoInsert(hv, u) {
			break
		}
	}
	return len(refs), nil
}

// undoInsert drops what one insert created, when it is empty now; it
// reports whether the "hooks" object is still there for earlier undos.
func (d *Doc) undoInsert(hv *hujson.Value, u Undo) bool {
	hooks := asObject(hv)
	if u.Created == "" {
		return true
	}
	event := findMember(hooks, u.Event)
	if event < 0 || asArray(&hooks.Members[event].Value) == nil {
		return true
	}
	ev := &hooks.Members[event].Value
	if u.Created == "group" {
		restoreEmpty(ev, u.EmptyInner)
		return true
	}
	if len(asArray(ev).Elements) > 0 {
		return true
	}
	deleteMember(hooks, event)
	if u.Created == "event" {
		restoreEmpty(hv, u.EmptyInner)
		return true
	}
	if len(hooks.Members) > 0 {
		return true
	}
	root := d.rootObject()
	deleteMember(root, findMember(root, "hooks"))
	restoreEmpty(&d.root, u.EmptyInner)
	if u.Blank != nil && len(root.Members) == 0 {
		d.blank = []byte(*u.Blank)
	}
	return false
}

// restoreEmpty gives an emptied container back its original inner bytes.
func restoreEmpty(v *hujson.Value, inner *string) {
	if inner == nil {
		return
	}
	switch c := v.Value.(type) {
	case *hujson.Object:
		if len(c.Members) == 0 {
			c.AfterExtra = []byte(*inner)
		}
	case *hujson.Array:
		if len(c.Elements) == 0 {
			c.AfterExtra = []byte(*inner)
		}
	}
}

// TopLevelKeys returns the names of the file's top-level members.
func (d *Doc) TopLevelKeys() []string {
	var keys []string
	for _, m := range d.rootObject().Members {
		keys = append(keys, m.Name.Value.(hujson.Literal).String())
	}
	return keys
}
