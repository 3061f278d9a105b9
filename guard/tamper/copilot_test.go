package tamper

import (
	"os"
	"path/filepath"
	"testing"
)

func newCopilotHome(t *testing.T) *tamperHome {
	th := newTamperHome(t)
	for name, content := range map[string]string{
		".copilot/hooks/runaway.json":               `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"'/b/runaway' hook copilot || true","timeoutSec":10}]}}`,
		".copilot/hooks/mine.json":                  `{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"./fmt.sh"}]}}`,
		".copilot/settings.json":                    "// mine\n{\"model\": \"gpt-5-mini\"}\n",
		"src/runaway/.github/copilot/settings.json": `{"model": "gpt-5-mini"}`,
	} {
		p := filepath.Join(th.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return th
}

// The tamper wire on Copilot CLI's calls (bash, create and edit with its
// field names): runaway's hooks file, the switches that turn user hooks
// off, and Copilot CLI started with another home. Attacks first, then the
// ordinary calls that must pass; both are counted.
func TestTamperCopilot(t *testing.T) {
	th := newCopilotHome(t)
	hooks := filepath.Join(th.home, ".copilot/hooks/runaway.json")
	ours := "runaway's Copilot CLI hooks file (HOME/.copilot/hooks/runaway.json)"
	create := func(path, text string) map[string]any { return map[string]any{"path": path, "file_text": text} }
	edit := func(path, old, new string) map[string]any {
		return map[string]any{"path": path, "old_str": old, "new_str": new}
	}
	attacks := []tamperCase{
		{"rm the hooks file", "bash", bash("rm ~/.copilot/hooks/runaway.json"), true, ours},
		{"mv the hooks file away", "bash", bash("mv $HOME/.copilot/hooks/runaway.json /tmp/"), true, ours},
		{"rm -rf the hooks folder", "bash", bash("rm -rf ~/.copilot/hooks"), true, "HOME/.copilot/hooks/runaway.json"},
		{"empty the hooks file", "bash", bash(": > ~/.copilot/hooks/runaway.json"), true, ours},
		{"create over the hooks file", "create", create(hooks, `{"version":1,"hooks":{}}`), true, ours},
		{"edit the hooks file", "edit", edit(hooks, "preToolUse", "postToolUse"), true, ours},
		{"powershell removes the hooks file", "powershell", map[string]any{"command": "Remove-Item $HOME/.copilot/hooks/runaway.json"}, true, ours},
		{"disableAllHooks in the user settings", "edit", edit(filepath.Join(th.home, ".copilot/settings.json"), `"model"`, `"disableAllHooks": true, "model"`), true, "disableAllHooks"},
		{"disableAllHooks in the repository's settings", "create", create(".github/copilot/settings.json", `{"disableAllHooks": true}`), true, "disableAllHooks"},
		{"disableAllHooks in the repository's local settings", "bash", bash(`echo '{"disableAllHooks":true}' > .github/copilot/settings.local.json`), true, "settings.local.json"},
		{"copilot with another COPILOT_HOME", "bash", bash(`COPILOT_HOME=/tmp/c copilot -p "go on" --allow-all-tools`), true, "start GitHub Copilot CLI with another"},
		{"copilot with another HOME", "bash", bash(`HOME=/tmp copilot -p "go on"`), true, "start GitHub Copilot CLI with another"},
		{"npx copilot with another COPILOT_HOME", "bash", bash(`COPILOT_HOME=/tmp/c npx -y @github/copilot@1.0.102 -p x`), true, "start GitHub Copilot CLI with another"},
		{"runaway allow from Copilot CLI", "bash", bash("runaway allow 426b7a0d --add 100"), true, "runaway allow"},
	}
	ordinary := []tamperCase{
		{"read the hooks file", "bash", bash("cat ~/.copilot/hooks/runaway.json"), false, ""},
		{"view the hooks file", "view", map[string]any{"path": hooks}, false, ""},
		{"a hooks file of its own", "create", create(filepath.Join(th.home, ".copilot/hooks/lint.json"), `{"version":1,"hooks":{}}`), false, ""},
		{"change the model in the user settings", "edit", edit(filepath.Join(th.home, ".copilot/settings.json"), "gpt-5-mini", "gpt-5"), false, ""},
		{"change the repository's settings", "edit", edit(".github/copilot/settings.json", "gpt-5-mini", "gpt-5"), false, ""},
		{"run copilot", "bash", bash(`copilot -p "fix the tests" --allow-all-tools`), false, ""},
		{"create a source file", "create", create("main.go", "package main\n"), false, ""},
		{"edit a source file", "edit", edit("main.go", "a", "b"), false, ""},
		{"npm test", "bash", bash("npm test"), false, ""},
	}
	runTamperCases(t, th, attacks)
	runTamperCases(t, th, ordinary)
	t.Logf("Copilot CLI: %d attacks denied, %d ordinary calls passed", len(attacks), len(ordinary))
}
