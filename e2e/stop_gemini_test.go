package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// geminiUsageUncached is a response's usage for the tests that compare
// runaway's figure for a response Gemini CLI never wrote with the server's:
// the AfterModel event drops the cached count, so cached input there is
// priced as input (an overestimate, marked estimated). 100000 in, 5000 out
// and 2000 thoughts on gemini-3.8-flash: $0.10125 a response.
var geminiUsageUncached = geminiUsage{Prompt: 100000, Candidates: 5000, Thoughts: 2000}

// Gemini CLI -p streaming as the real API does (usage on every chunk):
// runaway's AfterModel entry stops the run at the chunk whose usage
// crosses the cap, before the response's call runs, and no request
// follows. That response never reaches the session file; runaway counts it
// from its chunks, so its spend is the server's billed usage priced by
// hand, marked estimated. After `runaway allow` the session resumes.
func TestGeminiCapStopsAtTheCrossingChunk(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	if !strings.Contains(s.readFile(s.geminiSettings()), `"AfterModel"`) {
		t.Fatalf("setup wrote no AfterModel entry:\n%s", s.readFile(s.geminiSettings()))
	}
	// Two responses spend $0.2025; the 3rd's first chunk $0.091875 more
	// ($0.294375, under the cap), its last $0.10125 in all ($0.30375).
	s.setenv("RUNAWAY_SESSION_CAP_USD", "0.3")
	turns := make([]geminiTurn, 10)
	for i := range turns {
		turns[i] = geminiTurn{Cmd: fmt.Sprintf("echo step %d >> %s", i+1, ranLog)}
	}
	srv := newGeminiServer(t, geminiScript{Turns: turns, Usage: geminiUsageUncached, EveryChunkUsage: true,
		Resume: []geminiTurn{{Cmd: "echo resumed >> " + ranLog}}})
	r := s.runGemini(srv, "do the ten steps")
	sid := r.Out.SessionID
	if got := srv.served("main"); got != 3 {
		t.Errorf("the model got %d requests, want 3: none after the crossing response", got)
	}
	if got := strings.Join(s.ranLines(), ","); got != "step 1,step 2" {
		t.Errorf("commands that ran: %q, want steps 1 and 2 (the crossing response's call must not run)", got)
	}
	if got := geminiPaid(r.Records); got != 2 {
		t.Errorf("the session file holds %d responses, want 2 (Gemini CLI writes no stopped response)", got)
	}
	if len(r.Out.Warnings) == 0 || !strings.Contains(r.Out.Warnings[0], "Agent execution stopped: runaway: this session has spent $0.30; the session cap is $0.30") {
		t.Errorf("warnings %q do not say runaway stopped the run at the cap", r.Out.Warnings)
	}
	checkDecisions(t, s, "gemini", sid, "spend", "stop", 1)
	st := s.status("gemini", sid)
	want := priceServed(srv.log(), "main", "subagent", "utility")
	if math.Abs(st.SpendUSD-want) > 1e-6 || !st.Estimated || st.State != "stopped" {
		t.Errorf("runaway: $%.9f (estimated %v, %s); the server's billed usage priced: $%.9f, estimated (the stopped response is counted from its chunks)", st.SpendUSD, st.Estimated, st.State, want)
	}
	geminiRow(t, "cap $0.30, usage on every chunk", r, srv, s)

	s.runAllowFromStopMessage("gemini", sid)
	rr := s.runGemini(srv, geminiResumePrompt, "-r", "latest")
	if got := srv.served("main"); got != 5 {
		t.Errorf("after allow, %d requests in all, want 5 (the resumed run's call, then text; exit %d)\nstderr:\n%s", got, rr.Code, rr.Stderr)
	}
	if got := strings.Join(s.ranLines(), ","); got != "step 1,step 2,resumed" {
		t.Errorf("commands that ran: %q, want the resumed run's too", got)
	}
	st = s.status("gemini", sid)
	if want := priceServed(srv.log(), "main", "subagent", "utility"); math.Abs(st.SpendUSD-want) > 1e-6 {
		t.Errorf("after the resume runaway has $%.9f, the server's billed usage priced: $%.9f", st.SpendUSD, want)
	}
	t.Logf("TABLE | resumed after allow | exit %d | %d main requests in all | runaway $%.6f (%s) | warnings %q", rr.Code, srv.served("main"), st.SpendUSD, st.State, rr.Out.Warnings)
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}

// The same call every time, with runaway's loop wire out of the way:
// Gemini CLI's own loop detector aborts responses, which are billed but
// never written to the session file (the issue: $0.24 counted of $0.36
// billed). runaway counts them from their chunks: its spend is the
// server's billed usage, marked estimated.
func TestGeminiAbortedResponsesCounted(t *testing.T) {
	requireWire(t, "spend")
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	turns := make([]geminiTurn, 10)
	for i := range turns {
		turns[i] = geminiTurn{Cmd: "echo same"}
	}
	srv := newGeminiServer(t, geminiScript{Turns: turns, Usage: geminiUsageUncached, EveryChunkUsage: true})
	r := s.runGemini(srv, "run it until it works")
	sid := r.Out.SessionID
	served, written := srv.served("main"), geminiPaid(r.Records)
	if written >= served {
		t.Fatalf("the session file holds %d responses of %d served: Gemini CLI's loop detector aborted none (warnings %q)", written, served, r.Out.Warnings)
	}
	st := s.status("gemini", sid)
	want := priceServed(srv.log(), "main", "subagent", "utility")
	if math.Abs(st.SpendUSD-want) > 1e-6 || !st.Estimated {
		t.Errorf("runaway: $%.9f (estimated %v); the server's billed usage priced: $%.9f over %d responses, %d in the session file", st.SpendUSD, st.Estimated, want, served, written)
	}
	rep, _ := s.reportSpend("gemini", sid)
	t.Logf("runaway report, which reads the session file only: $%.6f", rep)
	geminiRow(t, fmt.Sprintf("loop detector: %d served, %d written", served, written), r, srv, s)
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}
