// Command inittrace shows what package initialisation costs the hook: it
// runs `runaway hook claude` on a typical Claude Code call -n times with
// GODEBUG=inittrace=1 and prints, per package, the median init time (clock)
// and the allocations, largest first, with the total of the medians. Given
// -baseline BIN (an older build), the two binaries are run alternately and
// shown side by side.
//
//	go run ./bench/inittrace [-n 41] [-top 25] [-baseline BIN]
//
// The runaway binary is built from this tree, static (CGO_ENABLED=0), as
// the README says to build it. The hook runs in a temporary home.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/runaway-guard/runaway/testhome"
)

const call = `{"session_id":"9f2c1c0e-5d0b-4a53-9c3e-3f3f8a1e2b7d","transcript_path":"%s","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test -- --watch=false %d","description":"Run the test suite"},"tool_use_id":"toolu_01ABCDEF%d"}`

func main() {
	n := flag.Int("n", 41, "runs of each binary")
	top := flag.Int("top", 25, "packages to list")
	baseline := flag.String("baseline", "", "an older runaway binary to compare with")
	flag.Parse()
	if err := run(*n, *top, *baseline); err != nil {
		fmt.Fprintln(os.Stderr, "inittrace:", err)
		os.Exit(1)
	}
}

// trace is one binary's init records: package → clock ms and bytes per run.
type trace struct {
	clock  map[string][]float64
	bytes  map[string]float64
	totals []float64 // sum of all inits, per run
}

func run(n, top int, baseline string) error {
	dir, err := os.MkdirTemp("", "inittrace-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "runaway")
	build := exec.Command("go", "build", "-o", bin, "github.com/runaway-guard/runaway/cmd/runaway")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building runaway: %v", err)
	}
	env := testhome.Env(append(os.Environ(), "GODEBUG=inittrace=1"), dir)
	bins := []string{bin}
	if baseline != "" {
		bins = append(bins, baseline)
	}
	traces := make([]*trace, len(bins))
	for i := range traces {
		traces[i] = &trace{clock: map[string][]float64{}, bytes: map[string]float64{}}
	}
	for r := 0; r < n; r++ {
		for i, b := range bins {
			cmd := exec.Command(b, "hook", "claude")
			cmd.Env = env
			cmd.Stdin = strings.NewReader(fmt.Sprintf(call, filepath.Join(dir, "none.jsonl"), r%3, r))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %v", b, err)
			}
			traces[i].add(stderr.Bytes())
		}
	}
	t := traces[0]
	pkgs := make([]string, 0, len(t.clock))
	seen := map[string]bool{}
	for _, tr := range traces {
		for p := range tr.clock {
			if !seen[p] {
				seen[p] = true
				pkgs = append(pkgs, p)
			}
		}
	}
	key := func(p string) float64 {
		k := 0.0
		for _, tr := range traces {
			k = max(k, median(tr.clock[p]))
		}
		return k
	}
	sort.Slice(pkgs, func(i, j int) bool { return key(pkgs[i]) > key(pkgs[j]) })
	fmt.Printf("package init of `runaway hook`, median of %d runs (ms clock, bytes allocated)", n)
	if baseline != "" {
		fmt.Printf("; this tree, then %s, alternated", baseline)
	}
	fmt.Println()
	for k, p := range pkgs {
		if k == top {
			break
		}
		fmt.Printf("%-50s", p)
		for _, tr := range traces {
			if c, ok := tr.clock[p]; ok {
				fmt.Printf("  %6.3f ms %7.0f B", median(c), tr.bytes[p])
			} else {
				fmt.Printf("  %6s    %7s  ", "-", "-")
			}
		}
		fmt.Println()
	}
	fmt.Printf("%-50s", "all inits (median of the per-run sums)")
	for _, tr := range traces {
		fmt.Printf("  %6.3f ms %3d pkgs ", median(tr.totals), len(tr.clock))
	}
	fmt.Println()
	return nil
}

// add parses one run's GODEBUG=inittrace=1 lines:
// init <pkg> @<t> ms, <clock> ms clock, <bytes> bytes, <n> allocs
func (t *trace) add(stderr []byte) {
	total := 0.0
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		clock, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.ParseFloat(f[7], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		t.clock[f[1]] = append(t.clock[f[1]], clock)
		t.bytes[f[1]] = b
		total += clock
	}
	t.totals = append(t.totals, total)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
