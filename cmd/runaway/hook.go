package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

func init() { register(newHookCmd) }

func newHookCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hook [claude|codex|gemini|opencode]",
		Short: "Answer one tool call (run by the agent before every tool call)",
		Long: `hook reads one tool call's JSON from stdin, as the agent sends it before
running the tool, and answers on stdout in the agent's own format: nothing
(go on), a warning, ask the person, deny, or end the turn.

The agent is told from the input itself; the argument is only a hint.
OpenCode runs it from runaway's plugin (see runaway setup), before every
tool call and every model request.
hook always exits 0: whatever goes wrong ends in "no decision" and a line
in runaway's error log.`,
		// The agent's command line must never make the hook fail: no flag
		// parsing, any arguments.
		DisableFlagParsing: true,
		Example: `  # what an agent runs before a tool call; the answer is on stdout
  echo '{"session_id":"try","tool_name":"Bash","tool_input":{"command":"ls"}}' | runaway hook claude`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asksForHelp(args) {
				return cmd.Help()
			}
			runHook(args)
			return nil
		},
	}
}

// runHook is the hook path. Main calls it before building the CLI, so a
// tool call pays for nothing else.
func runHook(args []string) {
	hint := ""
	if len(args) > 0 {
		hint = args[0]
	}
	if hint == "--self-test" {
		selfTest(args[1:])
		return
	}
	dirs := ownfiles.OwnDirs()
	h := &guard.Hook{
		StateDir:   dirs.State,
		ConfigPath: dirs.ConfigFile(),
		BinPath:    dirs.Bin,
		Stderr:     os.Stderr,
		System:     shareSystemState(),
	}
	if term.IsTerminal(os.Stdin.Fd()) {
		// A person at a terminal, not an agent: say what the command wants
		// instead of waiting for input until the deadline.
		fmt.Fprintln(os.Stderr, "runaway: hook reads one tool call's JSON on stdin; the agent runs it before every tool call")
		fmt.Fprintln(os.Stderr, "hint: runaway hook --help")
		return
	}
	exitZeroOnSignals()
	h.Run(os.Stdin, os.Stdout, hint)
}

// selfTest prints the agent's sample call for doctor's live test
// (`runaway hook --self-test <agent> <transcript>`, not in the help): a
// JSON object with the call and its session file's content. It writes no
// file; doctor writes the transcript and runs the agent's entry with the
// call. Like every hook path it exits 0; an error leaves stdout empty.
func selfTest(args []string) {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "runaway: hook --self-test takes an agent and a transcript path")
		return
	}
	id, _ := agent.Parse(args[0])
	st, err := guard.Sample(id, args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "runaway:", err)
		return
	}
	out, _ := json.Marshal(st)
	os.Stdout.Write(append(out, '\n'))
}

// exitZeroOnSignals keeps the hook's exit status 0 when the agent stops
// it (SIGTERM at its timeout) or stops reading its answer (a closed stdout
// pipe, which would kill the process with SIGPIPE): an entry without
// `|| true` must not read either as a failed hook.
func exitZeroOnSignals() {
	signal.Ignore(syscall.SIGPIPE) // the write fails with EPIPE instead
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	go func() {
		<-term
		os.Exit(0)
	}()
}

// shareSystemState readies a process that writes a system install's
// shared state folder, and reports whether there is one.
func shareSystemState() bool {
	if !ownfiles.SystemMode() {
		return false
	}
	sysmode.ShareWithGroup()
	guard.UseSystemInstall()
	return true
}

// stateDir is runaway's state folder: the system install's, else
// $XDG_STATE_HOME/runaway.
func stateDir() string { return ownfiles.OwnDirs().State }
