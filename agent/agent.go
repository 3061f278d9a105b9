// Package agent holds what runaway knows about each coding agent as facts:
// its id and names, the npm packages and programs it ships as, the
// variables it sets for the commands its tool calls run, where it keeps its
// config, and how one of its sessions is resumed. Every other layer imports
// it and keeps its own per-agent knowledge (settings shape, session format,
// answer dialect, protected files, support text) in one file per agent,
// registered in that layer's table; TestEveryLayerKnowsEveryAgent checks
// that none is missing.
//
// It imports nothing of runaway's, and nothing that runs at start-up: the
// facts are composite literals the linker lays out, so the hook pays
// nothing for them.
package agent

import (
	"path/filepath"
	"strings"
)

// ID names an agent: in flags (--harness claude), in `runaway hook <id>`,
// in state file names and in every output. It is the one spelling people
// see; Parse also takes the aliases.
type ID string

// The agents runaway knows.
const (
	Claude   ID = "claude"
	Codex    ID = "codex"
	Copilot  ID = "copilot"
	Cursor   ID = "cursor"
	Gemini   ID = "gemini"
	OpenCode ID = "opencode"
	Qwen     ID = "qwen"
)

// Env reads an environment variable ("" when unset): os.Getenv, the hook's
// own Getenv, or a test's map.
type Env func(string) string

// Dir is a folder an agent keeps its files in: the folder Var names, else
// Default under the home; then Sub within it.
type Dir struct {
	Var     string // the variable that moves it ("" when none does)
	Default string // relative to HOME, used when Var is unset
	Sub     string // relative to the folder Var (or Default) names
}

// Resolve is the folder under env ("" when neither Var nor HOME is set).
// A Var holding a relative path counts as set, as the agents take it.
func (d Dir) Resolve(env Env) string {
	base := ""
	if d.Var != "" {
		base = env(d.Var)
	}
	if base == "" {
		h := env("HOME")
		if h == "" {
			return ""
		}
		base = filepath.Join(h, d.Default)
	}
	return filepath.Join(base, d.Sub)
}

// Facts is what runaway knows about one agent as data.
type Facts struct {
	ID ID
	// Name is its name for people: "Claude Code".
	Name string
	// Aliases are other spellings Parse accepts ("claude-code").
	Aliases []string
	// Packages are the npm packages it ships as: setup reads its version
	// from their package.json, and node running a script from one is it.
	Packages []string
	// ScriptMarks mark its script when an interpreter (node, bun) runs it
	// and it has no package of its own (Cursor's @cursor/ scope).
	ScriptMarks []string
	// Programs are its program names (lower case, without ".exe").
	Programs []string
	// CallVars are the variables it sets for the commands its tool calls
	// run (see shared/reference): one of them set means an agent's call.
	CallVars []string
	// Config is its config folder (settings, hooks), Config.Var the
	// variable that moves it.
	Config Dir
	// Resume, when set, names the commands that resume a session: in a
	// terminal, and without one (claude -p, codex exec).
	Resume func(session string) (interactive, script string)
}

// ConfigDir is the agent's config folder under env.
func (f *Facts) ConfigDir(env Env) string { return f.Config.Resolve(env) }

// All lists every agent runaway knows, in the order people see them. A
// new agent is one file (its Facts) and one line here.
var All = []*Facts{&claude, &codex, &cursor, &gemini, &openCode, &qwen, &copilot}

// Lookup returns the facts of the agent with that id.
func Lookup(id ID) (*Facts, bool) {
	for _, f := range All {
		if f.ID == id {
			return f, true
		}
	}
	return nil, false
}

// Of returns the facts of id; an id not in All gets facts with only its
// ID and Name set, so that callers never hold nil.
func Of(id ID) *Facts {
	if f, ok := Lookup(id); ok {
		return f
	}
	return &Facts{ID: id, Name: string(id)}
}

// Name is the agent's name for people, or the id itself when unknown.
func (id ID) Name() string { return Of(id).Name }

// Parse reads an agent's id or one of its aliases, in any case, as people
// type them on the command line.
func Parse(s string) (ID, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, f := range All {
		if s == string(f.ID) {
			return f.ID, true
		}
		for _, a := range f.Aliases {
			if s == a {
				return f.ID, true
			}
		}
	}
	return "", false
}

// IDs lists every agent's id, in All's order.
func IDs() []ID {
	out := make([]ID, len(All))
	for i, f := range All {
		out[i] = f.ID
	}
	return out
}
