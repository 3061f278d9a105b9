package transcripts

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// The fixtures are sessions GitHub Copilot CLI 1.0.102 wrote here, driven
// offline against a fake Chat Completions server with the person's own
// key (its system message left out): tools.jsonl ran bash, create, edit,
// view and `false`; subagent.jsonl ran bash, then a task subagent that ran
// bash. Every request reported 2000 (3000) prompt tokens, 500 (1000) of them
// cached, and 50 (70) completion tokens.

func TestCopilotReadsUsageRecords(t *testing.T) {
	for _, c := range []struct {
		file      string
		responses int64
		prompt    int64
		cached    int64
		out       int64
		results   int
		failed    int
		calls     int
	}{
		{"tools.jsonl", 6, 2000, 500, 50, 5, 1, 5},
		// The subagent's two requests are in its parent's file.
		{"subagent.jsonl", 5, 3000, 1000, 70, 3, 0, 3},
	} {
		tt := readAll(t, ReadCopilot, filepath.Join("testdata", "copilot", c.file))
		want := Usage{Input: c.responses * (c.prompt - c.cached), CacheRead: c.responses * c.cached, Output: c.responses * c.out}
		if tt.Responses != int(c.responses) || tokensOnly(tt.Usage) != want {
			t.Errorf("%s: %d responses, %+v; want %d, %+v", c.file, tt.Responses, tt.Usage, c.responses, want)
		}
		// `false` exits 1: Copilot CLI says success, with its exit code.
		if tt.Results != c.results || tt.Failed != c.failed || tt.Calls != c.calls {
			t.Errorf("%s: %d results (%d failed), %d calls; want %d (%d), %d", c.file, tt.Results, tt.Failed, tt.Calls, c.results, c.failed, c.calls)
		}
	}
}

func TestCopilotIsDetected(t *testing.T) {
	got, err := Detect(filepath.Join("testdata", "copilot", "tools.jsonl"))
	if err != nil || got != agent.Copilot {
		t.Fatalf("Detect = %q, %v", got, err)
	}
}

// A session's prompts are the person's user messages, not a subagent's
// task.
func TestCopilotPrompts(t *testing.T) {
	var ids []string
	var pos Position
	if _, err := ReadCopilot(context.Background(), filepath.Join("testdata", "copilot", "subagent.jsonl"), &pos, Sink{Prompt: func(p Prompt) { ids = append(ids, p.ID) }}); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != "47148d04-caf2-4701-adf7-d3dda8371046" {
		t.Errorf("prompts %v", ids)
	}
}

// Records Copilot bills, compaction and hook denials, as its schema and
// the reference describe them (none could be made offline but the denial).
func TestCopilotBilledCompactedAndDenied(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	lines := `{"type":"session.usage_record","data":{"usage":{"model":"claude-sonnet-4.5","inputTokens":1000,"outputTokens":10,"cacheReadTokens":400,"cacheWriteTokens":100,"cost":1.0,"isByok":false,"copilotUsage":{"totalNanoAiu":1234}}},"id":"u1","timestamp":"2026-12-01T10:00:00.000Z"}
{"type":"session.compaction_complete","data":{"success":true,"compactionTokensUsed":{"requestCount":1,"inputTokens":9000,"outputTokens":300,"cacheReadTokens":1000,"cacheWriteTokens":0,"model":"fake-1","aiCreditsStatus":"unavailable"}},"id":"c1","timestamp":"2026-12-01T10:00:01.000Z"}
{"type":"tool.execution_complete","data":{"toolCallId":"call_1","success":false,"error":{"code":"denied","message":"Denied by preToolUse hook: runaway: the same bash call 5 times in a row"}},"id":"t1","timestamp":"2026-12-01T10:00:02.000Z"}
{"type":"tool.execution_complete","data":{"toolCallId":"call_2","success":true,"shellExecution":{"exitCode":2},"result":{"content":"x"}},"id":"t2","timestamp":"2026-12-01T10:00:03.000Z"}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	var rs []Response
	var results []ToolResult
	var pos Position
	if _, err := ReadCopilot(context.Background(), path, &pos, Sink{Response: func(r Response) { rs = append(rs, r) }, ToolResult: func(r ToolResult) { results = append(results, r) }}); err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("responses %+v", rs)
	}
	billed, compact := rs[0], rs[1]
	if !billed.Subscription || billed.Premium != 1 || billed.Usage != (Usage{Input: 500, CacheRead: 400, CacheCreation: 100, Output: 10}) {
		t.Errorf("billed %+v", billed)
	}
	if compact.Subscription || compact.Model != "fake-1" || compact.Usage != (Usage{Input: 8000, CacheRead: 1000, Output: 300}) {
		t.Errorf("compaction %+v", compact)
	}
	if len(results) != 2 || !results[0].Refused || results[0].Blocked != "runaway: the same bash call 5 times in a row" || !results[1].Failed {
		t.Errorf("results %+v", results)
	}
	// Read again: nothing is yielded twice.
	n := len(rs)
	if _, err := ReadCopilot(context.Background(), path, &pos, Sink{Response: func(r Response) { rs = append(rs, r) }}); err != nil || len(rs) != n {
		t.Errorf("read again: %d responses, %v", len(rs)-n, err)
	}
}
