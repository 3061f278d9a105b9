package transcripts

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// claudeOracle computes what a Claude session costs in tokens the slow,
// obvious way: decode every line with encoding/json, keep the largest usage
// per message id + request id per file, skip <synthetic>.
func claudeOracle(t *testing.T, files []string) (Usage, int, int) {
	t.Helper()
	var total Usage
	results, failed := 0, 0
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		best := map[string]Usage{}
		var order []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var l struct {
				Type      string `json:"type"`
				RequestID string `json:"requestId"`
				Message   struct {
					ID      string          `json:"id"`
					Model   string          `json:"model"`
					Content json.RawMessage `json:"content"`
					Usage   *struct {
						In            int64 `json:"input_tokens"`
						Out           int64 `json:"output_tokens"`
						CR            int64 `json:"cache_read_input_tokens"`
						CC            int64 `json:"cache_creation_input_tokens"`
						CacheCreation struct {
							M5 int64 `json:"ephemeral_5m_input_tokens"`
							H1 int64 `json:"ephemeral_1h_input_tokens"`
						} `json:"cache_creation"`
						STU struct {
							WS int64 `json:"web_search_requests"`
						} `json:"server_tool_use"`
					} `json:"usage"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			switch l.Type {
			case "assistant":
				if l.Message.Usage == nil || l.Message.Model == "<synthetic>" {
					continue
				}
				mu := l.Message.Usage
				u := Usage{Input: mu.In, Output: mu.Out, CacheRead: mu.CR, CacheCreation: mu.CC,
					CacheWrite5m: mu.CacheCreation.M5, CacheWrite1h: mu.CacheCreation.H1, WebSearch: mu.STU.WS}
				key := l.Message.ID + ":" + l.RequestID
				if l.Message.ID == "" {
					key = "line:" + strconv.Itoa(len(order))
					order = append(order, key)
					best[key] = u
					continue
				}
				old, seen := best[key]
				if !seen {
					order = append(order, key)
				}
				if !seen || u.Total() > old.Total() {
					best[key] = u
				}
			case "user":
				var blocks []struct {
					Type    string `json:"type"`
					IsError bool   `json:"is_error"`
				}
				if json.Unmarshal(l.Message.Content, &blocks) != nil {
					continue
				}
				for _, b := range blocks {
					if b.Type == "tool_result" {
						results++
						if b.IsError {
							failed++
						}
					}
				}
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for _, k := range order {
			total = total.Add(best[k])
		}
	}
	return tokensOnly(total), results, failed
}

func TestClaudeEveryRealFixtureMatchesOracle(t *testing.T) {
	root := filepath.Join(realFixtures(t), "claude-code")
	files := jsonlFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("expected the ~99 Claude fixtures, found %d", len(files))
	}
	var sessions, withUsage int
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, root), func(t *testing.T) {
			got := readAll(t, ReadClaude, path)
			session, err := claudeFormat.SessionFiles(path)
			if err != nil {
				t.Fatal(err)
			}
			want, results, failed := claudeOracle(t, session)
			if tokensOnly(got.Usage) != want {
				t.Errorf("usage = %+v, oracle %+v", got.Usage, want)
			}
			if got.Results != results || got.Failed != failed {
				t.Errorf("tool results = %d (%d failed), oracle %d (%d failed)", got.Results, got.Failed, results, failed)
			}
			sessions++
			if want.Total() > 0 {
				withUsage++
			}
		})
	}
	if withUsage < 40 {
		t.Errorf("only %d of %d fixtures had usage; the reader found too little", withUsage, sessions)
	}
}

// The main transcript of a session with subagents includes them, in both
// layouts.
func TestClaudeSessionIncludesSubagents(t *testing.T) {
	real := realFixtures(t)
	cases := []struct {
		main      string
		subagents int
	}{
		{"claude-code/codemie-ai__codemie-code/tests/integration/session/fixtures/claude/incremental-subagents/turn-2.jsonl", 1},
		{"claude-code/daaain__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl", 6},
		// older layout: agent-*.jsonl beside the main file, carrying its session id
		{"claude-code/daaain__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-coderabbit-review-helper/cb2e607c-c758-415a-8b45-c49e4631906a.jsonl", 3},
	}
	for _, c := range cases {
		files, err := claudeFormat.SessionFiles(filepath.Join(real, c.main))
		if err != nil {
			t.Fatal(err)
		}
		if len(files)-1 != c.subagents {
			t.Errorf("%s: %d subagent files, want %d: %v", c.main, len(files)-1, c.subagents, files)
		}
	}
}

// Largest usage wins, pinned on a real subagent file whose block lines carry
// growing output_tokens for one response.
func TestClaudeLargestUsageWins(t *testing.T) {
	path := filepath.Join(realFixtures(t), "claude-code/codemie-ai__codemie-code/tests/integration/session/fixtures/claude/incremental-subagents/turn-1/subagents/agent-a485154.jsonl")
	var first, largest, sum Usage
	var records int
	var pos Position
	_, err := ReadClaude(context.Background(), path, &pos, Sink{Response: func(r Response) {
		records++
		if r.Counted != (Usage{}) && first == (Usage{}) {
			first, largest = r.Counted, r.Usage
		}
		sum = sum.Add(r.Usage).Sub(r.Counted)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if first == (Usage{}) {
		t.Fatal("no response was seen twice with a larger usage; the file should show it")
	}
	if largest.Output <= first.Output {
		t.Errorf("a later record should carry more output: %d then %d", first.Output, largest.Output)
	}
	want, _, _ := claudeOracle(t, []string{path})
	if tokensOnly(sum) != want {
		t.Errorf("sum %+v, want largest-per-response %+v", sum, want)
	}
	// The first-wins rule (older tools) would have counted less output.
	if records <= 6 {
		t.Errorf("expected corrections beyond the 6 responses, got %d records", records)
	}
}

func TestClaudeApiRequestBlobNotCounted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	lines := `{"type":"assistant","requestId":"req_1","timestamp":"2026-11-30T10:00:00Z","message":{"id":"msg_1","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"false"}}],"usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}
{"type":"user","timestamp":"2026-11-30T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"Exit code 1"}]}}
{"type":"api-request-blob","timestamp":"2026-11-30T10:00:02Z","blob":{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true}]}]}}
{"type":"assistant","requestId":"req_2","timestamp":"2026-11-30T10:00:03Z","message":{"id":"msg_2","model":"<synthetic>","content":[],"usage":{"input_tokens":100,"output_tokens":100}}}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, ReadClaude, path)
	if got.Results != 1 || got.Failed != 1 {
		t.Errorf("results %d failed %d, want 1 and 1", got.Results, got.Failed)
	}
	if got.Calls != 1 || got.CallIDs[0] != "toolu_1" {
		t.Errorf("calls %v", got.CallIDs)
	}
	if got.Usage.Input != 10 || got.Usage.Output != 5 {
		t.Errorf("usage %+v: the <synthetic> response must not count", got.Usage)
	}
}

