package configs

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// GeminiEvent, GeminiModelEvent and GeminiChunkEvent are Gemini CLI's
// events before a tool call, before a model request and after each chunk
// of a model's streamed response.
const (
	GeminiEvent      = "BeforeTool"
	GeminiModelEvent = "BeforeModel"
	GeminiChunkEvent = "AfterModel"
)

// geminiSettings: $GEMINI_CLI_HOME/.gemini/settings.json. Gemini CLI reads
// comments in it (not trailing commas), so it is not strict: comments stay.
// Its event is BeforeTool, its timeout is in milliseconds, the handler has
// a name (its messages and its hooksConfig.disabled list use it), and the
// command is guarded against a missing program instead of ending in
// `|| true`: Gemini CLI blocks every call when a hook exits 127, and
// `|| true` would keep its timeout from reaching runaway (see
// shared/reference/gemini-cli-observed.md §4). On Windows, for the
// PowerShell it runs hooks in (it passes the exit code on itself):
// `if (Test-Path -LiteralPath 'C:/…/runaway.exe') { & 'C:/…/runaway.exe' hook gemini }`.
// BeforeModel: a deny there aborts the turn before the request is sent (a
// resumed session over its cap spends nothing more). AfterModel: each chunk
// carries the response's usage so far, so the chunk that crosses the cap
// ends the run with continue: false before its calls run, and a response
// Gemini CLI never writes to its session file (aborted, or stopped there)
// is still counted (stopping-observed.md §3).
var geminiSettings = Settings{
	Agent: agent.Gemini, Name: "settings.json", TimeoutUnit: time.Millisecond,
	More: []MoreEvent{{Event: GeminiModelEvent}, {Event: GeminiChunkEvent}},
	handler: func(spec *HookSpec, bin string, p Platform) {
		spec.Event, spec.Name, spec.Timeout = GeminiEvent, "runaway", HookTimeout*1000
		spec.Command = GuardedHookCommand(bin, agent.Gemini)
		if p.windows() {
			spec.Command = GuardedPowerShellCommand(strings.ReplaceAll(bin, `\`, "/"), "hook", string(agent.Gemini))
			return
		}
		if p.NoShell {
			spec.Env = geminiSystemEnv
		}
	},
}

// geminiSystemEnv is set on a system install's entry. Gemini CLI runs a
// handler as `bash -c COMMAND`, finding bash on the PATH of the
// environment it gives the handler, and bash first runs the file BASH_ENV
// names: the agent's user must choose neither (a ~/.local/bin/bash ahead of
// /usr/bin on the person's PATH would answer every call in runaway's
// place). The entry's env is laid over Gemini CLI's own (0.61.0,
// executeCommandHook), and node looks the program up on that PATH.
var geminiSystemEnv = jsonObject{{"PATH", "/usr/bin:/bin"}, {"BASH_ENV", ""}}

// GeminiSettings is Gemini CLI's user settings file.
func GeminiSettings() SettingsFile { sf, _ := SettingsFor(agent.Gemini); return sf }

// GeminiHome is Gemini CLI's home, which holds its .gemini folder:
// $GEMINI_CLI_HOME (which replaces the home for all of Gemini CLI's files),
// else the home.
func GeminiHome() string { return filepath.Dir(agent.Of(agent.Gemini).ConfigDir(Env)) }
