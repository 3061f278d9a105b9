// Command reportbench times `runaway report` against ccusage on the same
// generated history: Claude Code sessions with subagents, Codex rollouts and
// Gemini CLI sessions, together of each size asked for (default 10, 100 and
// 1000 MB). For each size, round by round and alternated, it runs
//
//	runaway report daily --json --no-cache    and   ccusage daily --json --offline
//	runaway report session --json --no-cache  and   ccusage session --json --offline
//
// and a second report: a report with its cache warm after about 1 MB of new
// lines were appended. It prints the median wall and CPU time, the peak
// memory, the ratios and the load average, and checks that both counted the
// same tokens. ccusage (pinned, its native linux-x64 build) is installed
// with npm under a scratch home; nothing else leaves the temp folder.
//
//	go run ./bench/reportbench [-mb 10,100,1000] [-runs 5] [-ccusage-version 20.0.24]
//
// To measure in a quiet window without generating there: -dir DIR -prepare
// writes the histories into DIR beforehand; -dir DIR (with -runaway, a
// binary built beforehand) then measures on them.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/bench/measure"
)

func main() {
	mbs := flag.String("mb", "10,100,1000", "history sizes to generate, in MB")
	runs := flag.Int("runs", 5, "alternated runs of each program per size; medians are reported")
	version := flag.String("ccusage-version", "20.0.24", "ccusage version (the newest whose native linux-x64 build the registry serves)")
	ccusage := flag.String("ccusage", "", "a ccusage binary to use instead of installing one")
	keep := flag.Bool("keep", false, "keep the generated history (its folder is printed)")
	flag.StringVar(&histories, "dir", "", "keep the histories in this folder, and measure on the ones already there")
	flag.BoolVar(&prepare, "prepare", false, "with -dir: only write the histories")
	flag.StringVar(&runawayBin, "runaway", "", "a runaway binary to time instead of building this tree's")
	flag.Parse()
	if err := run(*mbs, *runs, *version, *ccusage, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "reportbench:", err)
		os.Exit(1)
	}
}

var (
	histories, runawayBin string
	prepare               bool
)

func run(mbList string, runs int, version, ccusage string, keep bool) error {
	dir, err := os.MkdirTemp("", "reportbench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("history in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if prepare {
		if histories == "" {
			return fmt.Errorf("-prepare needs -dir")
		}
		for _, s := range strings.Split(mbList, ",") {
			mb, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("-mb: %v", err)
			}
			if _, _, err := history(dir, mb); err != nil {
				return err
			}
		}
		return nil
	}
	runaway := runawayBin
	if runaway == "" {
		if runaway, err = buildRunaway(dir); err != nil {
			return err
		}
	}
	if ccusage == "" {
		if ccusage, err = installCcusage(dir, version); err != nil {
			return err
		}
	}
	for _, s := range strings.Split(mbList, ",") {
		mb, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("-mb: %v", err)
		}
		if err := benchSize(dir, runaway, ccusage, mb, runs); err != nil {
			return err
		}
	}
	return nil
}

// history is the generated history of mb MB: written into dir, or with
// -dir found there (written when missing).
func history(dir string, mb int) (*generator, int64, error) {
	if histories != "" {
		dir = histories
	}
	home := filepath.Join(dir, fmt.Sprintf("home-%d", mb))
	g := newGenerator(home)
	done := filepath.Join(home, "generated")
	if histories != "" {
		if b, err := os.ReadFile(done); err == nil {
			total, err := g.found(string(b))
			return g, total, err
		}
		os.RemoveAll(home) // half written
	}
	total, err := g.history(int64(mb) << 20)
	if err != nil {
		return nil, 0, err
	}
	g.note = g.summary()
	return g, total, os.WriteFile(done, []byte(g.note), 0o644)
}

