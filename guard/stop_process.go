package guard

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/guard/caller"
)

// Some agents' hooks cannot end a running turn (Codex, Qwen Code): a deny
// at the cap, or at a loop or failure wire's stop, leaves the model asked
// again after every denied call. SIGINT
// to the agent's process that ran the hook does end it: the run interrupts
// the turn before the call runs, sends no further request, and kills the
// hook within milliseconds, so everything is saved before the signal. A
// terminal UI may die of it instead, leaving its terminal raw, which
// runaway repairs. See stopping-observed.md §1 (Codex) and qwen-code.md.
// Only the nearest ancestor of the hook that is the agent is ever
// signalled, never a process found by name elsewhere.

// ender is how runaway ends one agent's run: its dialect's end.
type ender struct {
	// mode tells from the agent's process how it runs.
	mode func(p proc) endMode
}

// endMode is how the agent's process that ran the hook runs.
type endMode int

const (
	endRun   endMode = iota // one run without a terminal of its own (codex exec, a headless qwen)
	endTUI                  // a terminal UI: it dies of the signal, its terminal is repaired
	endNever                // it serves other sessions too (codex app-server): never signalled
	// endNot: not signalled, and nothing to say: the deny and the agent's
	// own gate before its next request end the turn (Qwen Code's TUI, which
	// takes SIGINT for a cancel: the hook dies unanswered and the call runs).
	endNot
)

// processEnd interrupts the agent's process that ran the hook.
type processEnd struct {
	agent proc
	name  string // the agent's name for people
	tty   string // the TUI's terminal, repaired once it is gone
	tui   bool
	lines []string
	next  []string
	how   string
}

// planProcessEnd finds the agent's process that ran this hook. It returns
// nil with no error when that process was ended already (the hooks of the
// same response's other calls) and an error when it cannot be ended: not
// found, or a process that serves other sessions, which a signal would end
// too.
func planProcessEnd(id agent.ID, en *ender, s *Session, v Verdict) (*processEnd, error) {
	f := agent.Of(id)
	p, err := agentAncestor(func(p proc) bool { return isAgent(p, f) })
	if err != nil {
		return nil, fmt.Errorf("%w; denying every call instead", err)
	}
	if e := s.Ended; e != nil && e.PID == p.pid && e.Start == p.start {
		return nil, nil
	}
	mode := en.mode(p)
	if mode == endNot {
		return nil, nil
	}
	if mode == endNever {
		return nil, fmt.Errorf("the %s process above the hook (pid %d, %q) may serve other sessions: denying every call instead of ending it", f.Name, p.pid, strings.Join(p.args(), " "))
	}
	e := &processEnd{agent: p, name: f.Name, tui: mode == endTUI}
	interactive, script := Resume(id, s.SessionID)
	if e.tui {
		if tty := p.fdPath(0); isTerminal(tty) {
			e.tty = tty
		}
		e.how = fmt.Sprintf("ended %s (SIGINT to pid %d) %s, before the call ran", f.Name, p.pid, endsAt(v))
		e.next = nextCommands(v, interactive)
	} else {
		e.how = fmt.Sprintf("interrupted %s (SIGINT to pid %d) %s, before the call ran", f.Name, p.pid, endsAt(v))
		e.next = nextCommands(v, script)
	}
	e.lines = []string{"runaway: " + v.Fact + ". runaway " + e.how + ": the model is asked no more.", nextLine(e.next)}
	return e, nil
}

// isAgent reports whether p is the agent f: its program, or an interpreter
// running its package's script (Qwen Code is node running cli.js of
// @qwen-code/qwen-code), as caller tells an agent's process.
func isAgent(p proc, f *agent.Facts) bool {
	return caller.AgentOf(caller.Proc{PID: p.pid, PPID: p.ppid, Name: p.comm, Args: p.cmdline()}) == f.Name
}

func (e *processEnd) record(now time.Time) *Ended {
	return &Ended{Time: now.UTC(), How: e.how, Next: e.next, PID: e.agent.pid, Start: e.agent.start}
}

// endWait bounds how long the hook waits for the agent to go after the
// signal.
const endWait = 2 * time.Second

func (e *processEnd) carryOut(ctx context.Context, logf func(error)) {
	if !e.tui {
		// The run's own stderr (a terminal or a pipe), where it then says
		// that the turn was interrupted.
		if f := e.agent.openFD(2); f != nil {
			_, _ = f.WriteString(strings.Join(e.lines, "\n") + "\n")
			_ = f.Close()
		}
	}
	if err := e.agent.interrupt(); err != nil {
		logf(fmt.Errorf("interrupting %s (pid %d): %w; every call is denied instead", e.name, e.agent.pid, err))
		return
	}
	// A run kills this hook as it interrupts the turn; a TUI dies of the
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
			logf(fmt.Errorf("repairing the terminal %s left (%s): %w", e.name, e.tty, err))
		}
	}
}
