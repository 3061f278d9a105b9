package configs

import (
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// claudeSettings: $CLAUDE_CONFIG_DIR/settings.json, strict JSON. On
// Windows, Claude Code 2.1.139+ runs the exec form ("command" the .exe,
// "args" ["hook", "claude"]: no shell, no quoting); an older one gets
// `"C:/…/runaway.exe" hook claude || true` with "shell": "bash": Git Bash
// eats backslashes, and PowerShell reads a quoted path as a string and `||`
// as a parse error (5.1).
var claudeSettings = Settings{
	Agent: agent.Claude, Name: "settings.json", Strict: true,
	More: []MoreEvent{
		{Event: promptSubmit},
		{Event: ClaudeBatchEvent},
		// An older Claude Code takes the key for a misplaced guard.
		{Event: ClaudeSkillShellEvent, On: func(p Platform) bool { return p.ClaudeSkillShell }},
	},
	handler: func(spec *HookSpec, bin string, p Platform) {
		if !p.windows() {
			if p.NoShell {
				spec.Command, spec.Args = bin, []string{"hook", string(agent.Claude)}
			}
			return
		}
		fwd := strings.ReplaceAll(bin, `\`, "/")
		if p.ClaudeExecForm {
			spec.Command, spec.Args = fwd, []string{"hook", string(agent.Claude)}
		} else {
			spec.Command, spec.Shell = bashDoubleQuote(fwd)+" hook claude || true", "bash"
		}
	},
	warnings: func(name string, d *Doc) []string {
		var v struct {
			DisableAllHooks bool `json:"disableAllHooks"`
		}
		if d.Value(&v) == nil && v.DisableAllHooks {
			return []string{name + " sets disableAllHooks: Claude Code runs none of its hooks, runaway's included"}
		}
		return nil
	},
}

// ClaudeSkillShellEvent is Claude Code's event (from 2.1.332) before each
// shell command a skill's or a slash command's text runs as it loads: those
// commands never reach PreToolUse, so a loop or a tamper attempt inside a
// skill is judged only there.
const ClaudeSkillShellEvent = "PreSkillShellCommand"

// ClaudeBatchEvent is Claude Code's event after a response's calls ran,
// before the next model request: a response Claude Code wrote to its
// transcript after the calls' hooks ran is counted there, and continue:
// false ends the turn before the model is asked again
// (stopping-observed.md §4).
const ClaudeBatchEvent = "PostToolBatch"

// ClaudeSettings is Claude Code's user settings file.
func ClaudeSettings() SettingsFile { sf, _ := SettingsFor(agent.Claude); return sf }

// ClaudeProjectFile is a Claude Code project settings file at path.
func ClaudeProjectFile(path string) SettingsFile { return claudeSettings.file(path) }
