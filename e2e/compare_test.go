package e2e

import (
	"testing"
)

// mixedClaudeSession exercises every part of Claude Code's usage: input,
// output, cache reads, 5m and 1h cache writes, a cache write reported only
// as cache_creation_input_tokens (no split), and web search requests.
var mixedClaudeSession = claudeScript{
	Main: []claudeTurn{
		bash("echo one", claudeUsage{Input: 3_000, Output: 400, CacheWrite5m: 20_000}),
		bash("echo two", claudeUsage{Input: 500, Output: 800, CacheRead: 20_000, CacheWrite1h: 5_000, WebSearches: 2}),
		bash("echo three", claudeUsage{Input: 200, Output: 300, CacheRead: 25_000, CacheWrite: 4_000}),
		bash("echo four", claudeUsage{Input: 100, Output: 200, CacheRead: 29_000, CacheWrite5m: 1_000, CacheWrite1h: 1_500}),
	},
	End: claudeUsage{Input: 100, Output: 150, CacheRead: 31_000},
}

// runaway's spend for a finished Claude Code session equals Claude Code's
// own figure (total_cost_usd) to within 0.5%, on models whose price Claude
// Code knows (its cost-state says hasUnknownModelCost false) and runaway
// too (status does not say "estimated"; an estimate must not be lower).
func TestSpendMatchesClaudeCodesFigure(t *testing.T) {
	requireCommand(t, "hook")
	requireCommand(t, "status")
	claudeAgent.require(t)
	for _, model := range []string{"claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-8", "claude-sonnet-5", "claude-opus-5-5"} {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			srv := newAnthropicServer(t, mixedClaudeSession)
			s.installRunaway()
			r := s.runClaude(srv, "mixed usage", claudeOpts{Model: model})
			checkClaudeSpend(t, s, r, model)
		})
	}
	t.Run("claude-sonnet-4-6+subagent", func(t *testing.T) {
		t.Parallel()
		s := newSandbox(t)
		script := claudeScript{
			Main: []claudeTurn{{Tool: "Agent", Input: map[string]any{"description": "sub work", "prompt": subagentMarker + ": run the commands", "subagent_type": "general-purpose"},
				Usage: claudeUsage{Input: 2_000, Output: 300, CacheWrite5m: 10_000}}},
			Sub: mixedClaudeSession.Main,
			End: mixedClaudeSession.End,
		}
		srv := newAnthropicServer(t, script)
		s.installRunaway()
		r := s.runClaude(srv, "delegate", claudeOpts{Model: "claude-sonnet-4-6"})
		if srv.count("sub") == 0 {
			t.Fatalf("no subagent request reached the server: %+v", srv.log())
		}
		checkClaudeSpend(t, s, r, "claude-sonnet-4-6")
	})
}

func checkClaudeSpend(t *testing.T, s *sandbox, r claudeRun, model string) {
	t.Helper()
	if r.Code != 0 || r.Result.TerminalReason != "completed" {
		t.Fatalf("claude exit %d, terminal_reason %q", r.Code, r.Result.TerminalReason)
	}
	if _, ok := r.Result.ModelUsage[model]; !ok || len(r.Result.ModelUsage) != 1 {
		t.Fatalf("Claude Code priced models %v, want only %s", sortedKeys(r.Result.ModelUsage), model)
	}
	for _, l := range s.claudeLines(s.claudeTranscript(r.Result.SessionID)) {
		if l["type"] == "cost-state" && l["hasUnknownModelCost"] != false {
			t.Fatalf("Claude Code does not know %s's price (hasUnknownModelCost), so its figure is no oracle", model)
		}
	}
	v := s.status("claude", r.Result.SessionID)
	agentUSD := r.Result.TotalCostUSD
	t.Logf("SPEND claude %-28s runaway $%.6f%s  claude code $%.6f  (%+.3f%%)", model, v.SpendUSD, estimated(v.Estimated), agentUSD, 100*(v.SpendUSD-agentUSD)/agentUSD)
	switch {
	case v.Estimated && v.SpendUSD < agentUSD*0.995:
		// A model runaway has no price for is priced like its family's
		// newest: an estimate may be high, never low.
		t.Errorf("runaway's estimate $%.6f is below Claude Code's total_cost_usd $%.6f", v.SpendUSD, agentUSD)
	case !v.Estimated && !closeTo(v.SpendUSD, agentUSD):
		t.Errorf("runaway's spend $%.6f, Claude Code's total_cost_usd $%.6f: more than 0.5%% apart", v.SpendUSD, agentUSD)
	}
}

// gpt55 is the published gpt-5.5 rate, USD per million tokens
// (shared/reference/codex.md §5): input, cached input, output.
var gpt55 = struct{ input, cached, output float64 }{5, 0.50, 30}

// runaway's spend for a finished Codex session, one compaction included,
// equals the usage the fake server reported, priced at the published rate,
// to within 0.5%.
func TestSpendMatchesCodexReportedUsage(t *testing.T) {
	requireCommand(t, "hook")
	requireCommand(t, "status")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	srv := newOpenAIServer(t, codexScript{
		Turns: []codexTurn{
			{Cmd: "echo one", Usage: codexUsage{Input: 12_000, Output: 700, Reasoning: 300}},
			{Cmd: "echo two", Usage: codexUsage{Input: 14_000, Cached: 11_000, Output: 500, Reasoning: 100}},
			// Close to the context window: Codex compacts after this one,
			// and the compaction request's usage is spend too.
			{Cmd: "echo three", Usage: codexUsage{Input: 250_000, Cached: 200_000, Output: 4_000, Reasoning: 2_500}},
			{Cmd: "echo four", Usage: codexUsage{Input: 9_000, Cached: 2_000, Output: 300}},
		},
		End: codexUsage{Input: 10_000, Cached: 9_000, Output: 200},
	})
	s.writeCodexConfig(srv)
	s.installRunaway()
	r := s.runCodex(srv, "mixed usage", nil)
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	compactions := 0
	for _, l := range srv.log() {
		if l.Kind == "compaction" {
			compactions++
		}
	}
	if compactions != 1 {
		t.Errorf("Codex compacted %d times, want once: %+v", compactions, srv.log())
	}
	u := srv.reported()
	want := (float64(u.Input-u.Cached)*gpt55.input + float64(u.Cached)*gpt55.cached + float64(u.Output)*gpt55.output) / 1e6
	v := s.status("codex", r.Session())
	t.Logf("SPEND codex  %-28s runaway $%.6f  server-reported usage at list price $%.6f  (%+.3f%%)", codexModel, v.SpendUSD, want, 100*(v.SpendUSD-want)/want)
	if !closeTo(v.SpendUSD, want) {
		t.Errorf("runaway's spend $%.6f, reported usage %+v priced $%.6f: more than 0.5%% apart", v.SpendUSD, u, want)
	}
}

func estimated(e bool) string {
	if e {
		return " (estimated)"
	}
	return ""
}
