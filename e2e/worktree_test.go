package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// Item 3: the model enters a worktree (EnterWorktree), and Claude Code
// moves the session's transcript to the worktree's project folder. The
// prompt's spend is the prompt's: runaway follows the file and counts
// nothing twice, and its figure equals Claude Code's.
func TestClaudeTranscriptMovesIntoAWorktree(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "100")
	s.setenv("RUNAWAY_PROMPT_CAP_USD", "100")
	s.setenv("RUNAWAY_DAILY_CAP_USD", "100")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=e2e", "-c", "user.email=e2e@example.com", "commit", "-q", "--allow-empty", "-m", "start"}} {
		if r := s.exec(nil, "", "git", args...); r.Code != 0 {
			t.Fatalf("git %v: %s", args, r.Stderr)
		}
	}
	u := claudeUsage{Input: 100_000}
	srv := newAnthropicServer(t, claudeScript{Main: []claudeTurn{
		bash("echo a >> /dev/null", u),
		{Tool: "EnterWorktree", Input: map[string]any{"name": "wt1"}, Usage: u},
		bash("echo b >> /dev/null", u),
		bash("echo c >> /dev/null", u),
	}})
	s.installRunaway()
	r := s.runClaude(srv, "work in a worktree", claudeOpts{Model: "claude-sonnet-4-6", Args: []string{"--allowedTools", "EnterWorktree"}})
	sid := r.Result.SessionID
	m, _ := filepath.Glob(filepath.Join(s.claudeDir, "projects", "*", sid+".jsonl"))
	t.Logf("transcripts: %v; server: %s", m, srv.summary())
	for _, d := range s.decisions() {
		t.Logf("decision: %+v", d)
	}
	t.Logf("errors: %s", s.errorsLog())
	st := s.status("claude", sid)
	t.Logf("runaway $%.2f (prompt $%.2f) in %s; Claude Code $%.2f; ledger $%.2f", st.SpendUSD, st.PromptUSD, st.Transcript, r.Result.TotalCostUSD, s.dayLedger(time.Now().Format(time.DateOnly)))
	if !closeTo(st.SpendUSD, r.Result.TotalCostUSD) || !closeTo(st.PromptUSD, r.Result.TotalCostUSD) || !closeTo(s.dayLedger(time.Now().Format(time.DateOnly)), r.Result.TotalCostUSD) {
		t.Errorf("runaway: session $%.2f, prompt $%.2f, day $%.2f; Claude Code $%.2f", st.SpendUSD, st.PromptUSD, s.dayLedger(time.Now().Format(time.DateOnly)), r.Result.TotalCostUSD)
	}
}
