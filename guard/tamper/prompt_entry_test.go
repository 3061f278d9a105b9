package tamper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Setup writes a UserPromptSubmit entry next to the PreToolUse one (it
// blocks a prompt of a session over its cap before it reaches the model),
// and Codex keeps a trust record for each: the agent may drop neither, nor
// untrust either.
func TestTamperPromptSubmitEntry(t *testing.T) {
	th := newTamperHome(t)
	h := th.home
	entry := func(harness string) string {
		return `{"hooks": [{"type": "command", "command": "'` + h + `/.local/bin/runaway' hook ` + harness + ` || true", "timeout": 10}]}`
	}
	claude := `{
  "hooks": {
    "PreToolUse": [` + entry("claude") + `],
    "UserPromptSubmit": [
      {"hooks": [{"type": "command", "command": "/opt/prompt-logger"}]},
      ` + entry("claude") + `
    ]
  }
}
`
	codex := `{
  "hooks": {
    "PreToolUse": [` + entry("codex") + `],
    "UserPromptSubmit": [` + entry("codex") + `]
  }
}
`
	trust := `[hooks.state."` + h + `/.codex/hooks.json:user_prompt_submit:0:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000003"`
	settings := filepath.Join(h, ".claude", "settings.json")
	codexHooks := filepath.Join(h, ".codex", "hooks.json")
	codexConfig := filepath.Join(h, ".codex", "config.toml")
	for path, content := range map[string]string{settings: claude, codexHooks: codex, codexConfig: "model = \"gpt-5.5\"\n\n" + trust + "\n"} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dropPrompt := strings.Replace(claude, `,
      `+entry("claude"), "", 1)
	if dropPrompt == claude {
		t.Fatal("test setup: the UserPromptSubmit entry was not dropped")
	}
	runTamperCases(t, th, []tamperCase{
		{"Write drops the prompt entry", "Write", map[string]any{"file_path": settings, "content": dropPrompt}, true, "runaway's hook entry"},
		{"Edit moves the prompt entry to another event", "Edit", map[string]any{"file_path": settings, "old_string": `"UserPromptSubmit": [`, "new_string": `"Notification": [`}, true, "runaway's hook entry"},
		{"jq deletes UserPromptSubmit", "Bash", bash(`jq 'del(.hooks.UserPromptSubmit)' ~/.claude/settings.json > /tmp/s && mv /tmp/s ~/.claude/settings.json`), true, "settings.json"},
		{"Write codex hooks without the prompt entry", "Write", map[string]any{"file_path": codexHooks, "content": `{"hooks": {"PreToolUse": [` + entry("codex") + `]}}`}, true, "runaway's hook entry"},
		{"Edit codex prompt trust away", "Edit", map[string]any{"file_path": codexConfig, "old_string": trust, "new_string": ""}, true, "trust record of runaway's hook"},
		{"Edit codex prompt trust disabled", "Edit", map[string]any{"file_path": codexConfig, "old_string": trust, "new_string": trust + "\nenabled = false"}, true, "trust record"},

		{"Read settings", "Read", map[string]any{"file_path": settings}, false, ""},
	})
}

// Claude Code 2.1.332's PreSkillShellCommand entry judges the shell commands
// of skills: the agent may not drop it or move it to another event (a skill
// of its own would then run unjudged).
func TestTamperSkillShellEntry(t *testing.T) {
	th := newTamperHome(t)
	h := th.home
	entry := `{"hooks": [{"type": "command", "command": "'` + h + `/.local/bin/runaway' hook claude || true", "timeout": 10}]}`
	claude := `{
  "hooks": {
    "PreToolUse": [` + entry + `],
    "UserPromptSubmit": [` + entry + `],
    "PreSkillShellCommand": [` + entry + `]
  }
}
`
	settings := filepath.Join(h, ".claude", "settings.json")
	if err := os.WriteFile(settings, []byte(claude), 0o644); err != nil {
		t.Fatal(err)
	}
	drop := strings.Replace(claude, `,
    "PreSkillShellCommand": [`+entry+`]`, "", 1)
	if drop == claude {
		t.Fatal("test setup: the PreSkillShellCommand entry was not dropped")
	}
	runTamperCases(t, th, []tamperCase{
		{"Write drops the skill entry", "Write", map[string]any{"file_path": settings, "content": drop}, true, "runaway's hook entry"},
		{"Edit renames the skill event", "Edit", map[string]any{"file_path": settings, "old_string": `"PreSkillShellCommand": [`, "new_string": `"PreSkillShellCommandOff": [`}, true, "runaway's hook entry"},
		{"jq deletes PreSkillShellCommand", "Bash", bash(`jq 'del(.hooks.PreSkillShellCommand)' ~/.claude/settings.json > /tmp/s && mv /tmp/s ~/.claude/settings.json`), true, "settings.json"},
		{"Read settings", "Read", map[string]any{"file_path": settings}, false, ""},
	})
}
