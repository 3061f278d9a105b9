package configs

import (
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// Settings is how one agent keeps runaway's hook entry in its user
// settings file: the file, its syntax, the handler's form and events, and
// what in the file may trouble the agent. Each agent's is in its own file
// (claude.go, codex.go, gemini.go) and listed in settings.
type Settings struct {
	Agent agent.ID
	// Name is the file's name in the agent's config folder.
	Name string
	// Strict: the agent rejects comments and trailing commas.
	Strict bool
	// OnlyHooksKey: the file should hold nothing but "hooks".
	OnlyHooksKey bool
	// TimeoutUnit is how the file writes a handler's timeout (0: seconds).
	TimeoutUnit time.Duration
	// More are the events runaway's handler is also written for, after
	// the one before each tool call.
	More []MoreEvent
	// handler turns the POSIX PreToolUse handler (spec) into this agent's
	// form for the binary at bin on p.
	handler func(spec *HookSpec, bin string, p Platform)
	// warnings says what in the file may trouble the agent (nil: nothing).
	warnings func(name string, d *Doc) []string
}

// MoreEvent is one more event runaway's handler runs for.
type MoreEvent struct {
	Event         string
	StatusMessage string // Codex's name for it ("": the tool call's)
	// On says whether the agent on p has the event (nil: every version).
	On func(p Platform) bool
}

// settings lists the agents whose settings file holds runaway's entry.
var settings = []*Settings{&claudeSettings, &codexSettings, &geminiSettings, &qwenSettings}

// noSettings names the agents runaway keeps no entry for in a settings
// file, and why (a slice: nothing to build at start).
var noSettings = []struct {
	agent agent.ID
	why   string
}{
	{agent.Cursor, "it runs Claude Code's hooks"},
	{agent.OpenCode, "runaway is a plugin file in its plugin folder (opencode.go)"},
	{agent.Copilot, "runaway is a hooks file of its own in its hooks folder (copilot.go)"},
}

// NoSettings says why runaway keeps no entry for the agent in a settings
// file, if it says so.
func NoSettings(id agent.ID) (why string, ok bool) {
	for _, n := range noSettings {
		if n.agent == id {
			return n.why, true
		}
	}
	return "", false
}

func settingsOf(id agent.ID) (*Settings, bool) {
	for _, s := range settings {
		if s.Agent == id {
			return s, true
		}
	}
	return nil, false
}

// file is the agent's settings file at path.
func (s *Settings) file(path string) SettingsFile {
	return SettingsFile{Harness: s.Agent, Path: path, Strict: s.Strict, OnlyHooksKey: s.OnlyHooksKey}
}

// promptSubmit: before the agent sends a user's prompt to the model, a
// session already over its cap is blocked (Claude Code, and Codex from
// 0.169, run UserPromptSubmit and honour decision "block").
const promptSubmit = "UserPromptSubmit"