func benchSize(dir, runaway, ccusage string, mb, runs int) error {
	g, total, err := history(dir, mb)
	if err != nil {
		return err
	}
	home := g.home
	fmt.Printf("\n== %.0f MB of history: %s\n", float64(total)/(1<<20), g.note)
	fmt.Printf("load average before: %s\n", measure.Loadavg())
	env := homeEnv(home)
	cmd := func(bin string, args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			c := exec.Command(bin, args...)
			c.Env = env
			return c
		}
	}
	first := []*measure.Contender{
		{Name: "report daily", Cmd: cmd(runaway, "report", "daily", "--json", "--no-cache")},
		{Name: "ccusage daily", Cmd: cmd(ccusage, "daily", "--json", "--offline")},
		{Name: "report session", Cmd: cmd(runaway, "report", "session", "--json", "--no-cache")},
		{Name: "ccusage session", Cmd: cmd(ccusage, "session", "--json", "--offline")},
	}
	// A second report: the cache warm, then about 1 MB appended.
	second := &measure.Contender{Name: "2nd report", Cmd: cmd(runaway, "report", "daily", "--json")}
	warm := cmd(runaway, "report", "daily", "--json")
	for round := range runs {
		for _, c := range first {
			if err := c.Run(); err != nil {
				return err
			}
		}
		if out, err := warm().CombinedOutput(); err != nil {
			return fmt.Errorf("warming the cache: %v\n%s", err, out)
		}
		if err := g.appendMB(round); err != nil {
			return err
		}
		if err := second.Run(); err != nil {
			return err
		}
	}
	fmt.Printf("load average %s; medians of %d alternated runs (a fresh process each; cpu = user+sys):\n", measure.Loadavg(), runs)
	for _, c := range append(first, second) {
		w := measure.Median(c.Wall)
		fmt.Printf("  %-16s wall %7.3f s  %8.1f MB/s  cpu %7.3f s  peak RSS %6.1f MB\n", c.Name, w.Seconds(), float64(total)/(1<<20)/w.Seconds(), measure.Median(c.CPU).Seconds(), float64(c.RSS)/1024)
	}
	for i := 0; i < len(first); i += 2 {
		r, c := first[i], first[i+1]
		fmt.Printf("  ccusage/report %-8s wall %.2fx, cpu %.2fx, peak memory %.2fx\n", strings.Fields(r.Name)[1]+":", measure.Ratio(c.Wall, r.Wall), measure.Ratio(c.CPU, r.CPU), float64(c.RSS)/float64(r.RSS))
	}
	fmt.Printf("  first report / second report (1 MB new): wall %.1fx\n", measure.Ratio(first[0].Wall, second.Wall))
	return compareTotals(first[0].Out, first[1].Out)
}

// compareTotals checks that both programs counted the same tokens.
func compareTotals(report, ccusage string) error {
	var r struct {
		Totals struct {
			Input      int64   `json:"input_tokens"`
			Output     int64   `json:"output_tokens"`
			CacheWrite int64   `json:"cache_creation_tokens"`
			CacheRead  int64   `json:"cache_read_tokens"`
			USD        float64 `json:"cost_usd"`
		} `json:"totals"`
	}
	var c struct {
		Totals struct {
			Input      int64   `json:"inputTokens"`
			Output     int64   `json:"outputTokens"`
			CacheWrite int64   `json:"cacheCreationTokens"`
			CacheRead  int64   `json:"cacheReadTokens"`
			USD        float64 `json:"totalCost"`
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		return fmt.Errorf("report's JSON: %v", err)
	}
	if err := json.Unmarshal([]byte(ccusage), &c); err != nil {
		return fmt.Errorf("ccusage's JSON: %v", err)
	}
	fmt.Printf("  tokens in/out/cache write/cache read: report %d/%d/%d/%d ($%.2f), ccusage %d/%d/%d/%d ($%.2f)\n",
		r.Totals.Input, r.Totals.Output, r.Totals.CacheWrite, r.Totals.CacheRead, r.Totals.USD,
		c.Totals.Input, c.Totals.Output, c.Totals.CacheWrite, c.Totals.CacheRead, c.Totals.USD)
	return nil
}

// homeEnv is a scratch home holding the generated history and nothing of
// the machine's: both programs see the same agents' folders.
func homeEnv(home string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "NO_COLOR=1",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(home, ".claude"), "CODEX_HOME=" + filepath.Join(home, ".codex"),
		"GEMINI_CLI_HOME=" + home}
	return env
}

// buildRunaway builds this tree's runaway, static, as releases are built.
func buildRunaway(dir string) (string, error) {
	out := filepath.Join(dir, "runaway")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/runaway-guard/runaway/cmd/runaway")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building runaway: %v", err)
	}
	return out, nil
}

// installCcusage installs ccusage@version with npm under a scratch home
// (npm and its scripts write nothing into the real one), retrying, and
// returns its native binary.
func installCcusage(dir, version string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = dir
	}
	prefix := filepath.Join(cache, "runaway-bench", "ccusage-"+version)
	bin := filepath.Join(prefix, "node_modules", "@ccusage", "ccusage-linux-x64", "bin", "ccusage")
	check := func() bool {
		os.Chmod(bin, 0o755) // npm unpacks it without the x bit
		out, err := exec.Command(bin, "--version").Output()
		return err == nil && strings.Contains(string(out), version)
	}
	if check() {
		return bin, nil
	}
	scratch := filepath.Join(dir, "npm-home")
	var last error
	for attempt := 1; attempt <= 4; attempt++ {
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", prefix, "ccusage@"+version)
		cmd.Env = append(os.Environ(), "HOME="+scratch, "npm_config_cache="+filepath.Join(scratch, ".npm"))
		out, err := cmd.CombinedOutput()
		if err == nil && check() {
			return bin, nil
		}
		last = fmt.Errorf("npm install ccusage@%s (attempt %d): %v\n%s", version, attempt, err, out)
		time.Sleep(time.Duration(attempt) * 3 * time.Second)
	}
	return "", last
}
