// Command ccusagecompare checks runaway's token counts and costs against
// ccusage (npm package `ccusage`, which reads the same files) on the real
// fixtures in ../shared/fixtures/real. It installs ccusage into a cache
// folder with npm, runs both on copies of the fixtures, and prints one line
// per project (Claude Code) or rollout (Codex) and model: tokens must agree
// exactly, cost within 1%. README.md ("Pricing accuracy") explains every
// difference it shows.
//
//	go run ./bench/ccusagecompare [-version 20.0.24] [-fixtures ../shared/fixtures/real]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/transcripts"
)

func main() {
	version := flag.String("version", "20.0.24", "ccusage version to install (the newest whose native linux-x64 build the registry serves)")
	fixtures := flag.String("fixtures", "../shared/fixtures/real", "real fixtures folder")
	cache := flag.String("cache", "", "where to install ccusage (default: the user cache folder)")
	flag.Parse()
	if err := run(*version, *fixtures, *cache); err != nil {
		fmt.Fprintln(os.Stderr, "ccusagecompare:", err)
		os.Exit(1)
	}
}

// Install puts ccusage@version under cache and returns its binary, retrying
// npm a few times (the registry is sometimes slow to answer).
func Install(version, cache string) (string, error) {
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(c, "runaway-bench")
	}
	dir := filepath.Join(cache, "ccusage-"+version)
	bin := filepath.Join(dir, "node_modules", ".bin", "ccusage")
	if out, err := exec.Command(bin, "--version").Output(); err == nil && strings.Contains(string(out), version) {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var last error
	for attempt := 1; attempt <= 4; attempt++ {
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "ccusage@"+version)
		out, err := cmd.CombinedOutput()
		if err == nil {
			if _, err := exec.Command(bin, "--version").Output(); err == nil {
				return bin, nil
			}
			err = fmt.Errorf("ccusage installed but does not run (its native build for this platform may be missing)")
		}
		last = fmt.Errorf("npm install ccusage@%s (attempt %d): %v\n%s", version, attempt, err, out)
		time.Sleep(time.Duration(attempt) * 2 * time.Second)
	}
	return "", last
}

type row struct {
	in, out, cr, cw int64
	usd             float64
}

func (r row) tokens() string { return fmt.Sprintf("%d/%d/%d/%d", r.in, r.out, r.cr, r.cw) }

