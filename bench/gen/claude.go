// Package gen writes generated agent sessions for the benchmarks, in the
// agents' own shapes, so that every bench reads the same kind of history.
package gen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Text is k bytes of filler prose.
func Text(k int) string { return strings.Repeat("lorem ipsum dolor sit amet, ", k/28+1)[:k] }

// File appends JSON lines to a file, counting the bytes.
type File struct {
	f *os.File
	N int64
}

// Create opens path for appending, making its folder.
func Create(path string) (*File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &File{f: f}, nil
}

// Line writes v as one JSON line.
func (f *File) Line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f.N += int64(len(b))
	_, err = f.f.Write(b)
	return err
}

func (f *File) Close() error { return f.f.Close() }

// ClaudeModels are the models a generated Claude Code session uses.
var ClaudeModels = []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}

// Claude writes Claude Code transcripts: per response one assistant line
// per content block (thinking, text, tool_use) each with the response's
// usage (a subagent's early lines with partial output, as Claude Code
// writes them), a tool result (now and then of megabytes), and now and
// then a file-history snapshot.
type Claude struct {
	Rng *rand.Rand
	// Seq numbers the responses: their message, request and tool ids.
	Seq *int
}

// WriteFile appends about size bytes of responses to the transcript at
// path, of the given session, the first at start and each next 5 to 65
// seconds later. It returns the bytes written.
func (c Claude) WriteFile(path, session string, size int64, sidechain bool, start time.Time) (int64, error) {
	f, err := Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	rng := c.Rng
	base := map[string]any{"parentUuid": "p", "isSidechain": sidechain, "userType": "external", "cwd": "/bench/proj",
		"sessionId": session, "version": "2.1.328", "gitBranch": "main"}
	line := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	at := start
	for f.N < size {
		*c.Seq++
		resp := *c.Seq
		at = at.Add(time.Duration(5+rng.IntN(60)) * time.Second)
		ts := at.Format("2006-01-02T15:04:05.000Z")
		id := fmt.Sprintf("msg_01%024d", resp)
		req := fmt.Sprintf("req_011C%020d", resp)
		model := ClaudeModels[rng.IntN(len(ClaudeModels))]
		in, cw, cr := 3+rng.IntN(50), 500+rng.IntN(5000), 20000+rng.IntN(100000)
		usage := func(out int) map[string]any {
			return map[string]any{"input_tokens": in, "cache_creation_input_tokens": cw,
				"cache_read_input_tokens": cr, "output_tokens": out, "service_tier": "standard",
				"cache_creation":  map[string]any{"ephemeral_5m_input_tokens": cw - 500, "ephemeral_1h_input_tokens": 500},
				"server_tool_use": map[string]any{"web_search_requests": 0}, "inference_geo": "global", "speed": "standard"}
		}
		out := 50 + rng.IntN(2000)
		blocks := []map[string]any{
			{"type": "thinking", "thinking": Text(500 + rng.IntN(3000)), "signature": Text(400)},
			{"type": "text", "text": Text(200 + rng.IntN(1500))},
			{"type": "tool_use", "id": fmt.Sprintf("toolu_01%020d", resp), "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "run tests"}},
		}
		for b, block := range blocks {
			o := out
			if sidechain && b < len(blocks)-1 {
				o = 1 + b // subagent files carry partial output on early lines
			}
			err := f.Line(line(map[string]any{"type": "assistant", "requestId": req, "uuid": fmt.Sprintf("u%d-%d", resp, b), "timestamp": ts,
				"message": map[string]any{"model": model, "id": id, "type": "message", "role": "assistant",
					"content": []any{block}, "stop_reason": nil, "usage": usage(o)}}))
			if err != nil {
				return f.N, err
			}
		}
		result := Text(1000 + rng.IntN(20000))
		if rng.IntN(400) == 0 {
			result = Text(3 << 20) // a tool that printed megabytes
		}
		err := f.Line(line(map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", resp), "timestamp": ts,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": fmt.Sprintf("toolu_01%020d", resp), "is_error": rng.IntN(10) == 0, "content": result}}},
			"toolUseResult": map[string]any{"stdout": result[:min(len(result), 2000)], "stderr": ""}}))
		if err != nil {
			return f.N, err
		}
		if rng.IntN(20) == 0 {
			if err := f.Line(map[string]any{"type": "file-history-snapshot", "messageId": id, "snapshot": map[string]any{"trackedFileBackups": Text(30000)}}); err != nil {
				return f.N, err
			}
		}
	}
	return f.N, nil
}
