package e2e

import (
	"encoding/json"
	"path/filepath"
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
	requireSpendReport(t)
	claudeAgent.require(t)
	for _, model := range []string{"claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-4-8", "claude-sonnet-5", "claude-opus-5-5"} {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			srv := newAnthropicServer(t, mixedClaudeSession)
			s.installRunawayIfHook()
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
		s.installRunawayIfHook()
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
	agentUSD := r.Result.TotalCostUSD
	for _, f := range s.runawaySpend("claude", r.Result.SessionID, s.claudeTranscript(r.Result.SessionID)) {
		t.Logf("SPEND claude %-28s runaway %-6s $%.6f%s  claude code $%.6f  (%+.3f%%)", model, f.source, f.usd, estimated(f.estimated), agentUSD, 100*(f.usd-agentUSD)/agentUSD)
		switch {
		case f.estimated && f.usd < agentUSD*0.995:
			// A model runaway has no price for is priced like its family's
			// newest: an estimate may be high, never low.
			t.Errorf("runaway %s's estimate $%.6f is below Claude Code's total_cost_usd $%.6f", f.source, f.usd, agentUSD)
		case !f.estimated && !closeTo(f.usd, agentUSD):
			t.Errorf("runaway %s's spend $%.6f, Claude Code's total_cost_usd $%.6f: more than 0.5%% apart", f.source, f.usd, agentUSD)
		}
	}
}

func estimated(e bool) string {
	if e {
		return " (estimated)"
	}
	return ""
}

// spendFigure is runaway's figure for a session, from one of its commands.
type spendFigure struct {
	source    string // "status" or "replay"
	usd       float64
	estimated bool
}

// requireSpendReport skips while runaway has no command that reports a
// session's spend.
func requireSpendReport(t *testing.T) {
	t.Helper()
	if !hasCommand("replay") && !(hasCommand("status") && hasCommand("hook")) {
		t.Skip("needs `runaway replay` or `runaway status` (with `runaway hook`), which this build does not have yet")
	}
}

// installRunawayIfHook wires runaway in when the hook exists: status then
// reports the session too.
func (s *sandbox) installRunawayIfHook() {
	if hasCommand("hook") {
		s.installRunaway()
	}
}

// runawaySpend is runaway's spend for a finished session from each command
// this build has: `runaway status --json` (the guarded session, as the hook
// counted it) and `runaway replay --json` on its transcript.
func (s *sandbox) runawaySpend(harness, session, transcript string) []spendFigure {
	s.t.Helper()
	var figs []spendFigure
	if hasCommand("status") && hasCommand("hook") {
		v := s.status(harness, session)
		figs = append(figs, spendFigure{"status", v.SpendUSD, v.Estimated})
	}
	if hasCommand("replay") {
		r := s.runaway("replay", "--json", transcript)
		var rep struct {
			CostUSD   float64 `json:"cost_usd"`
			Estimated bool    `json:"estimated"`
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil {
			s.t.Fatalf("runaway replay --json %s: exit %d\n%s%s", transcript, r.Code, r.Stdout, r.Stderr)
		}
		figs = append(figs, spendFigure{"replay", rep.CostUSD, rep.Estimated})
	}
	if hasCommand("report") {
		usd, est := s.reportSpend(harness, session)
		figs = append(figs, spendFigure{"report", usd, est})
	}
	return figs
}

// reportSpend is the session's row in `runaway report session --json`: what
// runaway reads of the agent's history, guarded or not.
func (s *sandbox) reportSpend(agent, session string) (usd float64, estimated bool) {
	s.t.Helper()
	r := s.runaway("report", "session", "--json", "--no-cache", "--agent", agent)
	var rep struct {
		Rows []struct {
			Key          string  `json:"key"`
			CostUSD      float64 `json:"cost_usd"`
			EstimatedUSD float64 `json:"estimated_usd"`
		} `json:"rows"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &rep) != nil {
		s.t.Fatalf("runaway report session --json: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	found := false
	for _, row := range rep.Rows {
		if row.Key == session {
			usd, estimated, found = usd+row.CostUSD, estimated || row.EstimatedUSD > 0, true
		}
	}
	if !found {
		s.t.Errorf("runaway report has no row for %s session %s:\n%s", agent, session, r.Stdout)
	}
	return usd, estimated
}

// gpt55 is the published gpt-5.5 rate, USD per million tokens
// (shared/reference/codex.md §5): input, cached input, output.
var gpt55 = struct{ input, cached, output float64 }{5, 0.50, 30}

// runaway's spend for a finished Codex session, one compaction included,
// equals the usage the fake server reported, priced at the published rate,
// to within 0.5%.
func TestSpendMatchesCodexReportedUsage(t *testing.T) {
	requireSpendReport(t)
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
	s.installRunawayIfHook()
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
	for _, f := range s.runawaySpend("codex", r.Session(), r.Rollout) {
		t.Logf("SPEND codex  %-28s runaway %-6s $%.6f%s  server-reported usage at list price $%.6f  (%+.3f%%)", codexModel, f.source, f.usd, estimated(f.estimated), want, 100*(f.usd-want)/want)
		if f.estimated || !closeTo(f.usd, want) {
			t.Errorf("runaway %s's spend $%.6f%s, reported usage %+v priced $%.6f: more than 0.5%% apart", f.source, f.usd, estimated(f.estimated), u, want)
		}
	}
}

// Codex's fast mode (`service_tier = "fast"`) asks for OpenAI's priority
// processing, billed at 2.5x on gpt-5.5: runaway reads the tier from the
// rollout Codex writes and prices the session as billed.
func TestSpendCodexPriorityTier(t *testing.T) {
	requireSpendReport(t)
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	srv := newOpenAIServer(t, codexScript{
		Turns: []codexTurn{
			{Cmd: "echo one", Usage: codexUsage{Input: 12_000, Output: 700, Reasoning: 300}},
			{Cmd: "echo two", Usage: codexUsage{Input: 14_000, Cached: 11_000, Output: 500, Reasoning: 100}},
		},
		End: codexUsage{Input: 10_000, Cached: 9_000, Output: 200},
	})
	s.writeCodexConfig(srv)
	cfg := filepath.Join(s.codexDir, "config.toml")
	s.writeFile(cfg, "service_tier = \"fast\"\n"+s.readFile(cfg))
	s.installRunawayIfHook()
	r := s.runCodex(srv, "fast", nil)
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	for _, l := range srv.log() {
		if l.ServiceTier != "priority" {
			t.Fatalf("a request asked for service_tier %q, want priority: %+v", l.ServiceTier, srv.log())
		}
	}
	u := srv.reported()
	standard := (float64(u.Input-u.Cached)*gpt55.input + float64(u.Cached)*gpt55.cached + float64(u.Output)*gpt55.output) / 1e6
	want := 2.5 * standard
	for _, f := range s.runawaySpend("codex", r.Session(), r.Rollout) {
		t.Logf("SPEND codex priority %-20s runaway %-6s $%.6f%s  billed $%.6f (standard $%.6f)", codexModel, f.source, f.usd, estimated(f.estimated), want, standard)
		if f.estimated || !closeTo(f.usd, want) {
			t.Errorf("runaway %s's spend $%.6f, the priority tier bills $%.6f", f.source, f.usd, want)
		}
	}
}
