package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// The daily cap counts every session of the day, across agents: a Claude
// Code session spends $0.60, then a Codex session under a $1 daily cap is
// interrupted at the call that takes the day past $1.
func TestDailyCapSpansSessionsOfBothAgents(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_DAILY_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	claudeSrv := newAnthropicServer(t, claudeScript{Main: []claudeTurn{
		bash("echo claude-1 >> "+ranLog, claudeUsage{Input: 100_000}),
		bash("echo claude-2 >> "+ranLog, claudeUsage{Input: 100_000}),
	}})
	// gpt-5.5: $0.28 a response, so the day reaches $1.16 at Codex's 2nd call.
	var turns []codexTurn
	for i := 1; i <= 4; i++ {
		turns = append(turns, codexTurn{Cmd: fmt.Sprintf("echo codex-%d >> %s", i, ranLog), Usage: codexUsage{Input: 80_000, Cached: 40_000, Output: 2_000}})
	}
	codexSrv := newOpenAIServer(t, codexScript{Turns: turns})
	s.writeCodexConfig(codexSrv)
	s.installRunaway()

	c := s.runClaude(claudeSrv, "spend a little", claudeOpts{Model: "claude-sonnet-4-6"})
	checkClaudeCompleted(t, c)
	x := s.runCodex(codexSrv, "spend the rest", nil)
	if x.Code != 1 || len(codexSrv.log()) != 2 {
		t.Errorf("codex exec: exit %d after %d requests, want 1 after 2: interrupted at call 2", x.Code, len(codexSrv.log()))
	}
	if !strings.Contains(x.Stderr, "daily cap") || !strings.Contains(x.Stderr, "daily_cap_usd") {
		t.Errorf("exec's stderr does not name the daily cap and where it is raised:\n%s", lastLines(x.Stderr, 5))
	}
	checkDecisions(t, s, "codex", x.Session(), "spend", "stop", 1)
	if got := strings.Join(s.ranLines(), ","); got != "claude-1,claude-2,codex-1" {
		t.Errorf("calls that ran: %s", got)
	}
}

// The prompt cap counts one prompt's spend: a Claude Code run stopped at
// the prompt cap, resumed with a new prompt, runs calls again until the new
// prompt reaches the cap too, well under the session cap.
func TestPromptCapStartsOverWithEachPrompt(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_PROMPT_CAP_USD", "0.5")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	var turns []claudeTurn
	for i := 1; i <= 8; i++ {
		turns = append(turns, bash(fmt.Sprintf("echo %d >> %s", i, ranLog), claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()

	// $0.30 a response: the first prompt reaches $0.60 at call 2.
	first := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
	if first.Result.TerminalReason != "hook_stopped" {
		t.Fatalf("first prompt: terminal_reason %q, want hook_stopped", first.Result.TerminalReason)
	}
	checkStoppedAt(t, claudeStopped(t, s, first), 2, 0)

	second := s.runClaude(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: first.Result.SessionID})
	if second.Result.TerminalReason != "hook_stopped" {
		t.Errorf("second prompt: terminal_reason %q, want hook_stopped at its own cap", second.Result.TerminalReason)
	}
	stops := claudeStopped(t, s, second)
	ran := s.ranLines()
	t.Logf("second prompt: stopped calls %v; calls that ran in all: %v; session spend $%.2f", stops, ran, second.Result.TotalCostUSD)
	// The new prompt's responses (those making calls 3 and 4) reach $0.60
	// at call 4: call 3 runs, call 4 is stopped.
	checkStoppedAt(t, stops, 4, 0)
	if got := strings.Join(ran, ","); got != "1,3" {
		t.Errorf("calls that ran: %s, want 1,3", got)
	}
	checkDecisions(t, s, "claude", first.Result.SessionID, "spend", "stop", 2)
}
