package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
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

// A Codex session at its cap has every call denied; after the person runs
// the `runaway allow …` command the deny names, the same session resumed
// with `codex exec resume` runs its calls again until the new cap.
func TestAllowRaisesCapAndResumedCodexGoesOn(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	requireCommand(t, "status")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	// gpt-5.5: $0.28 a response (80k input of which 40k cached, 2k output).
	perCall := codexUsage{Input: 80_000, Cached: 40_000, Output: 2_000}
	end := codexUsage{Input: 1_000} // $0.005
	const before, after = 5, 6
	script := codexScript{End: end}
	for i := range before {
		script.Turns = append(script.Turns, codexTurn{Cmd: fmt.Sprintf("echo first-%d >> %s", i+1, ranLog), Usage: perCall})
	}
	for i := range after {
		script.Resumed = append(script.Resumed, codexTurn{Cmd: fmt.Sprintf("echo resumed-%d >> %s", i+1, ranLog), Usage: perCall})
	}
	srv := newOpenAIServer(t, script)
	s.writeCodexConfig(srv)
	s.installRunaway()

	first := s.runCodex(srv, "spend", nil)
	sid := first.Session()
	checkCodexDenied(t, s, first, before, []int{4, 5}, "spend")

	allow, newCap := s.runAllowFromStopMessage("codex", sid)

	second := s.resumeCodex(sid, resumeMarker+": go on", nil)
	if second.Session() != sid {
		t.Errorf("resumed run has session %s, want %s", second.Session(), sid)
	}
	// Spend the hook sees at resumed call j: the first run's responses and
	// final message, then j more responses.
	spent := float64(before)*0.28 + 0.005
	wantRan := 3
	var wantDenied []int
	for j := 1; j <= after; j++ {
		if spent+float64(j)*0.28 < newCap-1e-9 {
			wantRan++
		} else {
			wantDenied = append(wantDenied, before+j)
		}
	}
	t.Logf("`%s` raised the cap to $%.2f; resumed run: %d calls ran in all, %d denied after the resume", allow, newCap, len(s.ranLines()), len(wantDenied))
	if got := len(s.ranLines()); got != wantRan {
		t.Errorf("after allow: %d calls ran in all, want %d (cap $%.2f)", got, wantRan, newCap)
	}
	outs := second.ToolOutputs()
	if len(outs) != before+after {
		t.Fatalf("rollout has %d tool outputs after the resume, want %d", len(outs), before+after)
	}
	for j := before + 1; j <= before+after; j++ {
		denied := strings.HasPrefix(outs[j-1], blockedPrefix+"runaway: ")
		if want := slices.Contains(wantDenied, j); denied != want {
			t.Errorf("call %d: denied %v, want %v: %q", j, denied, want, truncate(outs[j-1], 200))
		}
	}
}
