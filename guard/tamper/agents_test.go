package tamper

import (
	"path/filepath"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// TestAgentRowsAreWhole: every row is an agent package agent knows, with
// programs to recognise it by; every file has a kind and a folder; a
// hooks file can be read for its commands; a kind only the tripwire or
// git looks at is still judged somewhere (owned, or a change rule).
func TestAgentRowsAreWhole(t *testing.T) {
	seen := map[agent.ID]bool{}
	for _, a := range agents {
		f, ok := agent.Lookup(a.id)
		switch {
		case !ok:
			t.Errorf("tamper row %q: not in agent.All", a.id)
			continue
		case seen[a.id]:
			t.Errorf("tamper row %q: listed twice", a.id)
		case len(f.Programs) == 0:
			t.Errorf("tamper row %q: its facts name no program, so a nested run is not recognised", a.id)
		}
		if _, none := NoRules(a.id); none {
			t.Errorf("tamper row %q: also in noRules", a.id)
		}
		seen[a.id] = true
		if len(a.files) == 0 {
			t.Errorf("tamper row %q: guards no file", a.id)
		}
		for _, file := range append(append([]agentFile{}, a.files...), a.anywhere...) {
			k := file.kind
			if k == nil || file.name == "" {
				t.Errorf("tamper row %q: a file without a kind or a name: %+v", a.id, file)
				continue
			}
			if k.what == "" {
				t.Errorf("tamper row %q: %s's kind has no noun for people", a.id, file.name)
			}
			if k.hooks && (k.parse == nil || k.change == nil) {
				t.Errorf("tamper row %q: %s holds hooks but has no parse or change rule", a.id, file.name)
			}
			if !k.own && k.change == nil && !k.env {
				t.Errorf("tamper row %q: %s is neither runaway's own nor judged by a change rule", a.id, file.name)
			}
		}
		for _, file := range a.files {
			if file.dirEnv == "" {
				t.Errorf("tamper row %q: %s names no folder variable", a.id, file.name)
			}
		}
		for _, file := range a.anywhere {
			if filepath.IsAbs(file.name) {
				t.Errorf("tamper row %q: %s is matched as the path's last elements, so it must be relative", a.id, file.name)
			}
		}
	}
}

// TestAgentNamesFromFacts: a nested agent is recognised by the program,
// package and script names its facts give.
func TestAgentNamesFromFacts(t *testing.T) {
	for _, c := range []struct{ pkg, script, want string }{
		{"anthropic-ai/claude-code", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "claude"},
		{"openai/codex", "/usr/lib/node_modules/@openai/codex/bin/codex.js", "codex"},
		{"google/gemini-cli", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js", "gemini"},
		{"opencode-ai", "/home/a/.local/bin/opencode", "opencode"},
	} {
		if got := agentPackage(c.pkg); got != c.want {
			t.Errorf("agentPackage(%q) = %q, want %q", c.pkg, got, c.want)
		}
		if got := agentScript(c.script); got != c.want {
			t.Errorf("agentScript(%q) = %q, want %q", c.script, got, c.want)
		}
	}
	for _, s := range []string{"left-pad", "typescript", "/work/app/index.js"} {
		if got := agentPackage(s) + agentScript(s); got != "" {
			t.Errorf("%q is taken for agent %q", s, got)
		}
	}
}
