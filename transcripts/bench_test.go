package transcripts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHookRead is the hook's usual read: one new response appended to
// a session with 20 subagent files already read.
func BenchmarkHookRead(b *testing.B) {
	dir := b.TempDir()
	main := filepath.Join(dir, "s.jsonl")
	line := func(i int) string {
		return fmt.Sprintf(`{"type":"assistant","requestId":"req_%d","timestamp":"2026-11-30T10:00:00Z","message":{"id":"msg_%d","model":"claude-sonnet-4-6","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":20000}}}`+"\n", i, i)
	}
	os.WriteFile(main, []byte(line(0)), 0o600)
	for i := range 20 {
		p := filepath.Join(dir, "s", "subagents", fmt.Sprintf("agent-%02d.jsonl", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(line(1000+i)), 0o600)
	}
	var pos Position
	sink := Sink{Response: func(Response) {}, ToolResult: func(ToolResult) {}}
	if _, err := ReadClaude(context.Background(), main, &pos, sink); err != nil {
		b.Fatal(err)
	}
	f, _ := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0o600)
	defer f.Close()
	for i := 0; b.Loop(); i++ {
		f.WriteString(line(i + 1))
		if _, err := ReadClaude(context.Background(), main, &pos, sink); err != nil {
			b.Fatal(err)
		}
	}
	state, _ := json.Marshal(pos)
	b.ReportMetric(float64(len(state)), "pos-bytes")
}

// BenchmarkGeminiHookRead is BenchmarkHookRead for a Gemini CLI session
// 1000 responses long, with 5 subagents: each hook run reads one new
// response (its two records) after a full read of the rest. pos-bytes is
// the Position the guard saves each time: it remembers every message id.
func BenchmarkGeminiHookRead(b *testing.B) {
	dir := b.TempDir()
	chats := filepath.Join(dir, "chats")
	main := filepath.Join(chats, "session-2026-12-01T10-00-aaaaaaaa.jsonl")
	msg := func(i int) string {
		tok := `{"id":"m-%d","timestamp":"2026-12-01T10:00:01.000Z","type":"gemini","content":"Trying again.","thoughts":[],"tokens":{"input":100000,"output":5000,"cached":60000,"thoughts":2000,"tool":0,"total":107000},"model":"gemini-3.8-flash"}` + "\n"
		calls := `{"id":"m-%d","timestamp":"2026-12-01T10:00:01.000Z","type":"gemini","content":"Trying again.","tokens":{"input":100000,"output":5000,"cached":60000,"thoughts":2000,"tool":0,"total":107000},"model":"gemini-3.8-flash","toolCalls":[{"id":"c-%d","name":"run_shell_command","args":{"command":"make test"},"status":"success","result":[{"functionResponse":{"id":"c-%d","name":"run_shell_command","response":{"output":"Output: ok\nExit Code: 1\nProcess Group PGID: 7"}}}]}]}` + "\n"
		return fmt.Sprintf(tok, i) + fmt.Sprintf(calls, i, i, i)
	}
	var sb strings.Builder
	sb.WriteString(`{"sessionId":"aaaaaaaa-1111","projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":"main"}` + "\n")
	for i := range 1000 {
		sb.WriteString(msg(i))
	}
	os.MkdirAll(filepath.Join(chats, "aaaaaaaa-1111"), 0o755)
	os.WriteFile(main, []byte(sb.String()), 0o600)
	for i := range 5 {
		os.WriteFile(filepath.Join(chats, "aaaaaaaa-1111", fmt.Sprintf("sub-%d.jsonl", i)), []byte(msg(100000+i)), 0o600)
	}
	var pos Position
	sink := Sink{Response: func(Response) {}, ToolResult: func(ToolResult) {}}
	if _, err := ReadGemini(context.Background(), main, &pos, sink); err != nil {
		b.Fatal(err)
	}
	f, _ := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0o600)
	defer f.Close()
	for i := 0; b.Loop(); i++ {
		f.WriteString(msg(2000 + i))
		// As the guard does: the Position goes through its state file.
		state, _ := json.Marshal(pos)
		var next Position
		if err := json.Unmarshal(state, &next); err != nil {
			b.Fatal(err)
		}
		pos = next
		if _, err := ReadGemini(context.Background(), main, &pos, sink); err != nil {
			b.Fatal(err)
		}
	}
	state, _ := json.Marshal(pos)
	b.ReportMetric(float64(len(state)), "pos-bytes")
}
