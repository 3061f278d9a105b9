package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// `runaway setup --yes` then `runaway remove --yes` gives back the agents'
// settings files byte for byte, and a new run of each agent no longer calls
// runaway's hook.
func TestRemoveRestoresSettingsAndUnhooksAgents(t *testing.T) {
	requireCommand(t, "hook")
	requireCommand(t, "setup")
	requireCommand(t, "remove")
	claudeAgent.require(t)
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	claudeSrv := newAnthropicServer(t, claudeScript{Main: []claudeTurn{bash("echo hi", claudeUsage{Input: 100})}})
	codexSrv := newOpenAIServer(t, codexScript{Turns: []codexTurn{{Cmd: "echo hi", Usage: codexUsage{Input: 100}}}})
	s.writeCodexConfig(codexSrv)
	// A person's settings, formatted their way, with another tool's hook.
	s.writeFile(s.claudeSettings(), "{\n    \"permissions\": { \"allow\": [\"Bash(ls:*)\"] },\n    \"hooks\": {\n        \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"true\" } ] } ]\n    }\n}\n")
	files := []string{s.claudeSettings(), s.codexHooks(), filepath.Join(s.codexDir, "config.toml")}
	before := map[string]*string{}
	for _, f := range files {
		before[f] = readMaybe(f)
	}

	if r := s.runaway("setup", "--yes"); r.Code != 0 {
		t.Fatalf("runaway setup --yes: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	c1 := s.runClaude(claudeSrv, "hi", claudeOpts{Model: "claude-haiku-4-5"})
	x1 := s.runCodex(codexSrv, "hi", nil)
	states := s.sessionStates()
	for _, want := range []string{"claude-" + c1.Result.SessionID + ".json", "codex-" + x1.Session() + ".json"} {
		if !slices.Contains(states, want) {
			t.Fatalf("after setup, runaway has no state %s: its hook did not run (states: %v)", want, states)
		}
	}

	if r := s.runaway("remove", "--yes"); r.Code != 0 {
		t.Fatalf("runaway remove --yes: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, f := range files {
		after := readMaybe(f)
		switch {
		case before[f] == nil && after != nil:
			t.Errorf("%s did not exist before setup; after remove it holds:\n%s", f, *after)
		case before[f] != nil && after == nil:
			t.Errorf("%s was removed; before setup it held:\n%s", f, *before[f])
		case before[f] != nil && *before[f] != *after:
			t.Errorf("%s differs from before setup:\nbefore:\n%s\nafter:\n%s", f, *before[f], *after)
		}
	}

	c2 := s.runClaude(claudeSrv, "hi", claudeOpts{Model: "claude-haiku-4-5"})
	x2 := s.runCodex(codexSrv, "hi", nil)
	states = s.sessionStates()
	for _, gone := range []string{"claude-" + c2.Result.SessionID + ".json", "codex-" + x2.Session() + ".json"} {
		if slices.Contains(states, gone) {
			t.Errorf("after remove, runaway's hook still ran: state %s exists", gone)
		}
	}
	if got := x2.Executed(); len(got) != 1 {
		t.Errorf("codex after remove: commands run %v, want the one call", got)
	}
}

func readMaybe(path string) *string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b)
	return &s
}