func run(version, fixtures, cache string) error {
	ccusage, err := Install(version, cache)
	if err != nil {
		return err
	}
	latest, _ := exec.Command("npm", "view", "ccusage", "version").Output()
	fmt.Printf("ccusage %s (npm registry's latest: %s)\n", version, strings.TrimSpace(string(latest)))
	tmp, err := os.MkdirTemp("", "ccusagecompare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Claude Code: every fixture folder that holds session files becomes one
	// project under a fresh CLAUDE_CONFIG_DIR.
	claudeRoot := filepath.Join(fixtures, "claude-code")
	projects := map[string]string{} // project name → copied folder
	err = filepath.Walk(claudeRoot, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			return err
		}
		dir := filepath.Dir(p)
		rel, _ := filepath.Rel(claudeRoot, dir)
		name := strings.NewReplacer("/", "_", ".", "_").Replace(rel)
		if _, ok := projects[name]; !ok {
			dst := filepath.Join(tmp, "claude", "projects", name)
			projects[name] = dst
			return copyProject(dir, dst)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var cc struct {
		Sessions []struct {
			ProjectPath     string `json:"projectPath"`
			ModelBreakdowns []struct {
				ModelName           string  `json:"modelName"`
				InputTokens         int64   `json:"inputTokens"`
				OutputTokens        int64   `json:"outputTokens"`
				CacheReadTokens     int64   `json:"cacheReadTokens"`
				CacheCreationTokens int64   `json:"cacheCreationTokens"`
				Cost                float64 `json:"cost"`
			} `json:"modelBreakdowns"`
		} `json:"sessions"`
	}
	if err := runJSON(ccusage, []string{"CLAUDE_CONFIG_DIR=" + filepath.Join(tmp, "claude"), "HOME=" + tmp}, &cc, "claude", "session", "--json", "--offline", "--breakdown"); err != nil {
		return err
	}
	theirs := map[string]row{}
	for _, s := range cc.Sessions {
		for _, m := range s.ModelBreakdowns {
			k := s.ProjectPath + " " + m.ModelName
			r := theirs[k]
			theirs[k] = row{r.in + m.InputTokens, r.out + m.OutputTokens, r.cr + m.CacheReadTokens, r.cw + m.CacheCreationTokens, r.usd + m.Cost}
		}
	}
	ours := map[string]row{}
	names := make([]string, 0, len(projects))
	for name := range projects {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ledger, err := claudeProject(projects[name])
		if err != nil {
			return err
		}
		for model, m := range ledger.Models {
			ours[name+" "+model] = row{m.InputTokens, m.OutputTokens, m.CacheReadTokens, m.CacheWriteTokens, m.CostUSD}
		}
	}
	bad := report("claude-code", ours, theirs)

	// Codex: each rollout on its own.
	sessions := filepath.Join(tmp, "codex", "sessions", "2026", "05", "11")
	os.MkdirAll(sessions, 0o755)
	ours = map[string]row{}
	filepath.Walk(filepath.Join(fixtures, "codex"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") {
			b, _ := os.ReadFile(p)
			dst := filepath.Join(sessions, filepath.Base(p))
			os.WriteFile(dst, b, 0o600)
			var l pricing.Ledger
			if _, err := transcripts.ReadCodex(context.Background(), dst, &transcripts.Position{}, sink(&l)); err != nil {
				return err
			}
			for model, m := range l.Models {
				ours[strings.TrimSuffix(filepath.Base(p), ".jsonl")+" "+model] = row{m.InputTokens, m.OutputTokens, m.CacheReadTokens, m.CacheWriteTokens, m.CostUSD}
			}
		}
		return nil
	})
	var cx struct {
		Sessions []struct {
			SessionFile string  `json:"sessionFile"`
			CostUSD     float64 `json:"costUSD"`
			Models      map[string]struct {
				InputTokens         int64 `json:"inputTokens"`
				OutputTokens        int64 `json:"outputTokens"`
				CacheReadTokens     int64 `json:"cacheReadTokens"`
				CacheCreationTokens int64 `json:"cacheCreationTokens"`
			} `json:"models"`
		} `json:"sessions"`
	}
	if err := runJSON(ccusage, []string{"CODEX_HOME=" + filepath.Join(tmp, "codex"), "HOME=" + tmp}, &cx, "codex", "session", "--json", "--offline"); err != nil {
		return err
	}
	theirs = map[string]row{}
	for _, s := range cx.Sessions {
		for model, m := range s.Models {
			usd := 0.0
			if len(s.Models) == 1 {
				usd = s.CostUSD
			}
			theirs[s.SessionFile+" "+model] = row{m.InputTokens, m.OutputTokens, m.CacheReadTokens, m.CacheCreationTokens, usd}
		}
	}
	bad += report("codex", ours, theirs)
	fmt.Printf("%d line(s) differ; README.md (Pricing accuracy) gives the reason for each\n", bad)
	return nil
}

// copyProject copies a fixture folder's session files and their sessions'
// subagents folders, not the other fixture folders nested in it (those are
// projects of their own).
func copyProject(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		from := filepath.Join(src, e.Name())
		if !e.IsDir() {
			if strings.HasSuffix(e.Name(), ".jsonl") {
				if err := copyFile(from, filepath.Join(dst, e.Name())); err != nil {
					return err
				}
			}
			continue
		}
		sub := filepath.Join(from, "subagents")
		if _, err := os.Stat(sub); err != nil {
			continue
		}
		err := filepath.Walk(sub, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			return copyFile(p, filepath.Join(dst, rel))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}

func sink(l *pricing.Ledger) transcripts.Sink {
	table := pricing.Default()
	return transcripts.Sink{Response: func(r transcripts.Response) {
		l.Add(table, r.Model, pricing.Usage(r.Usage), pricing.Usage(r.Counted), r.Time)
	}}
}

// claudeProject reads every session of a project folder the way the hook
// does (main transcript with its subagents), then the files no session
// claimed (subagent files whose main transcript is not in the fixtures).
func claudeProject(dir string) (*pricing.Ledger, error) {
	var l pricing.Ledger
	claude, _ := transcripts.FormatOf(agent.Claude)
	claimed := map[string]bool{}
	var all, mains []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".jsonl") {
			all = append(all, p)
			if filepath.Dir(p) == dir && !strings.HasPrefix(filepath.Base(p), "agent-") {
				mains = append(mains, p)
			}
		}
		return nil
	})
	for _, group := range [][]string{mains, all} {
		for _, p := range group {
			if claimed[p] {
				continue
			}
			files, _ := claude.SessionFiles(p)
			for _, f := range files {
				claimed[f] = true
			}
			if _, err := transcripts.ReadClaude(context.Background(), p, &transcripts.Position{}, sink(&l)); err != nil {
				return nil, err
			}
		}
	}
	return &l, nil
}

func runJSON(bin string, env []string, v any, args ...string) error {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("ccusage %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return json.Unmarshal(out, v)
}

// report prints one line per key and returns how many differ.
func report(agent string, ours, theirs map[string]row) int {
	keys := map[string]bool{}
	for k := range ours {
		keys[k] = true
	}
	for k := range theirs {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	fmt.Printf("\n%s: key | runaway in/out/cache read/cache write | ccusage | runaway USD | ccusage USD | cost diff\n", agent)
	bad := 0
	var sumOurs, sumTheirs float64
	for _, k := range sorted {
		o, t := ours[k], theirs[k]
		sumOurs += o.usd
		sumTheirs += t.usd
		diff := 0.0
		if t.usd != 0 {
			diff = 100 * (o.usd - t.usd) / t.usd
		} else if o.usd != 0 {
			diff = math.Inf(1)
		}
		verdict := "ok"
		if o.tokens() != t.tokens() {
			verdict = "TOKENS DIFFER"
		} else if math.Abs(diff) > 1 {
			verdict = "COST DIFFERS"
		}
		if verdict != "ok" {
			bad++
		}
		fmt.Printf("%-6s %s | %s | %s | %.4f | %.4f | %+.2f%%\n", verdict, k, o.tokens(), t.tokens(), o.usd, t.usd, diff)
	}
	fmt.Printf("%s total: runaway $%.4f, ccusage $%.4f (%+.2f%%)\n", agent, sumOurs, sumTheirs, 100*(sumOurs-sumTheirs)/sumTheirs)
	return bad
}
