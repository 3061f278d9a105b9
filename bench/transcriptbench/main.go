// Command transcriptbench measures a first read of a large Claude Code
// session: it writes a generated transcript with subagent files (default
// 100 MB) to a temp folder, and times on it, alternated round by round:
// runaway's reader alone (in a subprocess), the whole `runaway replay --json`
// (cost and decisions; built from this tree, static), optionally an older
// runaway binary's replay (-baseline), and ccusage's native binary on the
// same folder. It prints the median wall and CPU time and the peak memory
// (max RSS) of each, and the ratios.
//
//	go run ./bench/transcriptbench [-mb 100] [-runs 9] [-ccusage PATH] [-baseline BIN]
//
// -ccusage defaults to the binary bench/ccusagecompare installs. The
// generated files are removed afterwards; nothing is committed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/bench/measure"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/testhome"
	"github.com/runaway-guard/runaway/transcripts"
)

const session = "7b1e0c52-6a2f-4d3b-9d0e-1f2a3b4c5d6e"

func main() {
	mb := flag.Int("mb", 100, "size of the generated session in MB")
	runs := flag.Int("runs", 9, "runs of each program, alternated; the medians are reported")
	ccusage := flag.String("ccusage", "", "ccusage binary (default: the one bench/ccusagecompare installs)")
	baseline := flag.String("baseline", "", "another runaway binary whose replay is timed alongside (an older build)")
	read := flag.String("read", "", "internal: read this transcript and print its totals")
	flag.Parse()
	if *read != "" {
		if err := readOnce(*read); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := run(*mb, *runs, *ccusage, *baseline); err != nil {
		fmt.Fprintln(os.Stderr, "transcriptbench:", err)
		os.Exit(1)
	}
}

// readOnce is the measured subprocess: one full read, as the hook's first
// call on a session would do it without a deadline.
func readOnce(path string) error {
	var l pricing.Ledger
	table := pricing.Default()
	var pos transcripts.Position
	_, err := transcripts.ReadClaude(context.Background(), path, &pos, transcripts.Sink{
		Response: func(r transcripts.Response) {
			l.Add(table, r.Model, pricing.Usage(r.Usage), pricing.Usage(r.Counted), r.Time)
		},
		ToolResult: func(transcripts.ToolResult) {},
	})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(l)
}

func run(mb, runs int, ccusage, baseline string) error {
	dir, err := os.MkdirTemp("", "transcriptbench-")
	if err != nil {
		return err
	}
	if os.Getenv("KEEP") == "" {
		defer os.RemoveAll(dir)
	}
	project := filepath.Join(dir, "claude", "projects", "-bench-proj")
	main := filepath.Join(project, session+".jsonl")
	total, err := generate(project, int64(mb)<<20)
	if err != nil {
		return err
	}
	fmt.Printf("generated %.1f MB: %s plus 8 subagent files\n", float64(total)/(1<<20), main)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	runaway, err := buildRunaway(dir)
	if err != nil {
		return err
	}
	if ccusage == "" {
		c, _ := os.UserCacheDir()
		ccusage = filepath.Join(c, "runaway-bench", "ccusage-20.0.24", "node_modules", "@ccusage", "ccusage-linux-x64", "bin", "ccusage")
	}
	// replay runs with a home of its own: no config of the machine's.
	home := filepath.Join(dir, "home")
	replayEnv := testhome.Env(os.Environ(), home)
	contenders := []*measure.Contender{
		{Name: "reader", Cmd: func() *exec.Cmd { return exec.Command(self, "-read", main) }},
		{Name: "replay", Cmd: func() *exec.Cmd {
			c := exec.Command(runaway, "replay", main, "--json")
			c.Env = replayEnv
			return c
		}},
	}
	if baseline != "" {
		contenders = append(contenders, &measure.Contender{Name: "baseline", Cmd: func() *exec.Cmd {
			c := exec.Command(baseline, "replay", main, "--json")
			c.Env = replayEnv
			return c
		}})
	}
	var cc *measure.Contender
	if _, err := os.Stat(ccusage); err != nil {
		fmt.Printf("ccusage not found at %s: run go run ./bench/ccusagecompare first\n", ccusage)
	} else {
		cc = &measure.Contender{Name: "ccusage", Cmd: func() *exec.Cmd {
			c := exec.Command(ccusage, "claude", "session", "--json", "--offline")
			c.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+filepath.Join(dir, "claude"), "HOME="+dir)
			return c
		}}
		contenders = append(contenders, cc)
	}
	// Alternated: each round runs every contender once, so a busy moment
	// of the machine falls on all of them alike.
	for i := 0; i < runs; i++ {
		for _, c := range contenders {
			if err := c.Run(); err != nil {
				return err
			}
		}
	}
	mbs := float64(total) / (1 << 20)
	fmt.Printf("load average %s; medians of %d alternated runs (each a fresh process; cpu is user+sys of all threads):\n", measure.Loadavg(), runs)
	for _, c := range contenders {
		w := measure.Median(c.Wall)
		fmt.Printf("%-8s wall %6.3f s  %7.1f MB/s  cpu %6.3f s  peak RSS %6.1f MB\n", c.Name, w.Seconds(), mbs/w.Seconds(), measure.Median(c.CPU).Seconds(), float64(c.RSS)/1024)
	}
	replay := contenders[1]
	if cc != nil {
		fmt.Printf("ccusage/replay: wall %.2fx, cpu %.2fx, peak memory %.2fx\n", measure.Ratio(cc.Wall, replay.Wall), measure.Ratio(cc.CPU, replay.CPU), float64(cc.RSS)/float64(replay.RSS))
		fmt.Printf("ccusage/reader: wall %.2fx, cpu %.2fx\n", measure.Ratio(cc.Wall, contenders[0].Wall), measure.Ratio(cc.CPU, contenders[0].CPU))
	}
	if baseline != "" {
		fmt.Printf("baseline/replay: wall %.2fx, cpu %.2fx\n", measure.Ratio(contenders[2].Wall, replay.Wall), measure.Ratio(contenders[2].CPU, replay.CPU))
	}

	// Same totals, or the speed means nothing.
	var ours, read pricing.Ledger
	json.Unmarshal([]byte(replay.Out), &ours)
	json.Unmarshal([]byte(contenders[0].Out), &read)
	tokens := func(l pricing.Ledger) (in, out int64) {
		for _, m := range l.Models {
			in, out = in+m.InputTokens, out+m.OutputTokens
		}
		return in, out
	}
	ri, ro := tokens(ours)
	di, do := tokens(read)
	fmt.Printf("tokens in/out: replay %d/%d, reader %d/%d", ri, ro, di, do)
	if cc != nil {
		var theirs struct {
			Totals struct {
				InputTokens  int64 `json:"inputTokens"`
				OutputTokens int64 `json:"outputTokens"`
			} `json:"totals"`
		}
		json.Unmarshal([]byte(cc.Out), &theirs)
		fmt.Printf(", ccusage %d/%d", theirs.Totals.InputTokens, theirs.Totals.OutputTokens)
	}
	fmt.Println()
	return nil
}

