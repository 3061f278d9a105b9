package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// Issue 23: sessions that move, go on in a copy, or fork, with the real
// Claude Code.

// claudeProjectDir is where Claude Code keeps the transcripts of sessions
// started in dir: every character of the path but letters and digits
// becomes '-'.
func (s *sandbox) claudeProjectDir(dir string) string {
	return filepath.Join(s.claudeDir, "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(dir, "-"))
}

// Item 1: a session stopped at its cap is copied into another project
// folder (the common workaround for going on elsewhere) and resumed there
// with the cap raised. runaway follows the copy: it stops the resumed run
// at the new cap, counting the first run's responses once (before, it kept
// reading the first file and never stopped the copy: its 6 calls ran, not 2).
func TestClaudeResumedFromACopyElsewhere(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	const calls = 10 // claude-sonnet-4-6, 100k input tokens a response: $0.30
	var turns []claudeTurn
	for i := range calls {
		turns = append(turns, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()

	first := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
	sid := first.Result.SessionID
	if first.Result.TerminalReason != "hook_stopped" || len(s.ranLines()) != 3 {
		t.Fatalf("first run: %q with %d calls run, want hook_stopped after 3", first.Result.TerminalReason, len(s.ranLines()))
	}
	from := s.claudeTranscript(sid)
	if filepath.Dir(from) != s.claudeProjectDir(s.proj) {
		t.Fatalf("transcript %s is not in %s: the project folder's name is not what this test makes", from, s.claudeProjectDir(s.proj))
	}
	other := filepath.Join(s.root, "other-project")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	s.writeFile(filepath.Join(s.claudeProjectDir(other), sid+".jsonl"), s.readFile(from))
	_, newCap := s.runAllowFromStopMessage("claude", sid)

	s.proj = other
	second := s.runClaude(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	if second.Result.SessionID != sid {
		t.Fatalf("resumed run has session %s, want %s", second.Result.SessionID, sid)
	}
	st := s.status("claude", sid)
	t.Logf("cap raised to $%.2f; the copy's run ended %q, %d calls ran in it; runaway says $%.2f in %s, Claude Code $%.2f",
		newCap, second.Result.TerminalReason, len(s.ranLines()), st.SpendUSD, st.Transcript, second.Result.TotalCostUSD)
	// Call k is made at $0.30 × k: the new $2 cap stops call 7.
	if second.Result.TerminalReason != "hook_stopped" || len(s.ranLines()) != 2 {
		t.Errorf("the copy's run ended %q with %d calls run, want hook_stopped with 2 (calls 5 and 6 ran, 7 stopped at $2.10)",
			second.Result.TerminalReason, len(s.ranLines()))
	}
	if !closeTo(st.SpendUSD, second.Result.TotalCostUSD) {
		t.Errorf("runaway's spend $%.4f, Claude Code's whole-session figure $%.4f", st.SpendUSD, second.Result.TotalCostUSD)
	}
}

// dayLedger is the daily ledger's total for day (runaway's state folder,
// daily/<day>.json: each session's spend of the day).
func (s *sandbox) dayLedger(day string) float64 {
	s.t.Helper()
	var m map[string]float64
	data, err := os.ReadFile(filepath.Join(s.stateDir, "daily", day+".json"))
	if err != nil || json.Unmarshal(data, &m) != nil {
		s.t.Fatalf("daily ledger of %s: %v %s", day, err, data)
	}
	total := 0.0
	for _, v := range m {
		total += v
	}
	return total
}

// Item 4: a session forked from another (claude --resume <id>
// --fork-session) starts its transcript with a copy of the parent's
// history (Claude Code 2.1.328: the parent's lines under the fork's
// session id, same message.id). The day's ledger counts each response
// once: the parent's $1.20 and the fork's own $1.20, $2.40, which is
// Claude Code's figure for the fork (before: $3.60, the parent's twice).
func TestClaudeForkCountsTheDayOnce(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_DAILY_CAP_USD", "100")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	var turns []claudeTurn
	for i := range 8 {
		turns = append(turns, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()
	first := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
	parent := first.Result.SessionID
	day := time.Now().Format(time.DateOnly)
	t.Logf("parent: ledger $%.2f, Claude Code $%.2f", s.dayLedger(day), first.Result.TotalCostUSD)

	fork := s.runClaude(srv, "go on in a fork", claudeOpts{Model: "claude-sonnet-4-6", Resume: parent,
		Args: []string{"--fork-session"}, Env: map[string]string{"RUNAWAY_SESSION_CAP_USD": "100"}})
	child := fork.Result.SessionID
	if child == parent {
		t.Fatalf("the fork has the parent's session id %s", child)
	}
	tr := s.claudeTranscript(child)
	for i, l := range s.claudeLines(tr) {
		if m, ok := l["message"].(map[string]any); ok && l["type"] == "assistant" {
			t.Logf("fork line %d: sessionId %v, message.id %v, requestId %v, forkedFrom %v, timestamp %v", i, l["sessionId"], m["id"], l["requestId"], l["forkedFrom"], l["timestamp"])
		}
	}
	// Claude Code's figure for the fork covers its whole history, the
	// parent's responses included: it is what the day spent.
	want := fork.Result.TotalCostUSD
	got := s.dayLedger(day)
	t.Logf("fork: Claude Code $%.2f (the parent's history included); the day: ledger $%.2f; status of the fork $%.2f", fork.Result.TotalCostUSD, got, s.status("claude", child).SpendUSD)
	if !closeTo(got, want) {
		t.Errorf("daily ledger $%.2f, want $%.2f: each response once", got, want)
	}
	if st := s.status("claude", child); !closeTo(st.SpendUSD, fork.Result.TotalCostUSD) {
		t.Errorf("the fork's spend $%.2f, Claude Code's $%.2f", st.SpendUSD, fork.Result.TotalCostUSD)
	}
}
