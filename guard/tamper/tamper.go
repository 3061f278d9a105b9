// Package tamper is the tamper wire: the agent must not switch its own
// guard off. Every tool call that can write is looked at: Bash (Claude
// Code, Codex exec_command and shell), PowerShell, Write, Edit, MultiEdit,
// NotebookEdit, apply_patch, Codex write_stdin, OpenCode's bash, write,
// edit, multiedit and apply_patch, Gemini CLI's run_shell_command,
// write_file and replace, and MCP tools by the paths and commands their
// arguments name. Denied:
//
//   - writing, removing, moving, hard-linking or chmod-ing runaway's config
//     folder, state folder (and anything in them), its installed program or
//     the running one, or a folder that holds them (rm -rf ~/.local/state),
//     by any path the kernel would take there (symlinks before "..",
//     /proc/self/cwd, a hard link to the same file);
//   - a change to a settings file runaway manages that drops or changes
//     runaway's entry, leaves the file unreadable to its agent, switches
//     hooks off, moves runaway's files through env, or adds a command run
//     outside tool calls (another hook, statusLine, Codex notify…) that
//     touches them; a new such command that does not is asked about;
//   - any write to runaway's OpenCode plugin; a write to an opencode.json or
//     opencode.jsonc (global, project, .opencode/) that changes its
//     "plugin" list (a plugin runs inside OpenCode and can switch runaway's
//     off); a Gemini CLI settings file that switches hooks off
//     (hooksConfig.enabled, tools.enableHooks, hooksConfig.disabled);
//   - any shell write to those settings files whose content the wire cannot
//     know; runaway allow|remove|setup by any path or copy; an agent
//     started without its hooks (another config home, --bare, --pure,
//     OPENCODE_PURE, hooks switched off…).
//
// Reading, and naming those paths in an echo, grep or commit message, pass.
// The wire fails closed: a call it cannot judge within its time budget,
// or that makes it panic, is denied when it names anything protected.
package tamper

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// hint ends every tamper reason: what the model should do instead.
const hint = "If a limit is in the way, stop and tell the person: they can change runaway's settings with `runaway allow`, `runaway setup` or `runaway remove` in their own terminal."

// DefaultBudget bounds the wire's time on one call.
const DefaultBudget = time.Second

// Guarded is what the wire guards: runaway's own files, and the
// environment the agents' settings files are found by.
type Guarded struct {
	ConfigDir string              // runaway's config folder
	StateDir  string              // runaway's state folder
	BinPath   string              // runaway's installed program
	Getenv    func(string) string // the hook's environment
	Budget    time.Duration       // 0: DefaultBudget
}

// Call is one tool call as the wire sees it.
type Call struct {
	Tool  string
	Input json.RawMessage
	Cwd   string // the agent's folder for the call
}

// Kind is the wire's answer.
type Kind uint8

const (
	Pass Kind = iota
	Ask       // the person decides (a new command run outside tool calls)
	Deny
)

// Result is the wire's answer and, unless it passes, the reason (for the
// model and the person).
type Result struct {
	Kind   Kind
	Reason string
	Err    error // what went wrong in the wire, for runaway's error log
}

// Check judges one tool call within the wire's time budget. It never
// panics; what it cannot judge in time is denied when the call names
// anything protected. (A check stuck in a system call, on a hung file
// system, is the hook's deadline's to end: see OverBudget.)
func Check(g Guarded, c Call) (r Result) {
	if !looksAt(c.Tool) {
		return Result{}
	}
	budget := g.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	t := newChecker(g, c.Cwd, time.Now().Add(budget))
	defer func() {
		if p := recover(); p != nil {
			r = t.failClosed(c, "the wire failed on it")
			r.Err = fmt.Errorf("tamper wire panic: %v\n%s", p, debug.Stack())
		}
	}()
	return t.check(c)
}

// OverBudget judges a call the hook had no time to check: denied when it
// names anything protected.
func OverBudget(g Guarded, c Call) Result {
	return newChecker(g, c.Cwd, time.Time{}).failClosed(c, "it could not be judged in time")
}

func (t *checker) check(c Call) Result {
	t.call(c.Tool, c.Input)
	switch {
	case t.found != nil:
		return Result{Kind: Deny, Reason: t.found.reason()}
	case t.expired():
		return t.failClosed(c, "it could not be judged in time")
	case t.unsureWhy != "":
		return t.failClosed(c, "runaway could not follow it ("+t.unsureWhy+")")
	case t.opaqueWhy != "" && t.touchesProtected(c):
		return Result{Kind: Deny, Reason: "runaway: this call names runaway's files, an agent's settings or an agent, and runaway cannot tell what bash runs in it: " + t.opaqueWhy + "; write it so that what runs is in the command itself. " + hint}
	case t.asked != nil:
		return Result{Kind: Ask, Reason: t.asked.askReason()}
	}
	return Result{}
}

// failClosed denies a call the wire could not judge when its text names
// anything protected (or could make a path at run time: globs, variables).
func (t *checker) failClosed(c Call, why string) Result {
	if !looksAt(c.Tool) {
		return Result{}
	}
	text := string(c.Input)
	if !t.namesProtected(text) {
		return Result{}
	}
	return Result{Kind: Deny, Reason: "runaway: this call names runaway's files or an agent's settings, and " + why + "; the agent may not switch its guard off. " + hint}
}

// namesProtected reports a text that names a protected path, runaway, or
// makes paths only the shell would know (globs, variables, substitutions).
func (t *checker) namesProtected(text string) bool {
	if strings.ContainsAny(text, "*?[$`~") || strings.Contains(text, "..") {
		return true
	}
	low := strings.ToLower(text)
	for _, n := range []string{"runaway", ".claude", ".codex", "settings", "hooks", "/proc/"} {
		if strings.Contains(low, n) {
			return true
		}
	}
	t.resolve()
	for _, n := range t.needles {
		if strings.Contains(text, n) {
			return true
		}
	}
	return false
}

// finding is what the tamper wire matched: an action on a path, or a
// command.
type finding struct {
	action string // "change runaway's own config", "run `runaway allow`", …
	path   string // the path it matched, if any
	why    string // why this switches the guard off, when not obvious
}

func (f *finding) reason() string {
	return f.says() + "; the agent may not switch its guard off. " + hint
}

func (f *finding) askReason() string {
	return f.says() + "; the person decides whether it may."
}

// says is what the call would do, with the path and why.
func (f *finding) says() string {
	s := "runaway: this call would " + f.action
	if f.path != "" {
		s += " (" + f.path + ")"
	}
	if f.why != "" {
		s += ", " + f.why
	}
	return s
}

// deny records the first finding; later ones change nothing.
func (t *checker) deny(f *finding) {
	if f != nil && t.found == nil {
		t.found = f
	}
}

// ask records a change the person must agree to.
func (t *checker) ask(f *finding) {
	if f != nil && t.asked == nil {
		t.asked = f
	}
}

// unsure notes what the wire could not follow; the call is then denied
// when it names anything protected and nothing else was found.
func (t *checker) unsure(why string) {
	if t.unsureWhy == "" {
		t.unsureWhy = why
	}
}

// done reports that the call is decided or out of time: stop looking.
func (t *checker) done() bool {
	return t.found != nil || t.expired()
}

// expired reports the budget spent (looked at every few steps).
func (t *checker) expired() bool {
	if t.timedOut {
		return true
	}
	if t.deadline.IsZero() {
		return false
	}
	if t.steps++; t.steps%64 != 0 {
		return false
	}
	t.timedOut = time.Now().After(t.deadline)
	return t.timedOut
}
