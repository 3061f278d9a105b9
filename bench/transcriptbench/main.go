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
	"time"

	"github.com/runaway-guard/runaway/bench/gen"
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
	flag.StringVar(&keepDir, "dir", "", "generate the session into this folder and keep it; measure on the one there when there is one (generate before a quiet window, measure in it)")
	flag.StringVar(&runawayBin, "runaway", "", "a runaway binary to time instead of building this tree's")
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

var keepDir, runawayBin string

func run(mb, runs int, ccusage, baseline string) error {
	dir, err := os.MkdirTemp("", "transcriptbench-")
	if err != nil {
		return err
	}
	if os.Getenv("KEEP") == "" {
		defer os.RemoveAll(dir)
	}
	sessions := dir
	if keepDir != "" {
		sessions = filepath.Join(keepDir, fmt.Sprintf("mb-%d", mb))
	}
	project := filepath.Join(sessions, "claude", "projects", "-bench-proj")
	main := filepath.Join(project, session+".jsonl")
	done := filepath.Join(sessions, "generated")
	var total int64
	if b, err := os.ReadFile(done); err == nil && keepDir != "" {
		fmt.Sscan(string(b), &total)
	} else {
		os.RemoveAll(project)
		if total, err = generate(project, int64(mb)<<20); err != nil {
			return err
		}
		if err := os.WriteFile(done, []byte(fmt.Sprint(total)), 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("%.1f MB: %s plus 8 subagent files\n", float64(total)/(1<<20), main)

	self, err := os.Executable()
	if err != nil {
		return err
	}
	runaway := runawayBin
	if runaway == "" {
		if runaway, err = buildRunaway(dir); err != nil {
			return err
		}
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
			c.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR="+filepath.Join(sessions, "claude"), "HOME="+dir)
			return c
		}}
		contenders = append(contenders, cc)
	}
	fmt.Printf("load average before: %s\n", measure.Loadavg())
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
// subagent files, in Claude Code's shapes (see gen.Claude).
func generate(project string, size int64) (int64, error) {
	seq := 0
	c := gen.Claude{Rng: rand.New(rand.NewPCG(1, 2)), Seq: &seq}
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	var total int64
	for i := range 9 {
		path, share := filepath.Join(project, session+".jsonl"), size*6/10
		if i > 0 {
			path, share = filepath.Join(project, session, "subagents", fmt.Sprintf("agent-a%015x.jsonl", i-1)), size*4/10/8
		}
		n, err := c.WriteFile(path, session, share, i > 0, start)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
