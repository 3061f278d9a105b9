package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// Issue 23: sessions whose transcripts move, are copied to go on
// elsewhere, or fork.

// ledgerToday is the daily ledger's total for the test clock's day.
func ledgerToday(t *testing.T, h *Hook) float64 {
	t.Helper()
	return dailyLedger{dir: filepath.Join(h.StateDir, "daily")}.total(h.now().Local().Format("2006-01-02"))
}

// copyFile copies the file at from to to, making to's folder.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Item 1: the transcript is copied into another project folder and the
// session resumed there (same session id, the copy grows). The copy's new
// responses count and the copied ones do not count again: $6 + $6 of a
// $10 cap stops (before: the first file was kept, runaway saw $6).
func TestCopiedTranscriptResumedElsewhere(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "10", "RUNAWAY_DAILY_CAP_USD": "100"}
	s := newClaudeSession(t, "copied", env)
	s.respond(3, "")
	s.respond(3, "")
	elsewhere := filepath.Join(t.TempDir(), "other-project", filepath.Base(s.path))
	copyFile(t, s.path, elsewhere)
	s.path = elsewhere
	if got := s.respond(3, ""); !strings.Contains(got, "$9.00 of its $10.00 cap") {
		t.Fatalf("$9 spent, the third response in the copy: %q, want the warning", got)
	}
	if got := s.respond(3, ""); !strings.Contains(got, "this session has spent $12.00; the session cap is $10.00") {
		t.Fatalf("$12 spent: %q, want the stop at $12", got)
	}
	if got := ledgerToday(t, s.h); got != 12 {
		t.Errorf("daily ledger = $%v, want $12", got)
	}
}

// Item 3: the transcript moves (Claude Code moves it on worktree enter and
// exit, and /cd). The prompt cap counts the prompt's own spend, and the
// daily ledger the day once (before: the prompt was charged the whole
// session, $8 of a $5 cap, and the day $14 for $8).
func TestMovedTranscript(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_PROMPT_CAP_USD": "5", "RUNAWAY_DAILY_CAP_USD": "100"}
	s := newClaudeSession(t, "moved", env)
	s.respond(3, `,"prompt_id":"p1"`)
	s.respond(3, `,"prompt_id":"p1"`)
	s.respond(1, `,"prompt_id":"p2"`)
	moved := filepath.Join(t.TempDir(), "worktree-project", filepath.Base(s.path))
	if err := os.MkdirAll(filepath.Dir(moved), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(s.path, moved); err != nil {
		t.Fatal(err)
	}
	s.path = moved
	if got := s.respond(1, `,"prompt_id":"p2"`); got != "" {
		t.Fatalf("prompt p2 spent $2 of its $5 cap: %q", got)
	}
	if got := ledgerToday(t, s.h); got != 8 {
		t.Errorf("daily ledger = $%v, want $8", got)
	}
	sess, _ := (&Store{Dir: s.h.StateDir}).ReadSession(agent.Claude, "moved")
	if sess.Spend.USD != 8 {
		t.Errorf("session spend = $%v, want $8", sess.Spend.USD)
	}
}

// Item 7: status and allow read a session's transcripts as the hook does.
// The transcript is replaced by a copy of itself with one more response
// since the hook's last read: status shows $9 (before: $11 and over the
// $10 cap, the file read again without what the hook had counted beyond
// the last few responses) and allow finds nothing over the cap.
func TestStatusReadsAReplacedTranscriptOnce(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "10"}
	s := newClaudeSession(t, "replaced", env)
	for range 6 {
		s.respond(1, "")
	}
	data, _ := os.ReadFile(s.path)
	data = append(data, `{"type":"assistant","sessionId":"replaced","requestId":"req_9","timestamp":"2026-11-30T12:00:00Z","message":{"id":"msg_9","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":3000000,"output_tokens":0}}}`+"\n"...)
	tmp := s.path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		t.Fatal(err)
	}
	store := &Store{Dir: s.h.StateDir}
	p := policyFor(t, env)
	views, err := store.Views(t.Context(), "", p, dollarPerMillion{})
	if err != nil || len(views) != 1 {
		t.Fatal(views, err)
	}
	if views[0].SpendUSD != 9 || views[0].State != StateWarned {
		t.Errorf("status: $%v %s, want $9 warned", views[0].SpendUSD, views[0].State)
	}
	if sess, err := store.Find(t.Context(), "", p, dollarPerMillion{}); err == nil {
		t.Errorf("allow found %s at $%v, want none over the cap", sess.SessionID, sess.Spend.USD)
	}
	// The hook, next, counts the same.
	if got := s.respond(0, ""); !strings.Contains(got, "$9.00 of its $10.00 cap") {
		t.Errorf("hook: %q, want the warning at $9", got)
	}
}

