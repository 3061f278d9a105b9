package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// generator writes a history of sessions in the agents' own shapes, spread
// over 60 days: Claude Code (one assistant line per content block with the
// response's usage, subagent files with partial usage on early lines, tool
// results, file snapshots, a rare multi-MB line), Codex (session_meta,
// turn_context, tool calls and outputs, token_count and token_usage_record)
// and Gemini CLI (a header, messages with tokens, $set updates).
type generator struct {
	home    string
	rng     *rand.Rand
	start   time.Time
	counts  map[string]int
	claude  []string // main files, for appending
	seq     int
	written int64
}

func newGenerator(home string) *generator {
	return &generator{home: home, rng: rand.New(rand.NewPCG(1, 2)), start: time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC), counts: map[string]int{}}
}

func (g *generator) summary() string {
	return fmt.Sprintf("%d Claude Code sessions (%d subagent files), %d Codex rollouts, %d Gemini CLI sessions",
		g.counts["claude"], g.counts["subagent"], g.counts["codex"], g.counts["gemini"])
}

// history writes about size bytes: 55% Claude Code, 30% Codex, 15% Gemini CLI.
func (g *generator) history(size int64) (int64, error) {
	shares := []struct {
		share float64
		write func(int64) error
	}{{0.55, g.claudeSession}, {0.30, g.codexRollout}, {0.15, g.geminiSession}}
	for _, s := range shares {
		goal := g.written + int64(float64(size)*s.share)
		for g.written < goal {
			// Sessions of 0.2 to 4 MB, capped at a tenth of the share.
			n := int64(200_000 + g.rng.IntN(4_000_000))
			n = min(n, max(int64(float64(size)*s.share/10), 100_000), goal-g.written+1)
			if err := s.write(n); err != nil {
				return 0, err
			}
		}
	}
	return g.written, nil
}

func (g *generator) when() time.Time {
	return g.start.Add(time.Duration(g.rng.Int64N(int64(60 * 24 * time.Hour))))
}

func text(k int) string { return strings.Repeat("lorem ipsum dolor sit amet, ", k/28+1)[:k] }

// file appends JSON lines to a file, counting the bytes.
type file struct {
	f *os.File
	n int64
	g *generator
}

func (g *generator) create(path string) (*file, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &file{f: f, g: g}, nil
}

func (f *file) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	f.n += int64(len(b))
	f.g.written += int64(len(b))
	_, err = f.f.Write(b)
	return err
}

func (f *file) close() error { return f.f.Close() }

func (g *generator) claudeSession(size int64) error {
	g.counts["claude"]++
	g.seq++
	session := fmt.Sprintf("7b1e0c52-6a2f-4d3b-9d0e-%012d", g.seq)
	project := filepath.Join(g.home, ".claude", "projects", fmt.Sprintf("-bench-proj%d", g.seq%7))
	main := filepath.Join(project, session+".jsonl")
	g.claude = append(g.claude, main)
	at := g.when()
	subagents := 0
	if g.rng.IntN(3) == 0 {
		subagents = 1 + g.rng.IntN(3)
	}
	mainShare := size
	if subagents > 0 {
		mainShare = size * 6 / 10
	}
	if err := g.claudeFile(main, session, mainShare, false, at); err != nil {
		return err
	}
	for i := range subagents {
		g.counts["subagent"]++
		p := filepath.Join(project, session, "subagents", fmt.Sprintf("agent-a%015x.jsonl", i))
		if err := g.claudeFile(p, session, size*4/10/int64(subagents), true, at.Add(time.Minute)); err != nil {
			return err
		}
	}
	return nil
}

var claudeModels = []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}

