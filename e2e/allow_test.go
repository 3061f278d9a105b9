package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// A Claude Code session stopped at its cap; the person runs the `runaway
// allow …` command the stop message names, and the same session, resumed
// with `claude -p --resume`, goes on under the new cap.
func TestAllowRaisesCapAndResumedSessionGoesOn(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	requireCommand(t, "status")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	const calls = 10
	const perCall = 0.30 // claude-sonnet-4-6, 100k input tokens a response
	var turns []claudeTurn
	for i := range calls {
		turns = append(turns, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()

	first := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
	sid := first.Result.SessionID
	if first.Result.TerminalReason != "hook_stopped" || len(s.ranLines()) != 3 {
		t.Fatalf("first run: terminal_reason %q, %d calls ran; want hook_stopped after 3", first.Result.TerminalReason, len(s.ranLines()))
	}
	if st := s.status("claude", sid); st.State != "stopped" {
		t.Errorf("runaway status says %q for the stopped session, want stopped", st.State)
	}

	// The stop message names the command that raises the cap; run it as a
	// person would, outside the agent.
	var allow string
	for _, d := range s.decisions() {
		if d.Wire == "spend" && d.Decision == "stop" {
			allow = allowCommand.FindString(d.Summary)
		}
	}
	if allow == "" {
		t.Fatalf("no stop decision names a `runaway allow` command:\n%s", s.readFile(filepath.Join(s.stateDir, "decisions.jsonl")))
	}
	args := strings.Fields(strings.TrimPrefix(strings.TrimSpace(allow), "runaway "))
	if a := s.runaway(args...); a.Code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", allow, a.Code, a.Stdout, a.Stderr)
	}
	newCap := s.status("claude", sid).CapUSD
	if newCap <= 1 {
		t.Fatalf("after %q the cap is $%.2f, want more than $1", allow, newCap)
	}

	// Resumed, the model's 5th response comes next: the calls go on while
	// the session's spend (0.30 per response so far) stays under the new cap.
	second := s.runClaude(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	if second.Result.SessionID != sid {
		t.Errorf("resumed run has session %s, want %s", second.Result.SessionID, sid)
	}
	wantRan, wantEnd := 3, "completed"
	for k := 5; k <= calls; k++ {
		if float64(k)*perCall >= newCap-1e-9 {
			wantEnd = "hook_stopped"
			break
		}
		wantRan++
	}
	t.Logf("`%s` raised the cap to $%.2f; resumed run: %d calls ran in all, terminal_reason %q, total_cost_usd $%.2f",
		allow, newCap, len(s.ranLines()), second.Result.TerminalReason, second.Result.TotalCostUSD)
	if got := len(s.ranLines()); got != wantRan || second.Result.TerminalReason != wantEnd {
		t.Errorf("after allow: %d calls ran in all and the run ended %q, want %d and %q (cap $%.2f)", got, second.Result.TerminalReason, wantRan, wantEnd, newCap)
	}
}
