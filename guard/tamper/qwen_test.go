package tamper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const qwenSettingsWithRunaway = `{
  // Qwen Code strips comments
  "privacy": {"usageStatisticsEnabled": false},
  "hooks": {
    "PreToolUse": [
      {"hooks": [{"type": "command", "command": "'HOME/.local/bin/runaway' hook qwen || true", "timeout": 10}]},
      {"matcher": "write_file", "hooks": [{"type": "command", "command": "/opt/fmt-check"}]}
    ]
  }
}
`

// Qwen Code's tools (run_shell_command, write_file, and edit with Claude
// Code's fields) and its settings and env files: the ways an agent in Qwen
// Code switches runaway off, and the ordinary calls that must still pass.
func TestTamperQwen(t *testing.T) {
	th := newTamperHome(t)
	settings := filepath.Join(th.home, ".qwen", "settings.json")
	text := strings.ReplaceAll(qwenSettingsWithRunaway, "HOME", th.home)
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	entry := `{"hooks": [{"type": "command", "command": "'` + th.home + `/.local/bin/runaway' hook qwen || true", "timeout": 10}]},`
	if !strings.Contains(text, entry) {
		t.Fatal("test setup: runaway's entry not found")
	}
	shell := func(cmd string) map[string]any { return map[string]any{"command": cmd, "description": "do it"} }
	write := func(p, content string) map[string]any { return map[string]any{"file_path": p, "content": content} }
	edit := func(p, old, new string) map[string]any {
		return map[string]any{"file_path": p, "old_string": old, "new_string": new}
	}
	cases := []tamperCase{
		// Attacks.
		{"edit config", "edit", edit(filepath.Join(th.home, ".config/runaway/config.json"), "20", "2000"), true, "runaway's own config"},
		{"write_file drops entry", "write_file", write(settings, strings.Replace(text, entry, "", 1)), true, "runaway's hook entry in " + settings},
		{"edit drops entry", "edit", edit(settings, entry, ""), true, "runaway's hook entry"},
		{"edit sets disableAllHooks", "edit", edit(settings, `"privacy": {`, `"disableAllHooks": true, "privacy": {`), true, "disableAllHooks"},
		{"write_file project disableAllHooks", "write_file", write(filepath.Join(th.proj, ".qwen/settings.json"), `{"disableAllHooks": true}`), true, "disableAllHooks"},
		{"shell redirect onto settings", "run_shell_command", shell(`echo '{}' > ~/.qwen/settings.json`), true, settings},
		{"shell sed settings", "run_shell_command", shell(`sed -i '/runaway/d' $HOME/.qwen/settings.json`), true, settings},
		{"shell removes settings", "run_shell_command", shell(`rm -f ~/.qwen/settings.json`), true, settings},
		{"cap raised in qwen's .env", "run_shell_command", shell(`echo RUNAWAY_SESSION_CAP_USD=1000 >> ~/.qwen/.env`), true, "RUNAWAY_SESSION_CAP_USD"},
		{"cap raised in ~/.env", "write_file", write(filepath.Join(th.home, ".env"), "RUNAWAY_SESSION_CAP_USD=1000\n"), true, "RUNAWAY_SESSION_CAP_USD"},
		{"nested qwen, safe mode", "run_shell_command", shell("qwen --safe-mode 'go on' --yolo"), true, "start Qwen Code with --safe-mode"},
		{"nested qwen, other QWEN_HOME", "run_shell_command", shell("QWEN_HOME=/tmp/clean qwen 'go on' --yolo"), true, "start Qwen Code with another QWEN_"},
		{"nested qwen, other system settings", "run_shell_command", shell("QWEN_CODE_SYSTEM_SETTINGS_PATH=/tmp/s.json qwen hi"), true, "start Qwen Code with another"},
		{"nested qwen via npx", "run_shell_command", shell("npx @qwen-code/qwen-code --safe-mode hi"), true, "start Qwen Code with --safe-mode"},
		{"runaway allow", "run_shell_command", shell("~/.local/bin/runaway allow s1 --add 100"), true, "runaway"},

		// Ordinary calls.
		{"shell test", "run_shell_command", shell("npm test"), false, ""},
		{"shell reads settings", "run_shell_command", shell("cat ~/.qwen/settings.json"), false, ""},
		{"nested qwen, same home", "run_shell_command", shell("qwen 'summarise the diff' --yolo"), false, ""},
		{"edit other hook", "edit", edit(settings, "/opt/fmt-check", "/opt/fmt-check --fix"), false, ""},
		{"write_file keeps entry, adds a comment", "write_file", write(settings, "// mine\n"+text), false, ""},
		{"edit project code", "edit", edit(filepath.Join(th.proj, "main.go"), "package x", "package main"), false, ""},
		{"write_file project .env", "write_file", write(filepath.Join(th.proj, "app.env"), "PORT=8080\n"), false, ""},
	}
	runTamperCases(t, th, cases)
	attacks := 0
	for _, c := range cases {
		if c.deny {
			attacks++
		}
	}
	t.Logf("Qwen Code: %d attacks denied, %d ordinary calls passed", attacks, len(cases)-attacks)
}
