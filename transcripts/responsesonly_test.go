package transcripts

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// responses is every response a read of path yields, in order, with the
// sink asking for responses only (the readers then pass over lines that
// cannot carry usage) or for tool results and calls too.
func responses(t *testing.T, read readFunc, path string, only bool) []Response {
	t.Helper()
	var out []Response
	sink := Sink{Response: func(r Response) { out = append(out, r) }}
	if !only {
		sink.ToolResult = func(ToolResult) {}
		sink.ToolCall = func(ToolCall) {}
	}
	var pos Position
	if _, err := read(context.Background(), path, &pos, sink); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResponsesOnlyReadEqualsFullRead: a read that wants responses only (a
// report) yields exactly the responses a full read (the hook's) yields, on
// every real session file and on hand-made lines that put the fields in
// another order, hide the keys inside strings, or break the JSON.
func TestResponsesOnlyReadEqualsFullRead(t *testing.T) {
	real := realFixtures(t)
	for agent, read := range map[string]readFunc{"claude-code": ReadClaude, "codex": ReadCodex, "gemini": ReadGemini} {
		files := jsonlFiles(t, filepath.Join(real, agent))
		if len(files) == 0 {
			t.Fatalf("no %s fixtures", agent)
		}
		for _, f := range files {
			if strings.Contains(f, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
				continue
			}
			full, only := responses(t, read, f, false), responses(t, read, f, true)
			if !reflect.DeepEqual(full, only) {
				t.Errorf("%s: responses-only read yielded %d responses, the full read %d", f, len(only), len(full))
			}
		}
	}
}

func TestResponsesOnlyReadOnOddLines(t *testing.T) {
	cases := map[string]struct {
		read  readFunc
		name  string
		lines string
	}{
		"codex payload before type": {ReadCodex, "rollout-2026-11-30T10-00-00-019e0000-0000-7000-8000-000000000009.jsonl",
			`{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"id":"019e0000-0000-7000-8000-000000000009","session_id":"019e0000-0000-7000-8000-000000000009","timestamp":"2026-11-30T10:00:00.000Z"}}
{"payload":{"turn_id":"t1","model":"gpt-5.5"},"timestamp":"2026-11-30T10:00:00.100Z","type":"turn_context"}
{"timestamp":"2026-11-30T10:00:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"type\":\"token_count\",\"info\":{}}"}}
{"payload":{"info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":5,"total_tokens":105}},"type":"token_count"},"timestamp":"2026-11-30T10:00:02.000Z","type":"event_msg"}
{"timestamp":"2026-11-30T10:00:03.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":300,"cached_input_tokens":40,"output_tokens":9,"total_tokens":309}}}
{"timestamp":"2026-11-30T10:00:04.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":500,"cached_input_tokens":40,"output_tokens":9,"total_tokens":509}}}}
`},
		"claude usage inside a string": {ReadClaude, "5d1c9f7e-0000-4000-8000-000000000009.jsonl",
			`{"type":"user","sessionId":"s","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"user","content":"print \"usage\": {}"}}
{"type":"assistant","sessionId":"s","requestId":"r1","timestamp":"2026-11-30T10:00:01.000Z","message":{"id":"m1","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":10,"output_tokens":5}}}
{"type":"assistant","sessionId":"s","requestId":"r2","timestamp":"2026-11-30T10:00:01.000Z","message":{"id":"m2","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":10,
`},
		"gemini fields of other types": {ReadGemini, "session-2026-11-30T10-00-aaaaaaaa.jsonl",
			`{"sessionId":"aaaaaaaa-1111","projectHash":"ab","startTime":"2026-11-30T10:00:00.000Z","kind":"main"}
{"id":"g1","timestamp":"2026-11-30T10:00:01.000Z","type":"gemini","content":"x","tokens":{"input":100,"output":5,"cached":60},"model":"gemini-3.8-flash"}
{"id":"g2","timestamp":"2026-11-30T10:00:02.000Z","type":"gemini","content":"x","tokens":{"input":"many","output":5},"model":"gemini-3.8-flash"}
{"id":"g3","timestamp":"2026-11-30T10:00:03.000Z","type":"gemini","content":"x","tokens":{"input":100,"output":5},"model":7}
{"id":"g4","timestamp":"2026-11-30T10:00:04.000Z","type":"gemini","content":"x","tokens":{"input":100,"output":5}
{"$set":{"messages":[{"id":"g5","timestamp":"2026-11-30T10:00:05.000Z","type":"gemini","tokens":{"input":7,"output":1},"model":"gemini-3.8-flash"}]}}
{"id":"g6","timestamp":"2026-11-30T10:00:06.000Z","type":"gemini","tokens":null,"model":"gemini-3.8-flash"}
{"id":"g7","timestamp":"2026-11-30T10:00:07.000Z","type":"gemini","tokens":{"input":1.5,"output":5},"model":"gemini-3.8-flash"}
{"id":"g8","timestamp":"2026-11-30T10:00:08.000Z","type":"gemini","tokens":{"input":100,"output":5},"Tokens":{"input":9},"model":"gemini-3.8-flash"}
{"id":"g9","timestamp":"2026-11-30T10:00:09.000Z","type":"gemini","tokens":{"input":100,"Output":7,"output":5},"model":"gemini-3.8-flash"}
{"id":"g10","timestamp":"2026-11-30T10:00:10.000Z","type":"gemini","tokens":{"input":100,"output":null},"content":{"$set":1},"model":"gemini-3.8-flash"}
`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name)
			if err := os.WriteFile(path, []byte(c.lines), 0o600); err != nil {
				t.Fatal(err)
			}
			full, only := responses(t, c.read, path, false), responses(t, c.read, path, true)
			if len(full) == 0 {
				t.Fatal("the full read found no response: the case tests nothing")
			}
			if !reflect.DeepEqual(full, only) {
				t.Errorf("responses-only read:\n%+v\nfull read:\n%+v", only, full)
			}
		})
	}
}
