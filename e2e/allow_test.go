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
	if first.Result.TerminalReason != "hook_stopped" {
		t.Fatalf("first run: terminal_reason %q, want hook_stopped", first.Result.TerminalReason)
	}
	firstStop := checkStoppedAt(t, claudeStopped(t, s, first), 4, claudeLag)
	if st := s.status("claude", sid); st.State != "stopped" {
		t.Errorf("runaway status says %q for the stopped session, want stopped", st.State)
	}

	allow, newCap := s.runAllowFromStopMessage("claude", sid)

	// Resumed, the model's next response makes call firstStop+1; the spend
	// the hook sees at call k is $0.30 × k, and the calls go on while it
	// stays under the new cap.
	second := s.runClaude(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	if second.Result.SessionID != sid {
		t.Errorf("resumed run has session %s, want %s", second.Result.SessionID, sid)
	}
	wantStop := 0
	for k := firstStop + 1; k <= calls; k++ {
		if float64(k)*perCall >= newCap-1e-9 {
			wantStop = k
			break
		}
	}
	// A resumed run's permission_denials list only its own calls.
	stops := claudeStopped(t, s, second)
	t.Logf("`%s` raised the cap to $%.2f; resumed run: calls stopped %v, terminal_reason %q, total_cost_usd $%.2f",
		allow, newCap, stops, second.Result.TerminalReason, second.Result.TotalCostUSD)
	wantEnd, wantRan := "completed", calls-1
	if wantStop > 0 {
		at := checkStoppedAt(t, stops, wantStop, claudeLag)
		wantEnd, wantRan = "hook_stopped", at-2
	} else if len(stops) > 0 {
		t.Errorf("resumed run stopped calls %v under the new cap $%.2f", stops, newCap)
	}
	if got := len(s.ranLines()); got != wantRan || second.Result.TerminalReason != wantEnd {
		t.Errorf("after allow: %d calls ran in all and the run ended %q; want %d and %q (cap $%.2f)",
			got, second.Result.TerminalReason, wantRan, wantEnd, newCap)
	}
}

// runAllowFromStopMessage runs, as the person would and outside the agent,
// the `runaway allow …` command that runaway's stop message names, and
// returns it with the session's new cap.
func (s *sandbox) runAllowFromStopMessage(harness, sid string) (string, float64) {
	t := s.t
	t.Helper()
	var allow string
	for _, d := range s.decisions() {
		if d.Harness == harness && d.Session == sid && d.Wire == "spend" && (d.Decision == "stop" || d.Decision == "deny") {
			allow = allowCommand.FindString(d.Summary)
		}
	}
	if allow == "" {
		t.Fatalf("no spend decision names a `runaway allow` command:\n%s", s.readFile(filepath.Join(s.stateDir, "decisions.jsonl")))
	}
	args := strings.Fields(strings.TrimPrefix(strings.TrimSpace(allow), "runaway "))
	if a := s.runaway(args...); a.Code != 0 {
		t.Fatalf("%s: exit %d\n%s%s", allow, a.Code, a.Stdout, a.Stderr)
	}
	newCap := s.status(harness, sid).CapUSD
	if newCap <= 1 {
		t.Fatalf("after %q the cap is $%.2f, want more than $1", allow, newCap)
	}
	return allow, newCap
}
