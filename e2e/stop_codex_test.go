package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// gpt55Response is what one scripted Codex response costs, priced by hand
// at gpt-5.5's rates ($5/M input, $0.50/M cached input, $30/M output,
// reasoning inside output): 40k uncached + 40k cached in, 2k out.
const gpt55Response = (40_000*5.0 + 40_000*0.5 + 2_000*30.0) / 1e6 // $0.28

// codexSpendScript: calls responses of gpt55Response each, then, once a
// prompt carries resumeMarker, resumed ones.
func codexSpendScript(calls, resumed int) codexScript {
	u := codexUsage{Input: 80_000, Cached: 40_000, Output: 2_000, Reasoning: 500}
	script := codexScript{End: codexUsage{Input: 1000}}
	for i := range calls {
		script.Turns = append(script.Turns, codexTurn{Cmd: fmt.Sprintf("echo first-%d >> %s", i+1, ranLog), Usage: u})
	}
	for i := range resumed {
		script.Resumed = append(script.Resumed, codexTurn{Cmd: fmt.Sprintf("echo resumed-%d >> %s", i+1, ranLog), Usage: u})
	}
	return script
}

// checkCodexEnded checks a codex exec run runaway interrupted at the cap:
// exit 1 with "turn interrupted", the crossing call (the last output,
// "aborted by user") not run, no request after the crossing response, and
// the person told on exec's stderr what happened and what to run next.
func checkCodexEnded(t *testing.T, r codexRun, srv *openaiServer, requestsBefore, requests, crossing int) {
	t.Helper()
	if r.Code != 1 || !strings.Contains(r.Stderr, "turn interrupted") {
		t.Errorf("codex exec: exit %d, want 1 with `turn interrupted`; stderr (last): %s", r.Code, lastLines(r.Stderr, 6))
	}
	outs := r.ToolOutputs()
	if len(outs) != crossing || !strings.Contains(outs[len(outs)-1], "aborted") {
		t.Errorf("tool outputs %q: want %d, the last (the crossing call) aborted", outs, crossing)
	}
	if got := len(srv.log()) - requestsBefore; got != requests {
		t.Errorf("the model was asked %d times in the run, want %d: none after the crossing response\n%v", got, requests, srv.log())
	}
	for _, want := range []string{"runaway: ", "interrupted Codex", "runaway allow " + r.Session(), "codex exec resume " + r.Session()} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("exec's stderr does not say %q; its end:\n%s", want, lastLines(r.Stderr, 6))
		}
	}
}

// At the cap runaway interrupts codex exec at the call that crosses it: the
// call does not run, the model is asked no more, runaway's spend is the
// server's billed usage priced by hand (the crossing response included),
// and the person learns what happened and what to run on exec's stderr, in
// status and through notify_command. After `runaway allow` the session
// resumes and goes on until the new cap, where it is interrupted again.
func TestCodexExecEndsAtCap(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
	// $0.84 (warn) at call 3, $1.12 at call 4: the crossing call.
	srv := newOpenAIServer(t, codexSpendScript(8, 8))
	s.writeCodexConfig(srv)
	s.installRunaway()

	r := s.runCodex(srv, "spend", nil)
	sid := r.Session()
	t.Logf("what the person sees: exit %d, stderr (last) %q", r.Code, lastLines(r.Stderr, 4))
	checkCodexEnded(t, r, srv, 0, 4, 4)
	if got := strings.Join(s.ranLines(), ","); got != "first-1,first-2,first-3" {
		t.Errorf("calls that ran: %s", got)
	}
	checkDecisions(t, s, "codex", sid, "spend", "warn", 1)
	checkDecisions(t, s, "codex", sid, "spend", "stop", 1)
	st := s.status("codex", sid)
	if want := 4 * gpt55Response; !closeTo(st.SpendUSD, want) || st.State != "stopped" {
		t.Errorf("status: spend $%.4f state %q, want $%.4f (4 responses billed) stopped", st.SpendUSD, st.State, want)
	}
	text := s.runaway("status").Stdout
	for _, want := range []string{"interrupted Codex", "next: runaway allow " + sid + " --add 1", "then: codex exec resume " + sid} {
		if !strings.Contains(text, want) {
			t.Errorf("runaway status does not say %q:\n%s", want, text)
		}
	}
	var stop map[string]any
	for _, n := range s.notifications("stop") {
		if n["event"] == "stop" {
			stop = n
		}
	}
	if stop == nil || !strings.Contains(fmt.Sprint(stop["ended"]), "interrupted Codex") || len(stop["next"].([]any)) != 2 {
		t.Errorf("notify_command got no stop saying Codex was interrupted and what comes next: %v", stop)
	}

	// Over the cap, a resumed run is blocked at its prompt: no request.
	before := len(srv.log())
	blocked := s.resumeCodex(sid, resumeMarker+": go on", nil)
	if got := len(srv.log()) - before; got != 0 {
		t.Errorf("resumed over the cap: %d requests, want none (exit %d)", got, blocked.Code)
	}

	// After allow (+$1: cap $2), the resumed calls run while the spend stays
	// under it: $1.12 + $0.28 × j reaches $2.24 at resumed call 4.
	s.runAllowFromStopMessage("codex", sid)
	before = len(srv.log())
	second := s.resumeCodex(sid, resumeMarker+": go on", nil)
	checkCodexEnded(t, second, srv, before, 4, 4+4)
	if second.Session() != sid {
		t.Errorf("resumed run has session %s, want %s", second.Session(), sid)
	}
	if got := strings.Join(s.ranLines()[3:], ","); got != "resumed-1,resumed-2,resumed-3" {
		t.Errorf("resumed calls that ran: %s", got)
	}
	if want := 8 * gpt55Response; !closeTo(s.status("codex", sid).SpendUSD, want) {
		t.Errorf("after the resumed run runaway counts $%.4f, want $%.4f (8 responses billed)", s.status("codex", sid).SpendUSD, want)
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}

// With end_agent off, a Codex session at its cap has every call denied, as
// people who prefer denials asked: the model goes on being asked.
func TestCodexEndAgentOffDeniesEveryCall(t *testing.T) {
	requireWire(t, "spend")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	s.setenv("RUNAWAY_END_AGENT", "false")
	srv := newOpenAIServer(t, codexSpendScript(6, 0))
	s.writeCodexConfig(srv)
	s.installRunaway()
	r := s.runCodex(srv, "spend", nil)
	checkCodexDenied(t, s, r, 6, []int{4, 5, 6}, "spend")
	for _, reason := range r.Blocked() {
		if !strings.Contains(reason, "runaway allow") {
			t.Errorf("the cap message does not name the command that raises the cap: %q", reason)
		}
	}
}