// Claude Code 2.1.328 marks each tool result's user line with the
// permission decision: "reject" when a hook's deny or an unanswered ask kept
// the call from running (as seen in a real -p run), "accept" when it ran.
func TestClaudeRefusedToolResult(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	lines := `{"parentUuid":"a","promptId":"p1","type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"Exit code 1","is_error":true,"tool_use_id":"toolu_ran"}]},"permissionDecision":{"decision":"accept","source":"config","reasonType":"rule","ruleSource":"cliArg"},"toolUseResult":"Error: Exit code 1"}
{"parentUuid":"b","promptId":"p1","type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"runaway: the same Bash call 5 times in a row","is_error":true,"tool_use_id":"toolu_asked"}]},"permissionDecision":{"decision":"reject","source":"config","reasonCode":"hook:PreToolUse"},"toolUseResult":"Error: runaway: the same Bash call 5 times in a row"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"old","is_error":true,"tool_use_id":"toolu_old"}]}}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	var pos Position
	sink := Sink{ToolResult: func(r ToolResult) { refused[r.ToolUseID] = r.Refused }}
	if _, err := ReadClaude(context.Background(), path, &pos, sink); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"toolu_ran": false, "toolu_asked": true, "toolu_old": false}
	if fmt.Sprint(refused) != fmt.Sprint(want) {
		t.Errorf("refused = %v, want %v", refused, want)
	}
}

// Issue 23, item 11: Claude Code 2.1.328 writes no assistant line for a
// compaction's request, only a system compact_boundary line with the
// context's size before and after. The request is counted as estimated:
// the context before it as input (uncached: the dearer side), the context
// after it as output, at the session's latest model. Once, however the
// file is read.
func TestClaudeCompactionEstimated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	data := `{"type":"assistant","sessionId":"s1","requestId":"r1","timestamp":"2026-12-01T21:59:05Z","message":{"id":"m1","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":100000,"output_tokens":0}}}
{"compactMetadata":{"durationMs":253,"postTokens":2685,"preTokens":100023,"trigger":"manual"},"content":"Conversation compacted","isMeta":false,"sessionId":"s1","subtype":"compact_boundary","timestamp":"2026-12-01T21:59:07.993Z","type":"system","uuid":"4e5401d2"}
`
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []Response
	var pos Position
	for range 2 {
		if _, err := ReadClaude(t.Context(), path, &pos, Sink{Response: func(r Response) { got = append(got, r) }}); err != nil {
			t.Fatal(err)
		}
		pos.Files[0].ID = "" // read again from the start
		pos.Files[0].Off = 0
	}
	if len(got) != 2 {
		t.Fatalf("got %d responses, want the response and the compaction: %+v", len(got), got)
	}
	c := got[1]
	if !c.Estimated || c.Model != "claude-sonnet-4-6" || c.Usage.Input != 100023 || c.Usage.Output != 2685 {
		t.Errorf("compaction %+v", c)
	}
}

// Issue 23, item 10: in the older layout a subagent's agent-*.jsonl beside
// the main file can be created before its first line is written; the
// folder does not change when the line comes. It is read once the line is
// there (before: never, and its $ went uncounted).
func TestClaudeOlderLayoutAgentFileWrittenLate(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "s1.jsonl")
	agentFile := filepath.Join(dir, "agent-a1.jsonl")
	line := func(id string, in int) string {
		return fmt.Sprintf(`{"type":"assistant","sessionId":"s1","requestId":"r%s","timestamp":"2026-12-01T10:00:00Z","message":{"id":"m%s","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n", id, id, in)
	}
	os.WriteFile(main, []byte(line("1", 10)), 0o600)
	os.WriteFile(agentFile, nil, 0o600)
	var total int64
	var pos Position
	read := func() {
		if _, err := ReadClaude(t.Context(), main, &pos, Sink{Response: func(r Response) { total += r.Usage.Input - r.Counted.Input }}); err != nil {
			t.Fatal(err)
		}
	}
	read()
	f, _ := os.OpenFile(agentFile, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line("2", 1000))
	f.Close()
	read()
	if total != 1010 {
		t.Errorf("input tokens %d, want 1010 (the main file's 10 and the subagent's 1000)", total)
	}
}
