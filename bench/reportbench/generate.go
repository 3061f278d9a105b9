package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/bench/gen"
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
	note    string // what was written, for the figures' heading
}

// found takes a history written before (by an earlier run with -dir): its
// Claude Code sessions to append to, and its size.
func (g *generator) found(note string) (int64, error) {
	g.note = note
	var total int64
	err := filepath.WalkDir(g.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
		if filepath.Base(filepath.Dir(filepath.Dir(p))) == "projects" {
			g.claude = append(g.claude, p)
		}
		return nil
	})
	g.written = total
	g.seq = 1 << 40 // ids of appended responses never meet those written before
	return total, err
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

// claudeFile appends about size bytes of responses to a Claude Code
// transcript.
func (g *generator) claudeFile(path, session string, size int64, sidechain bool, at time.Time) error {
	n, err := gen.Claude{Rng: g.rng, Seq: &g.seq}.WriteFile(path, session, size, sidechain, at)
	g.written += n
	return err
}

// create opens a file whose lines count in the history's size.
func (g *generator) create(path string) (*counted, error) {
	f, err := gen.Create(path)
	return &counted{File: f, g: g}, err
}

// counted is a gen.File whose lines count in the history's size.
type counted struct {
	*gen.File
	g *generator
}

func (c *counted) Line(v any) error {
	n := c.N
	err := c.File.Line(v)
	c.g.written += c.N - n
	return err
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
	defer f.Close()
	ev := func(t time.Time, typ string, payload map[string]any) error {
		return f.Line(map[string]any{"timestamp": t.Format("2006-01-02T15:04:05.000Z"), "type": typ, "payload": payload})
	}
	if err := ev(at, "session_meta", map[string]any{"id": thread, "session_id": thread, "timestamp": at.Format(time.RFC3339), "cwd": "/bench/codex",
		"originator": "codex_exec", "cli_version": "0.171.0", "source": "exec", "base_instructions": map[string]any{"text": gen.Text(20000)}}); err != nil {
		return err
	}
	var inTot, cachedTot, outTot int
	for turn := 0; f.N < size; turn++ {
		at = at.Add(time.Duration(5+g.rng.IntN(60)) * time.Second)
		if err := ev(at, "turn_context", map[string]any{"turn_id": fmt.Sprintf("t%d", turn), "cwd": "/bench/codex", "model": "gpt-5.5",
			"approval_policy": "never", "sandbox_policy": map[string]any{"type": "danger-full-access"}}); err != nil {
			return err
		}
		for call := 0; call < 3 && f.N < size; call++ {
			g.seq++
			id := fmt.Sprintf("call_%020d", g.seq)
			in, cached, out := 20000+g.rng.IntN(80000), 0, 200+g.rng.IntN(3000)
			cached = in * (5 + g.rng.IntN(4)) / 10
			inTot, cachedTot, outTot = inTot+in, cachedTot+cached, outTot+out
			if err := ev(at, "response_item", map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": gen.Text(2000 + g.rng.IntN(4000))}); err != nil {
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
			output := gen.Text(500 + g.rng.IntN(15000))
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
	defer f.Close()
	ts := func() string { return at.Format("2006-01-02T15:04:05.000Z") }
	if err := f.Line(map[string]any{"sessionId": id, "projectHash": strings.Repeat("9f", 32), "startTime": ts(), "lastUpdated": ts(), "kind": "main"}); err != nil {
		return err
	}
	for m := 0; f.N < size; m++ {
		at = at.Add(time.Duration(5+g.rng.IntN(60)) * time.Second)
		if err := f.Line(map[string]any{"id": fmt.Sprintf("u%d", m), "timestamp": ts(), "type": "user", "content": []any{map[string]any{"text": gen.Text(200)}}}); err != nil {
			return err
		}
		in := 20000 + g.rng.IntN(80000)
		tokens := map[string]any{"input": in, "output": 200 + g.rng.IntN(3000), "cached": in / 2, "thoughts": g.rng.IntN(2000), "tool": 0, "total": in + 3000}
		msg := map[string]any{"id": fmt.Sprintf("g%d", m), "timestamp": ts(), "type": "gemini", "content": gen.Text(500 + g.rng.IntN(3000)),
			"thoughts": []any{}, "tokens": tokens, "model": "gemini-3.8-flash",
			"toolCalls": []any{map[string]any{"id": fmt.Sprintf("run_shell_command_%d", m), "name": "run_shell_command",
				"args": map[string]any{"command": "make test"}, "status": "success",
				"result": []any{map[string]any{"functionResponse": map[string]any{"id": fmt.Sprintf("run_shell_command_%d", m), "name": "run_shell_command",
					"response": map[string]any{"output": "Output: " + gen.Text(500+g.rng.IntN(8000)) + "\nExit Code: 0"}}}}}}}
		if err := f.Line(msg); err != nil {
			return err
		}
		if err := f.Line(map[string]any{"$set": map[string]any{"lastUpdated": ts()}}); err != nil {
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
