package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// Item 11: a compaction (claude -p "/compact" --resume <id>) is a model
// request and costs money, but Claude Code 2.1.328 writes no assistant
// line for it: only a system compact_boundary line with compactMetadata
// (preTokens, postTokens), and its own cost-state figure counts it.
// runaway counts it as estimated, from the context's size, not below
// Claude Code's figure (before: $0.60 of Claude Code's $0.93).
func TestClaudeCompactionIsCounted(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "100")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	u := claudeUsage{Input: 100_000}
	srv := newAnthropicServer(t, claudeScript{
		Main: []claudeTurn{bash("echo a", u), bash("echo b", u)},
		// The request sends the whole context (100k tokens) and gets the
		// summary back.
		Compact: claudeUsage{Input: 100_000, Output: 2_000},
	})
	s.installRunaway()
	first := s.runClaude(srv, "work", claudeOpts{Model: "claude-sonnet-4-6"})
	sid := first.Result.SessionID
	before := len(srv.log())
	compact := s.runClaude(srv, "/compact", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	for _, l := range srv.log()[before:] {
		t.Logf("request after /compact: %+v", l)
	}
	tr := s.claudeTranscript(sid)
	for i, l := range s.claudeLines(tr) {
		b, _ := json.Marshal(l)
		if strings.Contains(string(b), "ompact") || l["type"] == "assistant" || l["type"] == "cost-state" || l["type"] == "system" {
			t.Logf("line %d: %.1500s", i, b)
		}
	}
	st := s.status("claude", sid)
	t.Logf("Claude Code: first run $%.4f, compact run $%.4f; runaway $%.4f%s", first.Result.TotalCostUSD, compact.Result.TotalCostUSD, st.SpendUSD, estimated(st.Estimated))
	if n := srv.count("compact"); n != 1 {
		t.Errorf("the fake served %d compaction requests, want 1", n)
	}
	cc := compact.Result.TotalCostUSD
	if !st.Estimated || st.SpendUSD < cc-1e-6 || st.SpendUSD > cc*1.1 {
		t.Errorf("runaway $%.4f%s after the compaction, want estimated, at least Claude Code's $%.4f and within 10%%", st.SpendUSD, estimated(st.Estimated), cc)
	}
}
