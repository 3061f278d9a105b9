// Package bench holds runaway's benchmarks. They build the real binaries and
// time whole processes, side by side with a baseline in the same run; they
// assert nothing about time (see README.md, "Speed").
package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// typicalClaudeCall is a Claude Code PreToolUse input as 2.1.328 sends it.
const typicalClaudeCall = `{"session_id":"9f2c1c0e-5d0b-4a53-9c3e-3f3f8a1e2b7d","prompt_id":"550e8400-e29b-41d4-a716-446655440000","transcript_path":"%s","cwd":"/home/u/proj","permission_mode":"default","effort":{"level":"medium"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test -- --watch=false %d","description":"Run the test suite"},"tool_use_id":"toolu_01ABCDEF%d"}`

// build compiles a package of this module into dir, statically, as the
// README says to build runaway.
func build(b *testing.B, dir, name, pkg string) string {
	b.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("building %s: %v", pkg, err)
	}
	return out
}

// runOnce starts bin with stdin and waits for it.
func runOnce(b *testing.B, bin string, args []string, env []string, stdin string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v", bin, err)
	}
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// hookEnv is an isolated home for the hook's state.
func hookEnv(b *testing.B) []string {
	home := b.TempDir()
	return append(os.Environ(),
		"HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"),
		"CODEX_HOME="+filepath.Join(home, "codex"),
	)
}

// BenchmarkHookVsFloor times the whole `runaway hook` process on a typical
// Claude Code input against the floor program, alternating the two so that
// both see the same machine. Reported: the medians and their ratio
// (target: hook/floor ≤ 1.5).
func BenchmarkHookVsFloor(b *testing.B) {
	dir := b.TempDir()
	runaway := build(b, dir, "runaway", "github.com/runaway-guard/runaway/cmd/runaway")
	floor := build(b, dir, "floor", "github.com/runaway-guard/runaway/bench/floor")
	env := hookEnv(b)
	transcript := filepath.Join(dir, "none.jsonl")

	var hook, base []time.Duration
	for i := 0; b.Loop(); i++ {
		in := fmt.Sprintf(typicalClaudeCall, transcript, i%3, i)
		base = append(base, runOnce(b, floor, nil, env, in))
		hook = append(hook, runOnce(b, runaway, []string{"hook", "claude"}, env, in))
	}
	mh, mf := median(hook), median(base)
	b.ReportMetric(float64(mh.Microseconds()), "hook-µs")
	b.ReportMetric(float64(mf.Microseconds()), "floor-µs")
	b.ReportMetric(float64(mh)/float64(mf), "hook/floor")
	b.ReportMetric(0, "ns/op")
}
