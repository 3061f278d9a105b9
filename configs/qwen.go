package configs

import (
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// qwenSettings: $QWEN_HOME/settings.json (default ~/.qwen/settings.json),
// in Claude Code's hook layout. Qwen Code strips comments before it parses
// the file (strip-json-comments in 0.24.4's loadSettings), so comments stay;
// trailing commas it rejects, and resets a file it cannot parse. Its
// timeout is in seconds: 0.24.4 reads a value of 1000 or more as legacy
// milliseconds, and its hooks.md still says milliseconds
// (shared/reference/qwen-code.md §3.1), so HookTimeout (10) reads the same
// either way it is taken. UserPromptSubmit: a session over its cap is
// blocked before the prompt reaches the model. On Windows it runs a
// command through cmd.exe unless "shell" says otherwise: runaway's entry
// is PowerShell's `& 'C:\…\runaway.exe' 'hook' 'qwen'`, with "shell":
// "powershell" (read in the bundle, not run on Windows).
var qwenSettings = Settings{
	Agent: agent.Qwen, Name: "settings.json",
	More: []MoreEvent{{Event: promptSubmit}},
	handler: func(spec *HookSpec, bin string, p Platform) {
		if p.windows() {
			spec.Command = PowerShellCommand(strings.ReplaceAll(bin, "/", `\`), "hook", string(agent.Qwen))
			spec.Shell = "powershell"
		}
	},
	warnings: func(name string, d *Doc) []string {
		var v struct {
			DisableAllHooks bool `json:"disableAllHooks"`
		}
		if d.Value(&v) == nil && v.DisableAllHooks {
			return []string{name + " sets disableAllHooks: Qwen Code runs none of its hooks, runaway's included"}
		}
		return nil
	},
}

// QwenSettings is Qwen Code's user settings file.
func QwenSettings() SettingsFile { sf, _ := SettingsFor(agent.Qwen); return sf }
