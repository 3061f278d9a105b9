package transcripts

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
