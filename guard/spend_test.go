package guard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/transcripts"
)

// dollarPerMillion prices every input token at $1 per million, so a
// response of N million input tokens costs $N.
type dollarPerMillion struct{}

func (dollarPerMillion) Cost(model string, u transcripts.Usage, _ time.Time) (float64, bool) {
	return float64(u.Input) / 1e6, strings.HasPrefix(model, "unknown")
}

// claudeSession writes Claude Code transcript lines and runs hook calls
// against them.
type claudeSession struct {
	t    *testing.T
	h    *Hook
	env  map[string]string
	id   string
	path string
	n    int
	// ts stamps the next responses; empty: the test clock's time.
	ts string
}

func newClaudeSession(t *testing.T, id string, env map[string]string) *claudeSession {
	h := newTestHook(t)
	h.Getenv = func(k string) string { return env[k] }
	h.Prices = func(configs.Policy) (Pricer, []error) { return dollarPerMillion{}, nil }
	return &claudeSession{t: t, h: h, env: env, id: id, path: filepath.Join(t.TempDir(), id+".jsonl")}
}

// respondCents is respond for a response of cents dollars.
func (s *claudeSession) respondCents(cents int, extra string) string {
	return s.respondTokens(cents*10_000, extra)
}

// respond appends one API response of millions of input tokens that made
// one tool call, then runs the hook on that call; it returns the answer.
// The call's command is "step <n>", or cmd when given.
func (s *claudeSession) respond(millions int, extra string, cmd ...string) string {
	return s.respondTokens(millions*1_000_000, extra, cmd...)
}

func (s *claudeSession) respondTokens(tokens int, extra string, cmd ...string) string {
	s.n++
	command := fmt.Sprintf("step %d", s.n)
	if len(cmd) > 0 {
		command = cmd[0]
	}
	ts := s.ts
	if ts == "" {
		ts = "2026-11-30T12:00:00Z"
	}
	line := fmt.Sprintf(`{"type":"assistant","sessionId":%q,"requestId":"req_%d","timestamp":%q,"message":{"id":"msg_%s_%d","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":%q}}],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n",
		s.id, s.n, ts, s.id, s.n, s.n, command, tokens)
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	f.WriteString(line)
	f.Close()
	in := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"toolu_%d"%s}`,
		s.id, s.path, command, s.n, extra)
	var out bytes.Buffer
	s.h.Run(strings.NewReader(in), &out, "claude")
	return out.String()
}

func TestSpendWarnsOnceThenStops(t *testing.T) {
	s := newClaudeSession(t, "s1", map[string]string{"RUNAWAY_SESSION_CAP_USD": "10"})
	want := []string{"", "", "warn", "", "stop", "stop"}
	spends := []int{3, 3, 3, 0, 2, 0} // $3 $6 $9 $9 $11 $11
	for i, m := range spends {
		got := s.respond(m, "")
		switch want[i] {
		case "":
			if got != "" {
				t.Fatalf("call %d: %s", i+1, got)
			}
		case "warn":
			if !strings.Contains(got, `"systemMessage":"runaway: this session has spent $9.00 of its $10.00 cap (90%)."`) {
				t.Fatalf("call %d: %s", i+1, got)
			}
		case "stop":
			if !strings.Contains(got, `"continue":false`) || !strings.Contains(got, "runaway allow s1 --add 10") {
				t.Fatalf("call %d: %s", i+1, got)
			}
		}
	}
	// The person raises the cap; the warning comes again near the new cap.
	store := &Store{Dir: s.h.StateDir}
	if _, err := store.Allow(t.Context(), agent.Claude, "s1", 5, false); err != nil {
		t.Fatal(err)
	}
	if got := s.respond(0, ""); got != "" {
		t.Fatalf("after allow: %s", got) // $11 of $15: 73%
	}
	if got := s.respond(1, ""); !strings.Contains(got, "$12.00 of its $15.00 cap (80%)") {
		t.Fatalf("near the raised cap: %s", got)
	}
}