func (g *generator) claudeFile(path, session string, size int64, sidechain bool, at time.Time) error {
	f, err := g.create(path)
	if err != nil {
		return err
	}
	defer f.close()
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
	for f.n < size {
		g.seq++
		resp := g.seq
		at = at.Add(time.Duration(5+g.rng.IntN(60)) * time.Second)
		ts := at.Format("2006-01-02T15:04:05.000Z")
		id := fmt.Sprintf("msg_01%024d", resp)
		req := fmt.Sprintf("req_011C%020d", resp)
		model := claudeModels[g.rng.IntN(len(claudeModels))]
		in, cw, cr := 3+g.rng.IntN(50), 500+g.rng.IntN(5000), 20000+g.rng.IntN(100000)
		usage := func(out int) map[string]any {
			return map[string]any{"input_tokens": in, "cache_creation_input_tokens": cw,
				"cache_read_input_tokens": cr, "output_tokens": out, "service_tier": "standard",
				"cache_creation":  map[string]any{"ephemeral_5m_input_tokens": cw - 500, "ephemeral_1h_input_tokens": 500},
				"server_tool_use": map[string]any{"web_search_requests": 0}, "inference_geo": "global", "speed": "standard"}
		}
		out := 50 + g.rng.IntN(2000)
		blocks := []map[string]any{
			{"type": "thinking", "thinking": text(500 + g.rng.IntN(3000)), "signature": text(400)},
			{"type": "text", "text": text(200 + g.rng.IntN(1500))},
			{"type": "tool_use", "id": fmt.Sprintf("toolu_01%020d", resp), "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "run tests"}},
		}
		for b, block := range blocks {
			o := out
			if sidechain && b < len(blocks)-1 {
				o = 1 + b
			}
			err := f.line(line(map[string]any{"type": "assistant", "requestId": req, "uuid": fmt.Sprintf("u%d-%d", resp, b), "timestamp": ts,
				"message": map[string]any{"model": model, "id": id, "type": "message", "role": "assistant",
					"content": []any{block}, "stop_reason": nil, "usage": usage(o)}}))
			if err != nil {
				return err
			}
		}
		result := text(1000 + g.rng.IntN(20000))
		if g.rng.IntN(400) == 0 {
			result = text(3 << 20) // a tool that printed megabytes
		}
		err := f.line(line(map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", resp), "timestamp": ts,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": fmt.Sprintf("toolu_01%020d", resp), "is_error": g.rng.IntN(10) == 0, "content": result}}},
			"toolUseResult": map[string]any{"stdout": result[:min(len(result), 2000)], "stderr": ""}}))
		if err != nil {
			return err
		}
		if g.rng.IntN(20) == 0 {
			if err := f.line(map[string]any{"type": "file-history-snapshot", "messageId": id, "snapshot": map[string]any{"trackedFileBackups": text(30000)}}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *generator) codexRollout(size int64) error {
	g.counts["codex"]++
	g.seq++
	at := g.when()
	thread := fmt.Sprintf("019e%04x-0000-7000-8000-%012d", g.seq%0xffff, g.seq)
	path := filepath.Join(g.home, ".codex", "sessions", at.Format("2006/01/02"),
		"rollout-"+at.Format("2006-01-02T15-04-05")+"-"+thread+".jsonl")
	f, err := g.create(path)
	if err != nil {
		return err
	}
	defer f.close()
	ev := func(t time.Time, typ string, payload map[string]any) error {
		return f.line(map[string]any{"timestamp": t.Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
	}
	if err := ev(at, "session_meta", map[string]any{"id": thread, "session_id": thread, "timestamp": at.Format(time.RFC3339), "cwd": "/bench/codex",
		"originator": "codex_exec", "cli_version": "0.171.0", "source": "exec", "base_instructions": map[string]any{"text": text(20000)}}); err != nil {
		return err
	}
	var inTot, cachedTot, outTot int
	for turn := 0; f.n < size; turn++ {
		at = at.Add(time.Duration(5+g.rng.IntN(60)) * time.Second)
		if err := ev(at, "turn_context", map[string]any{"turn_id": fmt.Sprintf("t%d", turn), "cwd": "/bench/codex", "model": "gpt-5.5",
			"approval_policy": "never", "sandbox_policy": map[string]any{"type": "danger-full-access"}}); err != nil {
			return err
		}
		for call := 0; call < 3 && f.n < size; call++ {
			g.seq++
			id := fmt.Sprintf("call_%020d", g.seq)
			in, cached, out := 20000+g.rng.IntN(80000), 0, 200+g.rng.IntN(3000)
			cached = in * (5 + g.rng.IntN(4)) / 10
			inTot, cachedTot, outTot = inTot+in, cachedTot+cached, outTot+out
			if err := ev(at, "response_item", map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": text(2000 + g.rng.IntN(4000))}); err != nil {
				return err
			}
			if err := ev(at, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": id,
				"arguments": `{"cmd":"go test ./...","workdir":"/bench/codex"}`}); err != nil {
				return err
			}
			if err := ev(at, "token_usage_record", map[string]any{"response_id": fmt.Sprintf("resp_%020d", g.seq),
				"usage":              map[string]any{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out, "total_tokens": in + out},
				"thread_token_usage": map[string]any{"input_tokens": inTot, "cached_input_tokens": cachedTot, "output_tokens": outTot, "total_tokens": inTot + outTot}}); err != nil {
				return err
			}
			total := map[string]any{"input_tokens": inTot, "cached_input_tokens": cachedTot, "output_tokens": outTot, "reasoning_output_tokens": 0, "total_tokens": inTot + outTot}
			last := map[string]any{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out, "reasoning_output_tokens": 0, "total_tokens": in + out}
			if err := ev(at, "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": total, "last_token_usage": last}}); err != nil {
				return err
			}
			output := text(500 + g.rng.IntN(15000))
			if err := ev(at, "response_item", map[string]any{"type": "function_call_output", "call_id": id,
				"output": "Process exited with code 0\nOutput:\n" + output}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *generator) geminiSession(size int64) error {
	g.counts["gemini"]++
	g.seq++
	at := g.when()
	id := fmt.Sprintf("%08x-e05d-44a8-8199-%012d", g.seq, g.seq)
	path := filepath.Join(g.home, ".gemini", "tmp", fmt.Sprintf("proj%d", g.seq%5), "chats",
		"session-"+at.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")
	f, err := g.create(path)
	if err != nil {
		return err
	}
	defer f.close()
	ts := func() string { return at.Format("2006-01-02T15:04:05.000Z") }
	if err := f.line(map[string]any{"sessionId": id, "projectHash": strings.Repeat("9f", 32), "startTime": ts(), "lastUpdated": ts(), "kind": "main"}); err != nil {
		return err
	}
	for m := 0; f.n < size; m++ {
		at = at.Add(time.Duration(5+g.rng.IntN(60)) * time.Second)
		if err := f.line(map[string]any{"id": fmt.Sprintf("u%d", m), "timestamp": ts(), "type": "user", "content": []any{map[string]any{"text": text(200)}}}); err != nil {
			return err
		}
		in := 20000 + g.rng.IntN(80000)
		tokens := map[string]any{"input": in, "output": 200 + g.rng.IntN(3000), "cached": in / 2, "thoughts": g.rng.IntN(2000), "tool": 0, "total": in + 3000}
		msg := map[string]any{"id": fmt.Sprintf("g%d", m), "timestamp": ts(), "type": "gemini", "content": text(500 + g.rng.IntN(3000)),
			"thoughts": []any{}, "tokens": tokens, "model": "gemini-3.8-flash",
			"toolCalls": []any{map[string]any{"id": fmt.Sprintf("run_shell_command_%d", m), "name": "run_shell_command",
				"args": map[string]any{"command": "make test"}, "status": "success",
				"result": []any{map[string]any{"functionResponse": map[string]any{"id": fmt.Sprintf("run_shell_command_%d", m), "name": "run_shell_command",
					"response": map[string]any{"output": "Output: " + text(500+g.rng.IntN(8000)) + "\nExit Code: 0"}}}}}}}
		if err := f.line(msg); err != nil {
			return err
		}
		if err := f.line(map[string]any{"$set": map[string]any{"lastUpdated": ts()}}); err != nil {
			return err
		}
	}
	return nil
}

// appendMB appends about 1 MB of new responses to a few Claude Code
// sessions, as a day of work adds to the newest ones.
func (g *generator) appendMB(round int) error {
	before := g.written
	for i := 0; g.written-before < 1<<20; i++ {
		main := g.claude[(round*7+i)%len(g.claude)]
		session := strings.TrimSuffix(filepath.Base(main), ".jsonl")
		if err := g.claudeFile(main, session, 200_000, false, g.start.Add(61*24*time.Hour)); err != nil {
			return err
		}
	}
	return nil
}
