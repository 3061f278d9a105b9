package configs

import (
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// codexSettings: $CODEX_HOME/hooks.json, strict JSON with nothing but
// "hooks" (some Codex versions reject a hooks.json with any other
// top-level key). The entries carry names (statusMessage). On Windows
// "command" stays the POSIX form (it is what Codex's trust hash covers)
// and "commandWindows" is `& 'C:\…\runaway.exe' hook codex` for the
// PowerShell Codex runs it in: without the call operator a quoted path is
// echoed and nothing runs.
var codexSettings = Settings{
	Agent: agent.Codex, Name: "hooks.json", Strict: true, OnlyHooksKey: true,
	More: []MoreEvent{{Event: promptSubmit, StatusMessage: CodexPromptName}},
	handler: func(spec *HookSpec, bin string, p Platform) {
		spec.StatusMessage = CodexToolName
		if p.windows() {
			spec.CommandWindows = PowerShellCommand(strings.ReplaceAll(bin, "/", `\`), "hook", string(agent.Codex))
		}
	},
}

// CodexHooks is Codex's user hooks file.
func CodexHooks() SettingsFile { sf, _ := SettingsFor(agent.Codex); return sf }