// buildRunaway builds the runaway command of this tree into dir, static, as
// the README says to build it.
func buildRunaway(dir string) (string, error) {
	out := filepath.Join(dir, "runaway")
	cmd := exec.Command("go", "build", "-o", out, "github.com/runaway-guard/runaway/cmd/runaway")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building runaway: %v", err)
	}
	return out, nil
}

// generate writes a session of about size bytes: the main transcript and 8
// subagent files, in Claude Code's shapes (one assistant line per content
// block with the response's usage, partial usage on early subagent lines,
// tool results, file-history snapshots, an occasional multi-MB line).
func generate(project string, size int64) (int64, error) {
	rng := rand.New(rand.NewPCG(1, 2))
	files := []string{filepath.Join(project, session+".jsonl")}
	for i := range 8 {
		files = append(files, filepath.Join(project, session, "subagents", fmt.Sprintf("agent-a%015x.jsonl", i)))
	}
	var total int64
	for i, path := range files {
		share := size * 6 / 10
		if i > 0 {
			share = size * 4 / 10 / 8
		}
		n, err := writeSession(path, i, share, i > 0, rng)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func writeSession(path string, file int, size int64, sidechain bool, rng *rand.Rand) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	write := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b = append(b, '\n')
		n += int64(len(b))
		_, err = f.Write(b)
		return err
	}
	text := func(k int) string { return strings.Repeat("lorem ipsum dolor sit amet, ", k/28+1)[:k] }
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
	models := []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}
	for resp := 0; n < size; resp++ {
		id := fmt.Sprintf("msg_01%02d%020d", file, resp)
		req := fmt.Sprintf("req_011C%02d%018d", file, resp)
		model := models[rng.IntN(len(models))]
		in, cw, cr := 3+rng.IntN(50), 500+rng.IntN(5000), 20000+rng.IntN(100000)
		usage := func(out int) map[string]any {
			return map[string]any{"input_tokens": in, "cache_creation_input_tokens": cw,
				"cache_read_input_tokens": cr, "output_tokens": out, "service_tier": "standard",
				"cache_creation":  map[string]any{"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 500},
				"server_tool_use": map[string]any{"web_search_requests": 0}, "inference_geo": "global", "speed": "standard"}
		}
		out := 50 + rng.IntN(2000)
		blocks := []map[string]any{
			{"type": "thinking", "thinking": text(500 + rng.IntN(3000)), "signature": text(400)},
			{"type": "text", "text": text(200 + rng.IntN(1500))},
			{"type": "tool_use", "id": fmt.Sprintf("toolu_01%020d", resp), "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "run tests"}},
		}
		for b, block := range blocks {
			o := out
			if sidechain && b < len(blocks)-1 {
				o = 1 + b // subagent files carry partial output on early lines
			}
			err := write(line(map[string]any{"type": "assistant", "requestId": req, "uuid": fmt.Sprintf("u%d-%d", resp, b),
				"timestamp": "2026-11-30T10:00:00.000Z",
				"message": map[string]any{"model": model, "id": id, "type": "message", "role": "assistant",
					"content": []any{block}, "stop_reason": nil, "usage": usage(o)}}))
			if err != nil {
				return n, err
			}
		}
		result := text(1000 + rng.IntN(20000))
		if rng.IntN(400) == 0 {
			result = text(3 << 20) // a tool that printed megabytes
		}
		err := write(line(map[string]any{"type": "user", "uuid": fmt.Sprintf("r%d", resp), "timestamp": "2026-11-30T10:00:01.000Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": fmt.Sprintf("toolu_01%020d", resp), "is_error": rng.IntN(10) == 0, "content": result}}},
			"toolUseResult": map[string]any{"stdout": result[:min(len(result), 2000)], "stderr": ""}}))
		if err != nil {
			return n, err
		}
		if rng.IntN(20) == 0 {
			if err := write(map[string]any{"type": "file-history-snapshot", "messageId": id, "snapshot": map[string]any{"trackedFileBackups": text(30000)}}); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}
