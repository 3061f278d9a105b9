package guard

import "strings"

// Codex's hooks cannot end a running turn: no answer to PreToolUse,
// PostToolUse, Pre/PostModelRequest or Stop does (and Stop with
// decision:block re-prompts forever). SIGINT to the codex process that ran
// the hook does (stop_process.go): `codex exec` interrupts the turn before
// the call runs and sends no further request; the TUI dies of it. See
// stopping-observed.md §1.

// codexEnder ends Codex's run by the mode its arguments tell.
var codexEnder = ender{mode: func(p proc) endMode { return codexModeOf(p.args()) }}

// The modes of the codex process that ran the hook.
const (
	codexExec   = endRun   // codex exec, codex review: one run, no terminal of its own
	codexTUI    = endTUI   // the terminal UI (codex, codex resume, codex fork)
	codexServer = endNever // app-server, mcp-server, …: it serves other sessions too
)

// codexValueFlags are codex's options that take their value as the next
// argument, so that the value is not taken for the subcommand.
var codexValueFlags = map[string]bool{
	"-c": true, "--config": true, "-m": true, "--model": true, "-p": true, "--profile": true,
	"-C": true, "--cd": true, "-s": true, "--sandbox": true, "-a": true, "--ask-for-approval": true,
	"-i": true, "--image": true, "--enable": true, "--disable": true, "--add-dir": true,
	"--local-provider": true, "--color": true, "-o": true, "--output-last-message": true,
	"--output-schema": true,
}

// codexModeOf tells the mode from the codex process's arguments: the first
// one that is neither an option nor an option's value is the subcommand,
// or the TUI's prompt. Subcommands not known to run a TUI or a single run
// count as serving others: runaway does not end what it cannot tell.
func codexModeOf(args []string) endMode {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return codexTUI // a prompt follows
		}
		if strings.HasPrefix(a, "-") {
			if codexValueFlags[a] {
				i++
			}
			continue
		}
		switch a {
		case "exec", "e", "review":
			return codexExec
		case "resume", "fork":
			return codexTUI
		case "app-server", "mcp-server", "mcp", "proto", "cloud", "login", "logout", "apply", "a",
			"sandbox", "debug", "completion", "features", "responses-api-proxy", "stdio-to-uds", "help":
			return codexServer
		}
		return codexTUI // the TUI's prompt
	}
	return codexTUI
}
