package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A session crosses the warn share (80%) and then the cap ($1): the call
// at the cap is stopped and the run ends with terminal_reason
// "hook_stopped". The cap comes from config.json (the other tests set it
// through RUNAWAY_SESSION_CAP_USD).
func TestSpendWireWarnsThenStopsAtCap(t *testing.T) {
	requireWire(t, "spend")
	const calls = 6

	t.Run("claude", func(t *testing.T) {
		claudeAgent.require(t)
		t.Parallel()
		s := newSandbox(t)
		// claude-sonnet-4-6 at $3/M input: $0.30 a response, so the hook
		// sees $0.90 (warn) at call 3 and $1.20 (stop) at call 4.
		var turns []claudeTurn
		for i := range calls {
			turns = append(turns, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
		}
		srv := newAnthropicServer(t, claudeScript{Main: turns})
		s.installRunaway()
		// After setup, which writes its own limits into the config.
		s.writeFile(filepath.Join(s.configDir, "config.json"), "{\n  // the e2e cap\n  \"session_cap_usd\": 1,\n  \"repeat_run\": 100,\n}\n")
		s.acceptChanges() // a person's edit after setup: the tripwire is told
		r := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
		if r.Result.TerminalReason != "hook_stopped" {
			t.Errorf("terminal_reason %q, want hook_stopped", r.Result.TerminalReason)
		}
		at := checkStoppedAt(t, claudeStopped(t, s, r), 4, claudeLag)
		if got := len(s.ranLines()); got != at-1 {
			t.Errorf("%d calls ran, want %d: the turn ends at the cap", got, at-1)
		}
		if got := srv.count("main"); got != at {
			t.Errorf("the model was asked %d times, want %d: the turn ends at the cap", got, at)
		}
		checkDecisions(t, s, "claude", r.Result.SessionID, "spend", "stop", 1)
		if at == 4 {
			checkDecisions(t, s, "claude", r.Result.SessionID, "spend", "warn", 1)
		}
	})
	// Codex: see TestCodexExecEndsAtCap.
}

// A Claude Code subagent's spend counts toward the session's cap: the
// subagent's own calls are stopped when the session reaches it.
func TestSpendWireCountsClaudeSubagent(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	// The main conversation spends $0.03; each subagent response $0.30,
	// so the subagent's 4th call is at $1.23.
	var sub []claudeTurn
	for i := range 6 {
		sub = append(sub, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{
		Main: []claudeTurn{{Tool: "Agent", Input: map[string]any{"description": "sub work", "prompt": subagentMarker + ": run the commands", "subagent_type": "general-purpose"}, Usage: claudeUsage{Input: 10_000}}},
		Sub:  sub,
	})
	s.installRunaway()
	r := s.runClaude(srv, "delegate", claudeOpts{Model: "claude-sonnet-4-6"})
	// The subagent's 4th call reaches the cap (its transcript, like the
	// main one, may be one response behind when the hook reads it).
	if got := len(s.ranLines()); got < 3 || got > 3+claudeLag {
		t.Errorf("the subagent ran %d calls, want 3 (its 4th reaches the cap)", got)
	} else if got > 3 {
		t.Logf("the subagent's call %d was stopped, %d late: Claude Code had not written the transcript yet", got+1, got-3)
	}
	if got, max := srv.count("sub"), 4+claudeLag; got > max {
		t.Errorf("the subagent asked the model %d times after it was stopped, want at most %d", got, max)
	}
	// One tool call is stopped. Claude Code then hands the subagent's end to
	// the main conversation as a prompt, which runaway's UserPromptSubmit
	// entry blocks: the session is over its cap, so no request is sent.
	var calls, prompts int
	for _, d := range s.decisions() {
		if d.Harness == "claude" && d.Session == r.Result.SessionID && d.Wire == "spend" && d.Decision == "stop" {
			if d.Tool != "" {
				calls++
			} else {
				prompts++
			}
		}
	}
	if calls != 1 || prompts > 1 {
		t.Errorf("spend stops: %d of tool calls (want 1), %d of prompts (want at most 1)", calls, prompts)
	}
	t.Logf("with the subagent stopped: %d prompt blocked; terminal_reason %q, permission_denials %d, requests %s", prompts, r.Result.TerminalReason, len(r.Result.PermissionDenials), srv.summary())
}

// statusView is one session in `runaway status --json`.
type statusView struct {
	Harness   string  `json:"harness"`
	SessionID string  `json:"session_id"`
	SpendUSD  float64 `json:"spend_usd"`
	Estimated bool    `json:"estimated"`
	CapUSD    float64 `json:"cap_usd"`
	State     string  `json:"state"`
	// Transcript is the main file runaway reads the session from.
	Transcript string `json:"transcript"`
	// PromptUSD is the current prompt's spend.
	PromptUSD float64 `json:"prompt_spend_usd"`
}

// status returns runaway's view of one session.
func (s *sandbox) status(harness, session string) statusView {
	s.t.Helper()
	r := s.runaway("status", "--json")
	if r.Code != 0 {
		s.t.Fatalf("runaway status --json: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var views []statusView
	if err := json.Unmarshal([]byte(r.Stdout), &views); err != nil {
		var one struct {
			Sessions []statusView `json:"sessions"`
		}
		if err2 := json.Unmarshal([]byte(r.Stdout), &one); err2 != nil {
			s.t.Fatalf("runaway status --json: %v\n%s", err, r.Stdout)
		}
		views = one.Sessions
	}
	for _, v := range views {
		if v.Harness == harness && v.SessionID == session {
			return v
		}
	}
	s.t.Fatalf("runaway status --json has no %s session %s:\n%s", harness, session, r.Stdout)
	return statusView{}
}

// closeTo reports whether got is within 0.5% of want.
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 0.005*math.Abs(want)
}

// allowCommand finds the `runaway allow …` command a stop message names.
var allowCommand = regexp.MustCompile("runaway allow[^`'\"\\n]*")

// One response asks for 6 calls at once (Read calls, which Claude Code runs
// in parallel, hooks included) and is over the cap by itself: each of the 6
// hooks must answer, so every call is stopped. The hook command is wrapped
// to time each whole hook process as Claude Code ran it.
func TestSpendWireStopsEveryCallOfOneResponse(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	const calls = 6
	s := newSandbox(t)
	turn := claudeTurn{Usage: claudeUsage{Input: 1_000_000}} // $3.00 of claude-sonnet-4-6
	for i := range calls {
		c := claudeTurn{Tool: "Read", Input: map[string]any{"file_path": filepath.Join(s.proj, fmt.Sprintf("f%d.txt", i))}}
		s.writeFile(c.Input.(map[string]any)["file_path"].(string), "file\n")
		if i == 0 {
			turn.Tool, turn.Input = c.Tool, c.Input
		} else {
			turn.Also = append(turn.Also, c)
		}
	}
	srv := newAnthropicServer(t, claudeScript{Main: []claudeTurn{turn}})
	s.installRunaway()
	s.writeFile(filepath.Join(s.configDir, "config.json"), "{\"session_cap_usd\": 1}\n")
	s.acceptChanges()
	times := filepath.Join(s.root, "hook-times")
	wrapper := filepath.Join(s.root, "timed-runaway")
	bin := filepath.Join(s.binHome, "runaway")
	// Each line: start and end (ns), whether the call was in the
	// transcript before the hook started (1, or 0: Claude Code had not
	// written it yet, and the hook may or may not see it while it waits),
	// and whether the hook stopped it (1 or 0). The prompt's hook has no
	// call: 1 1 -1… is not checked.
	s.writeFile(wrapper, `#!/bin/bash
s=$(date +%s%N)
in=$(cat)
id=$(printf '%s' "$in" | sed -n 's/.*"tool_use_id":"\([^"]*\)".*/\1/p')
tp=$(printf '%s' "$in" | sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p')
seen=-1; stopped=0
if [ -n "$id" ]; then grep -q "$id" "$tp" 2>/dev/null && seen=1 || seen=0; fi
out=$(printf '%s' "$in" | "`+bin+`" "$@")
e=$(date +%s%N)
printf '%s' "$out"
case "$out" in *'"continue":false'*) stopped=1;; esac
echo "$s $e $seen $stopped" >> "`+times+`"
`)
	if err := os.Chmod(wrapper, 0o700); err != nil {
		t.Fatal(err)
	}
	s.writeFile(s.claudeSettings(), strings.ReplaceAll(s.readFile(s.claudeSettings()), bin, wrapper))
	s.acceptChanges() // the entry now runs the wrapper: the person's change

	r := s.runClaude(srv, "read them", claudeOpts{Model: "claude-sonnet-4-6"})
	var first int64
	var spans [][4]int64
	for _, l := range nonEmptyLines(s.readFile(times)) {
		var sp [4]int64
		fmt.Sscan(l, &sp[0], &sp[1], &sp[2], &sp[3])
		spans = append(spans, sp)
		if first == 0 || sp[0] < first {
			first = sp[0]
		}
	}
	// Under heavy load Claude Code can write the response to the transcript
	// after runaway stopped waiting for it (300 ms a hook, three hooks in a
	// row): a call not written yet cannot be priced, and runs. A call that
	// was in the transcript before its hook started must be stopped. (Read
	// after the hook answered, "in the transcript" failed at load 36: the
	// response was written while the hook ran.)
	unpriced := 0
	for i, sp := range spans {
		t.Logf("hook %d: started at +%dms, took %dms (call in the transcript: %d, stopped: %d)", i+1, (sp[0]-first)/1e6, (sp[1]-sp[0])/1e6, sp[2], sp[3])
		switch {
		case sp[2] == 0 && sp[3] != 1:
			unpriced++
		case sp[2] == 1 && sp[3] != 1:
			t.Errorf("hook %d answered with its call's response in the transcript, over the cap, and did not stop it", i+1)
		}
	}
	if len(spans) < calls+1 {
		t.Errorf("Claude Code ran %d hooks, want at least %d (%d calls and the prompt)", len(spans), calls+1, calls)
	}
	if unpriced > 0 {
		t.Logf("Claude Code wrote the response after runaway stopped waiting for it: %d calls went on unpriced", unpriced)
	} else {
		// The first stop ends the turn: Claude Code may cancel the siblings
		// still in flight rather than list them among permission_denials, so
		// what is checked is that each hook stopped its call and none ran.
		checkDecisions(t, s, "claude", r.Result.SessionID, "spend", "stop", calls)
		results := s.claudeToolResults(s.claudeTranscript(r.Result.SessionID))
		ran := 0
		for _, res := range results {
			if !res.Failed {
				ran++
			}
		}
		t.Logf("%d permission denials, %d tool results", len(r.Result.PermissionDenials), len(results))
		if ran > 0 || len(results) != calls {
			t.Errorf("%d of %d tool results are not failed: a call ran past the cap", ran, len(results))
		}
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}
