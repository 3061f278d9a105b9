package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// claudeResult is the JSON `claude -p --output-format json` prints.
type claudeResult struct {
	Type              string  `json:"type"`
	Subtype           string  `json:"subtype"`
	IsError           bool    `json:"is_error"`
	Result            string  `json:"result"`
	SessionID         string  `json:"session_id"`
	NumTurns          int     `json:"num_turns"`
	TotalCostUSD      float64 `json:"total_cost_usd"`
	TerminalReason    string  `json:"terminal_reason"`
	StopReason        string  `json:"stop_reason"`
	PermissionDenials []struct {
		ToolName  string         `json:"tool_name"`
		ToolUseID string         `json:"tool_use_id"`
		ToolInput map[string]any `json:"tool_input"`
	} `json:"permission_denials"`
	ModelUsage map[string]claudeModelUsage `json:"modelUsage"`
}

type claudeModelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
}

// claudeRun is one finished `claude -p` run.
type claudeRun struct {
	procResult
	Result claudeResult
}

// claudeOpts are the per-run choices.
type claudeOpts struct {
	Model  string // --model; "" = Claude Code's default
	Resume string // --resume <session id>
	Env    map[string]string
	Args   []string // more arguments for claude
}

// runClaudeRaw runs `claude -p prompt --output-format json` and returns
// what it printed, whatever it was.
func (s *sandbox) runClaudeRaw(srv *anthropicServer, prompt string, o claudeOpts) claudeRun {
	s.t.Helper()
	claudeAgent.require(s.t)
	args := []string{"-p", prompt, "--output-format", "json", "--allowedTools", "Bash,Agent"}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	if o.Resume != "" {
		args = append(args, "--resume", o.Resume)
	}
	args = append(args, o.Args...)
	env := map[string]string{
		"ANTHROPIC_BASE_URL":                       srv.URL(),
		"ANTHROPIC_API_KEY":                        "dummy",
		"DISABLE_TELEMETRY":                        "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
	}
	for k, v := range o.Env {
		env[k] = v
	}
	r := claudeRun{procResult: s.exec(env, "", claudeAgent.path, args...)}
	return r
}

// runClaude runs `claude -p prompt --output-format json` against the fake
// server, with nothing but loopback to talk to, and reads its JSON result.
func (s *sandbox) runClaude(srv *anthropicServer, prompt string, o claudeOpts) claudeRun {
	s.t.Helper()
	r := s.runClaudeRaw(srv, prompt, o)
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Stdout)), &r.Result); err != nil {
		s.t.Fatalf("claude -p printed no JSON result (exit %d): %v\nstdout:\n%s\nstderr:\n%s", r.Code, err, r.Stdout, r.Stderr)
	}
	s.t.Logf("claude: exit %d in %s, terminal_reason %q, %d permission denials, total_cost_usd %.6f, session %s",
		r.Code, r.Took.Round(1e6), r.Result.TerminalReason, len(r.Result.PermissionDenials), r.Result.TotalCostUSD, r.Result.SessionID)
	return r
}

// claudeTranscript is the session's main transcript file.
func (s *sandbox) claudeTranscript(session string) string {
	s.t.Helper()
	m, _ := filepath.Glob(filepath.Join(s.claudeDir, "projects", "*", session+".jsonl"))
	if len(m) != 1 {
		s.t.Fatalf("want one transcript for session %s under %s, found %v", session, s.claudeDir, m)
	}
	return m[0]
}

// claudeLines parses a Claude Code transcript into its JSON lines.
func (s *sandbox) claudeLines(path string) []map[string]any {
	s.t.Helper()
	var lines []map[string]any
	for _, l := range nonEmptyLines(s.readFile(path)) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			lines = append(lines, m)
		}
	}
	return lines
}

// bashResults lists the Bash tool results in a transcript's user lines:
// their text, and whether Claude Code marked them failed.
func (s *sandbox) claudeToolResults(path string) []toolResult {
	var out []toolResult
	for _, l := range s.claudeLines(path) {
		if l["type"] != "user" {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] != "tool_result" {
				continue
			}
			isErr, _ := bm["is_error"].(bool)
			out = append(out, toolResult{Text: contentText(bm["content"]), Failed: isErr})
		}
	}
	return out
}

// claudeToolUses lists the ids of the tool calls the main transcript's
// responses made, in order.
func (s *sandbox) claudeToolUses(path string) []string {
	var ids []string
	seen := map[string]bool{}
	for _, l := range s.claudeLines(path) {
		if l["type"] != "assistant" {
			continue
		}
		msg, _ := l["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if id, ok := bm["id"].(string); ok && bm["type"] == "tool_use" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

type toolResult struct {
	Text   string
	Failed bool
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var parts []string
		for _, p := range v {
			if pm, ok := p.(map[string]any); ok {
				if t, ok := pm["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
