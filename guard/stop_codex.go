package guard

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// Codex's hooks cannot end a running turn: no answer to PreToolUse,
// PostToolUse, Pre/PostModelRequest or Stop does (and Stop with
// decision:block re-prompts forever), so a deny at the cap leaves the model
// asked again after every denied call. SIGINT to the codex process that ran
// the hook does end it: `codex exec` interrupts the turn before the call
// runs and sends no further request (it kills the hook within milliseconds,
// so everything is saved before the signal); the TUI dies of it, leaving its
// terminal raw, which runaway repairs. See stopping-observed.md §1.

// codexMode is how the codex process that ran the hook runs.
type codexMode int

const (
	codexExec   codexMode = iota // codex exec, codex review: one run, no terminal of its own
	codexTUI                     // the terminal UI (codex, codex resume, codex fork)
	codexServer                  // app-server, mcp-server, …: it serves other sessions too
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
func codexModeOf(args []string) codexMode {
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

// codexEnd interrupts the codex process that ran the hook.
type codexEnd struct {
	agent proc
	tty   string // the TUI's terminal, repaired once it is gone
	tui   bool
	lines []string
	next  []string
	how   string
}

// planCodexEnd finds the codex process that ran this hook. It returns nil
// with no error when that process was ended already (the hooks of the
// same response's other calls) and an error when it cannot be ended: not
// found, or an app-server, whose other sessions a signal would end too.
func planCodexEnd(s *Session, v Verdict) (*codexEnd, error) {
	p, err := agentAncestor("codex")
	if err != nil {
		return nil, fmt.Errorf("%w; denying every call instead", err)
	}
	if e := s.Ended; e != nil && e.PID == p.pid && e.Start == p.start {
		return nil, nil
	}
	mode := codexModeOf(p.args())
	if mode == codexServer {
		return nil, fmt.Errorf("the codex process above the hook (pid %d, %q) may serve other sessions: denying every call instead of ending it", p.pid, strings.Join(p.args(), " "))
	}
	e := &codexEnd{agent: p, tui: mode == codexTUI}
	interactive, script := Resume(agent.Codex, s.SessionID)
	if e.tui {
		if tty := p.fdPath(0); isTerminal(tty) {
			e.tty = tty
		}
		e.how = fmt.Sprintf("ended Codex (SIGINT to pid %d) at the cap, before the call ran", p.pid)
		e.next = nextCommands(v, interactive)
	} else {
		e.how = fmt.Sprintf("interrupted Codex (SIGINT to pid %d) at the cap, before the call ran", p.pid)
		e.next = nextCommands(v, script)
	}
	e.lines = []string{"runaway: " + v.Fact + ". runaway " + e.how + ": the model is asked no more.", nextLine(e.next)}
	return e, nil
}

func (e *codexEnd) record(now time.Time) *Ended {
	return &Ended{Time: now.UTC(), How: e.how, Next: e.next, PID: e.agent.pid, Start: e.agent.start}
}

// endWait bounds how long the hook waits for Codex to go after the signal.
const endWait = 2 * time.Second

func (e *codexEnd) carryOut(ctx context.Context, logf func(error)) {
	if !e.tui {
		// exec's own stderr (a terminal or a pipe), where it then prints
		// "turn interrupted".
		if f := e.agent.openFD(2); f != nil {
			_, _ = f.WriteString(strings.Join(e.lines, "\n") + "\n")
			_ = f.Close()
		}
	}
	if err := e.agent.interrupt(); err != nil {
		logf(fmt.Errorf("interrupting codex (pid %d): %w; every call is denied instead", e.agent.pid, err))
		return
	}
	// exec kills this hook as it interrupts the turn; the TUI dies of the
	// signal, and its terminal is left raw until repaired.
	deadline := time.Now().Add(endWait)
	for e.agent.alive() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	if e.tty != "" {
		if err := repairTerminal(e.tty, e.lines); err != nil {
			logf(fmt.Errorf("repairing the terminal Codex left (%s): %w", e.tty, err))
		}
	}
}
