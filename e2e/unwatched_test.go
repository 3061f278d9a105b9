package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// notifyLog is where the scenarios' notify_command appends each event.
const notifyLog = "notified.jsonl"

// notifications waits (bounded) until the notify command wrote an event of
// kind, and returns every event written so far.
func (s *sandbox) notifications(kind string) []map[string]any {
	s.t.Helper()
	deadline := time.Now().Add(patience * 20 * time.Second)
	for {
		var out []map[string]any
		found := false
		for _, l := range nonEmptyLines(s.readFile(filepath.Join(s.proj, notifyLog))) {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil {
				out = append(out, m)
				found = found || m["event"] == kind
			}
		}
		if found || time.Now().After(deadline) {
			return out
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// With the default limits, a claude -p run whose model repeats a failing
// command: the loop wire asks at call 5 (in -p every ask is refused), the
// failure wire asks at 7, and when the loop wire triggers again at call 10
// runaway ends the run (hook_stopped), long before the model's 30 calls.
// The notify command receives the stop with the session id.
func TestUnwatchedClaudeLoopStopsAfterRefusedAsk(t *testing.T) {
	requireCommand(t, "hook")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
	const calls = 30
	var turns []claudeTurn
	for range calls {
		turns = append(turns, bash("echo ran >> "+ranLog+"; npm test", claudeUsage{Input: 1000, Output: 50}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns, End: claudeUsage{Input: 1000, Output: 20}})
	s.installRunaway()
	r := s.runClaude(srv, "fix the tests", claudeOpts{Model: "claude-sonnet-4-6"})
	t.Logf("what the person sees: exit %d, stdout result %q, stderr %q", r.Code, r.Result.Result, truncate(r.Stderr, 300))
	if r.Result.TerminalReason != "hook_stopped" {
		t.Fatalf("terminal_reason %q, want hook_stopped", r.Result.TerminalReason)
	}
	stopped := claudeStopped(t, s, r)
	if want := []int{5, 7, 10}; strings.Trim(strings.Join(strings.Fields(strings.Trim(jsonText(stopped), "[]")), ""), ",") != strings.Trim(strings.Join(strings.Fields(strings.Trim(jsonText(want), "[]")), ""), ",") {
		t.Errorf("calls refused %v, want %v (loop ask, failure ask, loop stop)", stopped, want)
	}
	if ran := len(s.ranLines()); ran != 7 {
		t.Errorf("%d calls ran, want 7 of the model's %d", ran, calls)
	}
	checkDecisions(t, s, "claude", r.Result.SessionID, "loop", "stop", 1)
	var stop map[string]any
	for _, n := range s.notifications("stop") {
		if n["event"] == "stop" {
			stop = n
		}
	}
	if stop == nil || stop["session_id"] != r.Result.SessionID || stop["harness"] != "claude" || stop["wire"] != "loop" {
		t.Errorf("notify command got no stop for session %s: %v", r.Result.SessionID, stop)
	}
}

// The same loop in codex exec: the loop wire denies at call 5 and the
// failure wire at 7 (Codex cannot ask); at the loop wire's second trigger
// (call 10) runaway ends the turn as at a spend stop: it interrupts codex
// exec (SIGINT) before the call runs, no request follows, and exec's
// stderr says what happened and how to go on; the next prompt (codex exec
// resume) runs again. With end_agent off, that call and every later one of
// the turn are denied instead, saying so, and the model is asked on.
func TestUnwatchedCodexLoopEndsTheTurn(t *testing.T) {
	for _, endAgent := range []bool{true, false} {
		t.Run(fmt.Sprintf("end_agent=%v", endAgent), func(t *testing.T) {
			requireCommand(t, "hook")
			codexAgent.require(t)
			t.Parallel()
			s := newSandbox(t)
			s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
			s.setenv("RUNAWAY_END_AGENT", fmt.Sprint(endAgent))
			const calls = 16
			script := codexScript{End: codexUsage{Input: 1000}}
			for range calls {
				script.Turns = append(script.Turns, codexTurn{Cmd: "echo ran >> " + ranLog + "; npm test", Usage: codexUsage{Input: 5000, Output: 100}})
			}
			script.Resumed = []codexTurn{{Cmd: "echo resumed >> " + ranLog, Usage: codexUsage{Input: 5000, Output: 100}}}
			srv := newOpenAIServer(t, script)
			s.writeCodexConfig(srv)
			s.installRunaway()
			r := s.runCodex(srv, "fix the tests", nil)
			t.Logf("what the person sees: exit %d, stdout %q, stderr (last) %q", r.Code, truncate(r.Stdout, 300), lastLines(r.Stderr, 3))
			outs := r.ToolOutputs()
			if endAgent {
				if len(outs) != 10 || !strings.Contains(outs[9], "aborted") {
					t.Errorf("%d tool outputs, want 10, the last (the loop's stop) aborted: %q", len(outs), outs)
				}
				if got := len(srv.log()); got != 10 {
					t.Errorf("the model was asked %d times, want 10: none after the response whose call was stopped", got)
				}
				for _, want := range []string{"runaway: the same", "interrupted Codex", "went on the same way", "runaway: to go on, run `codex exec resume " + r.Session()} {
					if !strings.Contains(r.Stderr, want) {
						t.Errorf("exec's stderr does not say %q; its end:\n%s", want, lastLines(r.Stderr, 6))
					}
				}
				if r.Code != 1 || !strings.Contains(r.Stderr, "turn interrupted") {
					t.Errorf("codex exec: exit %d, want 1 with `turn interrupted`", r.Code)
				}
				checkDecisions(t, s, "codex", r.Session(), "loop", "stop", 1)
			} else {
				if len(outs) != calls {
					t.Fatalf("%d tool outputs, want %d", len(outs), calls)
				}
				for i, o := range outs {
					call := i + 1
					blocked := strings.HasPrefix(o, blockedPrefix+"runaway: ")
					if want := call == 5 || call == 7 || call >= 10; blocked != want {
						t.Errorf("call %d: denied %v, want %v: %q", call, blocked, want, truncate(o, 160))
					}
					if call >= 11 && !strings.Contains(o, "denies every call until the next prompt") {
						t.Errorf("call %d: the deny does not say it lasts until the next prompt: %q", call, truncate(o, 300))
					}
				}
				checkDecisions(t, s, "codex", r.Session(), "loop", "stop", calls-9)
			}
			if ran := len(s.ranLines()); ran != 7 {
				t.Errorf("%d calls ran, want 7", ran)
			}

			second := s.resumeCodex(r.Session(), resumeMarker+": try again", nil)
			if lines := s.ranLines(); len(lines) != 8 || lines[7] != "resumed" {
				t.Errorf("after the next prompt the call did not run: %v (exit %d)", lines, second.Code)
			}
			if n := s.notifications("stop"); len(n) == 0 {
				t.Errorf("notify command got no event")
			}
		})
	}
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func lastLines(s string, n int) string {
	l := nonEmptyLines(s)
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " | ")
}

// A claude -p session stopped at its cap and resumed without `runaway
// allow`: runaway's UserPromptSubmit entry blocks the prompt, so the fake
// model gets no request at all; after allow the resumed run goes on.
func TestResumedOverCapClaudeSendsNothingUntilAllow(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
	var turns []claudeTurn
	for i := range 10 {
		turns = append(turns, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()
	first := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
	sid := first.Result.SessionID
	if first.Result.TerminalReason != "hook_stopped" {
		t.Fatalf("first run: terminal_reason %q, want hook_stopped", first.Result.TerminalReason)
	}
	before := len(srv.log())

	blocked := s.runClaudeRaw(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	_ = json.Unmarshal([]byte(strings.TrimSpace(blocked.Stdout)), &blocked.Result)
	t.Logf("resumed over the cap, the person sees: exit %d, result %q, is_error %v, terminal_reason %q, num_turns %d, stderr %q",
		blocked.Code, blocked.Result.Result, blocked.Result.IsError, blocked.Result.TerminalReason, blocked.Result.NumTurns, truncate(blocked.Stderr, 600))
	if got := len(srv.log()); got != before {
		t.Errorf("the resumed run over the cap sent %d model requests, want none:\n%s", got-before, srv.summary())
	}
	if !strings.Contains(blocked.Stdout+blocked.Stderr, "runaway allow "+sid) {
		t.Errorf("the blocked run does not show the allow command")
	}
	if n := s.notifications("stop"); len(n) == 0 || n[len(n)-1]["session_id"] != sid || n[len(n)-1]["allow_command"] == "" {
		t.Errorf("notify command: %v", n)
	}

	s.runAllowFromStopMessage("claude", sid)
	second := s.runClaude(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	if got := len(srv.log()); got == before {
		t.Errorf("after allow the resumed run sent no request")
	}
	if ran := len(s.ranLines()); ran <= 3 {
		t.Errorf("after allow no more calls ran (%d in all); resumed run ended %q", ran, second.Result.TerminalReason)
	}
}

// The same in codex exec: resumed over the cap without allow, Codex's
// UserPromptSubmit hook blocks the prompt and no request reaches the model;
// after allow the resumed turn runs.
func TestResumedOverCapCodexSendsNothingUntilAllow(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	perCall := codexUsage{Input: 80_000, Cached: 40_000, Output: 2_000} // $0.28 with gpt-5.5
	script := codexScript{End: codexUsage{Input: 1_000}}
	for i := range 5 {
		script.Turns = append(script.Turns, codexTurn{Cmd: "echo first-" + string(rune('a'+i)) + " >> " + ranLog, Usage: perCall})
	}
	script.Resumed = []codexTurn{{Cmd: "echo resumed >> " + ranLog, Usage: codexUsage{Input: 1_000}}}
	srv := newOpenAIServer(t, script)
	s.writeCodexConfig(srv)
	s.installRunaway()
	first := s.runCodex(srv, "spend", nil)
	sid := first.Session()
	before := len(srv.log())

	blocked := s.resumeCodex(sid, resumeMarker+": go on", nil)
	t.Logf("resumed over the cap, the person sees: exit %d, stdout %q, stderr (last) %q", blocked.Code, truncate(blocked.Stdout, 600), lastLines(blocked.Stderr, 4))
	if got := len(srv.log()); got != before {
		t.Errorf("the resumed run over the cap sent %d model requests, want none", got-before)
	}

	s.runAllowFromStopMessage("codex", sid)
	s.resumeCodex(sid, resumeMarker+": go on", nil)
	if got := len(srv.log()); got == before {
		t.Errorf("after allow the resumed run sent no request")
	}
	if lines := s.ranLines(); len(lines) == 0 || lines[len(lines)-1] != "resumed" {
		t.Errorf("after allow the resumed call did not run: %v", lines)
	}
}