// policyFor is the policy the hook loads with env and no config file.
func policyFor(t *testing.T, env map[string]string) configs.Policy {
	t.Helper()
	p, errs := configs.LoadPolicy(filepath.Join(t.TempDir(), "none.json"), func(k string) string { return env[k] })
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return p
}

// Item 5: a hook that runs without the daily cap (an agent started without
// the variable) leaves the ledger's count alone: session a, with the $10
// daily cap, spent $6, b, without it, $4.80; a's next $0.60 is a stop at
// $11.40 (before: b's hook reset the cap's start and the ledger said $0.60).
func TestHookWithoutDailyCapKeepsTheLedger(t *testing.T) {
	capped := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_DAILY_CAP_USD": "10"}
	a := newClaudeSession(t, "day-a", capped)
	b := newClaudeSession(t, "day-b", map[string]string{"RUNAWAY_SESSION_CAP_USD": "100"})
	b.h.StateDir, b.h.ConfigPath = a.h.StateDir, a.h.ConfigPath // one machine
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	a.h.Now = func() time.Time { return clock }
	b.h.Now = a.h.Now
	a.ts, b.ts = "2026-11-30T12:30:00Z", "2026-11-30T12:30:00Z"
	a.respondCents(600, "")
	b.respondCents(480, "")
	if got := a.respondCents(60, ""); !strings.Contains(got, "all sessions have spent $11.40 today") {
		t.Fatalf("a after b: %q, want the daily stop at $11.40", got)
	}
}

// Item 6: the clock set back across midnight and forward again: the day's
// total stays (before: $9.30 became $0.30), and each response counts on
// its own day.
func TestClockSetBackAcrossMidnight(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_DAILY_CAP_USD": "10"}
	s := newClaudeSession(t, "clock", env)
	clock := time.Date(2026, 12, 1, 0, 5, 0, 0, time.Local)
	s.h.Now = func() time.Time { return clock }
	at := func(c time.Time) { clock, s.ts = c, c.UTC().Format(time.RFC3339) }
	at(time.Date(2026, 12, 1, 0, 5, 0, 0, time.Local))
	s.respondCents(900, "")
	// Set back five minutes, to the day before.
	at(time.Date(2026, 11, 30, 23, 59, 0, 0, time.Local))
	s.respondCents(10, "")
	// Set right again.
	at(time.Date(2026, 12, 1, 0, 10, 0, 0, time.Local))
	s.respondCents(30, "")
	if got := ledgerToday(t, s.h); got < 9.299 || got > 9.301 {
		t.Errorf("ledger of Dec 1 = $%v, want $9.30", got)
	}
	if got := s.respondCents(80, ""); !strings.Contains(got, "all sessions have spent $10.10 today") {
		t.Fatalf("$10.10 on Dec 1: %q, want the daily stop", got)
	}
}

// Item 4: a fork (claude --resume <id> --fork-session) starts a new
// session whose file begins with the parent's history: the same responses
// (message.id) under the fork's session id, as Claude Code 2.1.328 writes
// them. The day counts each response once: parent $6, fork $3 more, the
// day $9 under a $10 daily cap (before: $15, a false stop).
func TestForkCountsTheDayOnce(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_DAILY_CAP_USD": "10"}
	parent := newClaudeSession(t, "parent", env)
	parent.respond(3, "")
	parent.respond(3, "")
	fork := newClaudeSession(t, "fork", env)
	fork.h = parent.h
	data, _ := os.ReadFile(parent.path)
	copied := strings.ReplaceAll(string(data), `"sessionId":"parent"`, `"sessionId":"fork"`)
	if err := os.WriteFile(fork.path, []byte(copied), 0o600); err != nil {
		t.Fatal(err)
	}
	fork.n = parent.n
	if got := fork.respond(3, ""); got != "" {
		t.Fatalf("the day spent $9 of its $10 cap: %q", got)
	}
	if got := ledgerToday(t, parent.h); got != 9 {
		t.Errorf("daily ledger = $%v, want $9", got)
	}
	// The fork's own total is its whole history, as Claude Code counts it.
	if sess, _ := (&Store{Dir: parent.h.StateDir}).ReadSession(agent.Claude, "fork"); sess.Spend.USD != 9 {
		t.Errorf("fork's session spend $%v, want $9", sess.Spend.USD)
	}
}
