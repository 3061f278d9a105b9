package configs

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// GitHub Copilot CLI loads every *.json of $COPILOT_HOME/hooks/ (user
// hooks, no trust step, also in -p) besides the person's own hooks: runaway
// wires in with a file of its own there, and never edits theirs (see
// shared/reference/copilot-cli.md §3).
//
// Every path from its entries must exit 0: Copilot CLI denies the tool
// call when a preToolUse hook exits non-zero, crashes or cannot be started,
// so a runaway that is gone or broken would block every call. The commands
// therefore end in `|| true` (POSIX) and `exit 0` (PowerShell), and runaway
// keeps its own deadline well under timeoutSec: a hook that times out lets
// the call through.

// The events runaway's file hooks: before each tool call, and the
// permission request that follows the calls that need one (shell and file
// writes), whose deny with interrupt: true ends the turn with no further
// model request.
const (
	CopilotToolEvent       = "preToolUse"
	CopilotPermissionEvent = "permissionRequest"
)

// CopilotHooksName is runaway's file in Copilot CLI's hooks folder.
const CopilotHooksName = "runaway.json"

// CopilotHooksPath is where setup writes runaway's hooks file.
func CopilotHooksPath() string {
	return filepath.Join(agent.Of(agent.Copilot).ConfigDir(Env), "hooks", CopilotHooksName)
}

// copilotHooks is the hooks file as Copilot CLI reads it.
type copilotHooks struct {
	Version int                             `json:"version"`
	Hooks   map[string][]copilotHookCommand `json:"hooks"`
}

type copilotHookCommand struct {
	Type       string   `json:"type"`
	Bash       string   `json:"bash,omitempty"`
	PowerShell string   `json:"powershell,omitempty"`
	Exec       string   `json:"exec,omitempty"`
	Args       []string `json:"args,omitempty"`
	TimeoutSec int      `json:"timeoutSec"`
}

// CopilotHooks is runaway's hooks file running the binary at bin on p:
// the bash form on POSIX, the PowerShell form on Windows (Copilot CLI runs
// one or the other by the system it is on).
func CopilotHooks(bin string, p Platform) []byte {
	cmd := copilotHookCommand{Type: "command", TimeoutSec: HookTimeout}
	if p.windows() {
		cmd.PowerShell = copilotPowerShell(strings.ReplaceAll(bin, `\`, "/"))
	} else {
		cmd.Bash = HookCommand(bin, agent.Copilot)
	}
	f := copilotHooks{Version: 1, Hooks: map[string][]copilotHookCommand{
		CopilotToolEvent:       {cmd},
		CopilotPermissionEvent: {cmd},
	}}
	return encodeCopilotHooks(f)
}

// CopilotPolicyHooks is runaway's policy hooks file (a system install's)
// running the root-owned binary at bin with no shell: the agent's user
// could put a bash of its own first on the PATH Copilot CLI finds a shell
// on. Its exit is runaway's own, 0 on every path; a binary gone from
// under a system install is a deny of every call, which only root can
// cause or mend.
func CopilotPolicyHooks(bin string) []byte {
	cmd := copilotHookCommand{Type: "command", Exec: bin, Args: []string{"hook", string(agent.Copilot)}, TimeoutSec: HookTimeout}
	return encodeCopilotHooks(copilotHooks{Version: 1, Hooks: map[string][]copilotHookCommand{
		CopilotToolEvent:       {cmd},
		CopilotPermissionEvent: {cmd},
	}})
}

func encodeCopilotHooks(f copilotHooks) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // PowerShell's & stays readable
	enc.SetIndent("", "  ")
	_ = enc.Encode(f)
	return buf.Bytes()
}

// copilotPowerShell runs runaway when it is there and exits 0 whatever it
// did: PowerShell's exit code is the last command's otherwise.
func copilotPowerShell(bin string) string {
	return GuardedPowerShellCommand(bin, "hook", string(agent.Copilot)) + "; exit 0"
}

// IsCopilotHooks reports whether data is a hooks file of runaway's, of
// any version: every command in it runs `hook copilot`, and it has one.
func IsCopilotHooks(data []byte) bool {
	return len(CopilotHooksBinaries(data)) > 0
}

// CopilotHooksBinaries are the runaway programs a hooks file of runaway's
// runs, one per entry; nil when any entry is not runaway's or the file does
// not parse.
func CopilotHooksBinaries(data []byte) []string {
	var f copilotHooks
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\uFEFF")), &f) != nil {
		return nil
	}
	var bins []string
	for _, cmds := range f.Hooks {
		for _, c := range cmds {
			bin := copilotCommandBinary(c)
			if bin == "" {
				return nil
			}
			bins = append(bins, bin)
		}
	}
	return bins
}

// copilotCommandBinary is the program an entry runs when it runs `hook
// copilot`, else "".
func copilotCommandBinary(c copilotHookCommand) string {
	if c.Exec != "" {
		if len(c.Args) == 2 && c.Args[0] == "hook" && c.Args[1] == string(agent.Copilot) {
			return c.Exec
		}
		return ""
	}
	if c.Bash != "" {
		words := ShellWords(c.Bash)
		if len(words) == 3 && words[1] == "hook" && words[2] == string(agent.Copilot) {
			return words[0]
		}
		return ""
	}
	words := powerShellWords(strings.TrimSuffix(c.PowerShell, "; exit 0"))
	if len(words) >= 3 && words[len(words)-2] == "hook" && words[len(words)-1] == string(agent.Copilot) {
		return words[0]
	}
	return ""
}