func TestPromptCap(t *testing.T) {
	s := newClaudeSession(t, "s2", map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_PROMPT_CAP_USD": "5"})
	// Prompt p1 spends $4: a warning at 80%.
	if got := s.respond(4, `,"prompt_id":"p1"`); !strings.Contains(got, "this prompt has spent $4.00 of its $5.00 cap") {
		t.Fatal(got)
	}
	// A new prompt counts from its own first response.
	if got := s.respond(3, `,"prompt_id":"p2"`); got != "" {
		t.Fatal(got)
	}
	if got := s.respond(3, `,"prompt_id":"p2"`); !strings.Contains(got, "this prompt has spent $6.00; the prompt cap is $5.00") ||
		!strings.Contains(got, "runaway allow s2 --prompt --add 5") {
		t.Fatal(got)
	}
}

// Parallel Codex subagents share the root session's id, each with its own
// turn_id: the calls' prompt keys interleave. Each key keeps its own start,
// allowance and warning, so the $5 prompt cap stops the prompt that began
// first at $6, not at $12 or never.
func TestPromptCapWithInterleavedKeys(t *testing.T) {
	s := newClaudeSession(t, "s3", map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_PROMPT_CAP_USD": "5"})
	keys := []string{"t1", "t2", "t1", "t2", "t1", "t2"}
	stopped := 0
	for i, k := range keys {
		got := s.respond(2, `,"prompt_id":"`+k+`"`) // $2 a response
		if strings.Contains(got, "the prompt cap is $5.00") {
			if stopped == 0 && (i != 2 || !strings.Contains(got, "this prompt has spent $6.00")) {
				t.Fatalf("call %d (%s) stopped first: %s", i+1, k, got)
			}
			stopped++
		}
	}
	// t1 from call 3 on ($6, $10, …), t2 from call 4 ($8 since it began).
	if stopped != 4 {
		t.Errorf("%d calls stopped by the prompt cap, want 4", stopped)
	}
}

func TestDailyCapAcrossSessions(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_DAILY_CAP_USD": "10"}
	a := newClaudeSession(t, "day-a", env)
	b := newClaudeSession(t, "day-b", env)
	b.h = a.h // one state folder: the same machine
	if got := a.respond(6, ""); got != "" {
		t.Fatal(got)
	}
	if got := b.respond(3, ""); got != "" {
		t.Fatal(got)
	}
	if got := b.respond(2, ""); !strings.Contains(got, "all sessions have spent $11.00 today; the daily cap is $10.00") {
		t.Fatal(got)
	}
}

// The daily cap counts each response on the day its timestamp says: a
// first read of a session's history does not put ten-day-old spend on today.
func TestDailyCapCountsResponsesOnTheirDay(t *testing.T) {
	s := newClaudeSession(t, "old", map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_DAILY_CAP_USD": "10"})
	s.ts = "2026-11-20T10:00:00Z"
	s.respond(20, "")
	s.ts = ""
	if got := s.respond(1, ""); got != "" {
		t.Fatalf("$20 ten days ago and $1 today, daily cap $10: %s", got)
	}
	if got := s.respond(9, ""); !strings.Contains(got, "all sessions have spent $10.00 today") {
		t.Fatalf("$10 today: %s", got)
	}
}

// The daily cap counts from when it is set (the first call that sees it): a
// session that spent $8 today before it was set is not stopped at once, and
// what it spends after counts up to the cap.
func TestDailyCapCountsFromWhenItIsSet(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100"}
	s := newClaudeSession(t, "before", env)
	clock := time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	s.h.Now = func() time.Time { return clock }
	s.ts = "2026-11-30T10:30:00Z"
	s.respond(8, "")
	env["RUNAWAY_DAILY_CAP_USD"] = "10"
	clock, s.ts = clock.Add(time.Hour), "2026-11-30T11:59:00Z"
	if got := s.respond(0, ""); got != "" {
		t.Fatalf("$8 before the cap was set: %s", got)
	}
	clock, s.ts = clock.Add(time.Hour), "2026-11-30T12:30:00Z"
	if got := s.respond(3, ""); got != "" {
		t.Fatalf("$3 since the cap was set: %s", got)
	}
	clock, s.ts = clock.Add(time.Hour), "2026-11-30T13:30:00Z"
	if got := s.respond(7, ""); !strings.Contains(got, "all sessions have spent $10.00 today") {
		t.Fatalf("$10 since the cap was set: %s", got)
	}
}

// A failed result of a call the hook sent to ask is runaway's own answer.
func TestFailureWireIgnoresOwnDenials(t *testing.T) {
	var s Session
	s.noteOurs("toolu_ours")
	for _, r := range []transcripts.ToolResult{{ToolUseID: "a", Failed: true}, {ToolUseID: "toolu_ours", Failed: true}, {ToolUseID: "b", Failed: true}} {
		s.addResult(r)
	}
	if s.Failures.Run != 2 {
		t.Fatalf("run = %d, want 2", s.Failures.Run)
	}
	if v := failureWire(&s, 2); v.Kind != Ask || s.Failures.Run != 0 {
		t.Fatalf("%+v, run %d", v, s.Failures.Run)
	}
}

// Codex sends a subagent's own rollout with the root session's id: the
// session keeps reading its first transcript (whose reader finds the
// subagents) instead of starting over.
func TestChooseTranscriptKeepsTheFirst(t *testing.T) {
	dir := t.TempDir()
	root, child := filepath.Join(dir, "root.jsonl"), filepath.Join(dir, "child.jsonl")
	os.WriteFile(root, nil, 0o600)
	os.WriteFile(child, nil, 0o600)
	var s Session
	codex, _ := transcripts.FormatOf(agent.Codex)
	if got := s.chooseTranscript(codex, root); got != root {
		t.Fatal(got)
	}
	s.Spend.USD = 5
	if got := s.chooseTranscript(codex, child); got != root || s.Spend.USD != 5 {
		t.Fatalf("%s %v", got, s.Spend.USD)
	}
	os.Remove(root)
	if got := s.chooseTranscript(codex, child); got != child || s.Spend.USD != 5 {
		t.Fatalf("a gone transcript is replaced and its total kept (the reader follows it): %s %v", got, s.Spend.USD)
	}
}

// Codex has no prompt_id: its turn_id marks the prompt.
func TestPromptKey(t *testing.T) {
	for _, c := range []struct {
		in   Input
		want string
	}{
		{Input{PromptID: "p1"}, "p1"},
		{Input{TurnID: "t1"}, "t1"},
		{Input{PromptID: "p1", TurnID: "t1"}, "p1"},
		{Input{}, ""},
	} {
		if got := c.in.promptKey(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
}

// Claude Code 2.1.328 creates a session's transcript after the hooks of its
// first calls have started: the hook waits for the file as for a call not
// written yet, so the first response is priced (before, it answered at once
// with nothing, and a first response over the cap ran).
func TestSpendWaitsForATranscriptNotCreatedYet(t *testing.T) {
	s := newClaudeSession(t, "s1", map[string]string{"RUNAWAY_SESSION_CAP_USD": "1"})
	line := `{"type":"assistant","sessionId":"s1","requestId":"req_1","timestamp":"2026-11-30T12:00:00Z","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"step 1"}}],"usage":{"input_tokens":3000000,"output_tokens":0}}}` + "\n"
	go func() {
		time.Sleep(60 * time.Millisecond)
		os.WriteFile(s.path, []byte(line), 0o644)
	}()
	in := fmt.Sprintf(`{"session_id":"s1","transcript_path":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"step 1"},"tool_use_id":"toolu_1"}`, s.path)
	var out bytes.Buffer
	s.h.Run(strings.NewReader(in), &out, "claude")
	if !strings.Contains(out.String(), `"continue":false`) {
		t.Fatalf("answer = %q, want the stop: the first response is $3 over a $1 cap", out.String())
	}
}
