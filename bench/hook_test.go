// Package bench holds runaway's benchmarks. They build the real binaries and
// time whole processes, side by side with a baseline in the same run; they
// assert nothing about time (see README.md, "Speed").
package bench

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/testhome"
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

// runOnce starts bin with stdin and waits for it. It returns the wall
// time and adds the process's CPU time (user+system) to cpuTimes[bin].
func runOnce(b *testing.B, bin string, args []string, env []string, stdin string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v", bin, err)
	}
	wall := time.Since(start)
	cpuMu.Lock()
	cpuTimes[bin] = append(cpuTimes[bin], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	cpuMu.Unlock()
	return wall
}

// cpuTimes holds each binary's CPU time per run: on a busy machine it
// varies less than wall time.
var (
	cpuMu    sync.Mutex
	cpuTimes = map[string][]time.Duration{}
)

// cpuMedian is the median CPU time of bin's runs so far.
func cpuMedian(bin string) time.Duration {
	cpuMu.Lock()
	defer cpuMu.Unlock()
	return median(cpuTimes[bin])
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// hookEnv is an isolated home for the hook's state.
func hookEnv(b *testing.B) []string {
	return testhome.Env(os.Environ(), b.TempDir())
}

// BenchmarkHookVsFloor times the whole `runaway hook` process on a typical
// Claude Code input against the floor program, alternating them so that all
// see the same machine. It also times the hook path linked alone
// (bench/hookalone: no CLI, no wizard libraries), and, when
// RUNAWAY_BASELINE names an older runaway binary, that binary's hook.
// Reported: the medians and the ratios to the floor (target: hook/floor ≤
// 1.5).
func BenchmarkHookVsFloor(b *testing.B) {
	dir := b.TempDir()
	runaway := build(b, dir, "runaway", "github.com/runaway-guard/runaway/cmd/runaway")
	floor := build(b, dir, "floor", "github.com/runaway-guard/runaway/bench/floor")
	alone := build(b, dir, "hookalone", "github.com/runaway-guard/runaway/bench/hookalone")
	baseline := os.Getenv("RUNAWAY_BASELINE")
	env := hookEnv(b)
	transcript := filepath.Join(dir, "none.jsonl")

	var hook, base, lone, old []time.Duration
	for i := 0; b.Loop(); i++ {
		in := fmt.Sprintf(typicalClaudeCall, transcript, i%3, i)
		base = append(base, runOnce(b, floor, nil, env, in))
		hook = append(hook, runOnce(b, runaway, []string{"hook", "claude"}, env, in))
		lone = append(lone, runOnce(b, alone, nil, env, in))
		if baseline != "" {
			old = append(old, runOnce(b, baseline, []string{"hook", "claude"}, env, in))
		}
	}
	mh, mf, ma := median(hook), median(base), median(lone)
	b.ReportMetric(float64(mh.Microseconds()), "hook-µs")
	b.ReportMetric(float64(mf.Microseconds()), "floor-µs")
	b.ReportMetric(float64(mh)/float64(mf), "hook/floor")
	b.ReportMetric(float64(ma)/float64(mf), "alone/floor")
	b.ReportMetric(float64(cpuMedian(runaway))/float64(cpuMedian(floor)), "cpu-hook/floor")
	if baseline != "" {
		b.ReportMetric(float64(median(old))/float64(mf), "baseline/floor")
	}
	b.ReportMetric(0, "ns/op")
}

// growChunk is about 10 KB of a Claude Code session: one API response (a
// text block and a tool call, one line each with the response's usage) and
// the call's result.
func growChunk(session string, i int) string {
	text := strings.Repeat("lorem ipsum dolor sit amet, ", 150)
	usage := `{"input_tokens":12,"cache_creation_input_tokens":1500,"cache_read_input_tokens":80000,"output_tokens":700,"cache_creation":{"ephemeral_5m_input_tokens":1500,"ephemeral_1h_input_tokens":0}}`
	head := fmt.Sprintf(`{"type":"assistant","sessionId":%q,"requestId":"req_%d","timestamp":"2026-11-30T10:00:00.000Z","message":{"id":"msg_%d","model":"claude-sonnet-4-6","role":"assistant","usage":%s,"content":`, session, i, i, usage)
	return head + fmt.Sprintf(`[{"type":"text","text":%q}]}}`, text) + "\n" +
		head + fmt.Sprintf(`[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"go test ./pkg%d"}}]}}`, i, i) + "\n" +
		fmt.Sprintf(`{"type":"user","sessionId":%q,"timestamp":"2026-11-30T10:00:01.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","is_error":false,"content":%q}]}}`, session, i, text+text) + "\n"
}

// BenchmarkHookSpendAfterGrowth times the hook with the spend wire on a
// session whose transcript (1, 10, 100 MB) was read before and then grew by
// about 10 KB, against the floor program, alternating the two. The hook's
// time must not grow with the transcript: it reads only the new bytes.
func BenchmarkHookSpendAfterGrowth(b *testing.B) {
	dir := b.TempDir()
	runaway := build(b, dir, "runaway", "github.com/runaway-guard/runaway/cmd/runaway")
	floor := build(b, dir, "floor", "github.com/runaway-guard/runaway/bench/floor")
	for _, mb := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			env := append(hookEnv(b), "RUNAWAY_SESSION_CAP_USD=1000000000")
			session := fmt.Sprintf("bench-%d", mb)
			path := filepath.Join(b.TempDir(), session+".jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for written := 0; written < mb<<20; n++ {
				c := growChunk(session, n)
				if _, err := f.WriteString(c); err != nil {
					b.Fatal(err)
				}
				written += len(c)
			}
			f.Close()
			call := func(i int) string {
				return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/bench","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./pkg%d"},"tool_use_id":"toolu_%d"}`, session, path, i, i)
			}
			// The first read of the whole transcript, done before timing.
			runOnce(b, runaway, []string{"hook", "claude"}, append(env, "RUNAWAY_HOOK_DEADLINE=120s"), call(n-1))
			var hook, base []time.Duration
			for i := n; b.Loop(); i++ {
				b.StopTimer()
				g, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				g.WriteString(growChunk(session, i))
				g.Close()
				b.StartTimer()
				base = append(base, runOnce(b, floor, nil, env, call(i)))
				hook = append(hook, runOnce(b, runaway, []string{"hook", "claude"}, env, call(i)))
			}
			mh, mf := median(hook), median(base)
			b.ReportMetric(float64(mh.Microseconds()), "hook-µs")
			b.ReportMetric(float64(mf.Microseconds()), "floor-µs")
			b.ReportMetric(float64(mh)/float64(mf), "hook/floor")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// percentile is the p-th percentile (0 < p ≤ 100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(i, 0)]
}

// appendFile appends s to the file at path.
func appendFile(b *testing.B, path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// runAtOnce starts one process per stdin at the same moment and returns
// each one's time from its start to its exit.
func runAtOnce(b *testing.B, bin string, args, env, stdins []string) []time.Duration {
	times := make([]time.Duration, len(stdins))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, in := range stdins {
		wg.Go(func() {
			<-start
			times[i] = runOnce(b, bin, args, env, in)
		})
	}
	close(start)
	wg.Wait()
	return times
}

// errorLines counts the lines of runaway's error log under the state home.
func errorLines(env []string) int {
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			b, _ := os.ReadFile(filepath.Join(dir, "runaway", "errors.log"))
			return bytes.Count(b, []byte("\n"))
		}
	}
	return 0
}

// BenchmarkHookUnderLoad times hook calls that come together, per call
// (p50 and p99), with the floor program run the same way in alternate
// rounds:
//
//   - 16on1session: a response with 16 tool calls, whose 16 hooks start at
//     once on one session (they queue for its lock);
//   - 16sessions: 16 sessions, each making a call, their hooks at once;
//   - grow1MB: one session whose transcript grows by about 1 MB (100
//     responses with their tool results) before each call.
//
// The spend wire is on (a high cap), the transcripts are real Claude Code
// shapes (growChunk), and every call's tool_use is in its transcript
// before its hook runs, as Claude Code writes it. cpu-µs is the median CPU
// time of a hook call (on a busy machine, 16 calls at once take about 16
// times that over the cores they get); errors is how many lines runaway's
// error log gained (a lock not had in time, …).
func BenchmarkHookUnderLoad(b *testing.B) {
	dir := b.TempDir()
	runaway := build(b, dir, "runaway", "github.com/runaway-guard/runaway/cmd/runaway")
	floor := build(b, dir, "floor", "github.com/runaway-guard/runaway/bench/floor")
	reset := func() {
		cpuMu.Lock()
		clear(cpuTimes)
		cpuMu.Unlock()
	}
	callOf := func(session, path string, i int) string {
		return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":"/bench","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./pkg%d"},"tool_use_id":"toolu_%d"}`, session, path, i, i)
	}
	report := func(b *testing.B, env []string, hook, base []time.Duration, errs0 int) {
		b.ReportMetric(float64(cpuMedian(runaway).Microseconds()), "cpu-µs")
		b.ReportMetric(float64(percentile(hook, 50).Microseconds()), "p50-µs")
		b.ReportMetric(float64(percentile(hook, 99).Microseconds()), "p99-µs")
		b.ReportMetric(float64(percentile(base, 50).Microseconds()), "floor-p50-µs")
		b.ReportMetric(float64(percentile(base, 99).Microseconds()), "floor-p99-µs")
		b.ReportMetric(float64(errorLines(env)-errs0), "errors")
		b.ReportMetric(0, "ns/op")
	}
	for _, sessions := range []int{1, 16} {
		name := "16on1session"
		if sessions > 1 {
			name = "16sessions"
		}
		b.Run(name, func(b *testing.B) {
			env := append(hookEnv(b), "RUNAWAY_SESSION_CAP_USD=1000000000")
			tdir := b.TempDir()
			ids := make([]string, sessions)
			paths := make([]string, sessions)
			for s := range sessions {
				ids[s] = fmt.Sprintf("bench-%s-%d", name, s)
				paths[s] = filepath.Join(tdir, ids[s]+".jsonl")
				for i := range 100 { // a session already under way (~1 MB)
					appendFile(b, paths[s], growChunk(ids[s], -1-i))
				}
			}
			errs0 := errorLines(env)
			reset()
			var hook, base []time.Duration
			n := 0
			for b.Loop() {
				b.StopTimer()
				ins := make([]string, 16)
				for k := range ins {
					s := k % sessions
					appendFile(b, paths[s], growChunk(ids[s], n))
					ins[k] = callOf(ids[s], paths[s], n)
					n++
				}
				b.StartTimer()
				base = append(base, runAtOnce(b, floor, nil, env, ins)...)
				hook = append(hook, runAtOnce(b, runaway, []string{"hook", "claude"}, env, ins)...)
			}
			report(b, env, hook, base, errs0)
		})
	}
	b.Run("grow1MB", func(b *testing.B) {
		env := append(hookEnv(b), "RUNAWAY_SESSION_CAP_USD=1000000000")
		session := "bench-grow1MB"
		path := filepath.Join(b.TempDir(), session+".jsonl")
		errs0 := errorLines(env)
		reset()
		var hook, base []time.Duration
		n := 0
		for b.Loop() {
			b.StopTimer()
			var chunk strings.Builder
			for range 100 {
				chunk.WriteString(growChunk(session, n))
				n++
			}
			appendFile(b, path, chunk.String())
			in := callOf(session, path, n-1)
			b.StartTimer()
			base = append(base, runOnce(b, floor, nil, env, in))
			hook = append(hook, runOnce(b, runaway, []string{"hook", "claude"}, env, in))
		}
		report(b, env, hook, base, errs0)
	})
}

// BenchmarkHookNotify times the whole `runaway hook` process on a call it
// denies (the tamper wire: the same answer every time, in a new prompt each
// time so that each run notifies),
// alternating three homes: no notify_command, one that reads its event
// (`cat > /dev/null`), and one that takes a second (`sleep 1`), which the
// hook must not wait for. Reported: the medians and the ratios to the run
// without notify_command.
func BenchmarkHookNotify(b *testing.B) {
	dir := b.TempDir()
	runaway := build(b, dir, "runaway", "github.com/runaway-guard/runaway/cmd/runaway")
	plain := hookEnv(b)
	quick := append(hookEnv(b), "RUNAWAY_NOTIFY_COMMAND=cat > /dev/null")
	slow := append(hookEnv(b), "RUNAWAY_NOTIFY_COMMAND=sleep 1")
	// A new prompt each time: the same deny again in one prompt is notified
	// only once.
	call := `{"session_id":"9f2c1c0e-5d0b-4a53-9c3e-3f3f8a1e2b7d","prompt_id":"p%d","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm ~/.config/runaway/config.json"},"tool_use_id":"toolu_%d"}`
	var none, withCat, withSleep []time.Duration
	for i := 0; b.Loop(); i++ {
		in := fmt.Sprintf(call, i, i)
		none = append(none, runOnce(b, runaway, []string{"hook", "claude"}, plain, in))
		withCat = append(withCat, runOnce(b, runaway, []string{"hook", "claude"}, quick, in))
		withSleep = append(withSleep, runOnce(b, runaway, []string{"hook", "claude"}, slow, in))
	}
	m0, m1, m2 := median(none), median(withCat), median(withSleep)
	b.ReportMetric(float64(m0.Microseconds()), "none-µs")
	b.ReportMetric(float64(m1.Microseconds()), "cat-µs")
	b.ReportMetric(float64(m2.Microseconds()), "sleep-µs")
	b.ReportMetric(float64(m1)/float64(m0), "cat/none")
	b.ReportMetric(float64(m2)/float64(m0), "sleep/none")
	b.ReportMetric(float64(percentile(none, 99).Microseconds()), "none-p99-µs")
	b.ReportMetric(float64(percentile(withCat, 99).Microseconds()), "cat-p99-µs")
	b.ReportMetric(float64(percentile(withSleep, 99).Microseconds()), "sleep-p99-µs")
	b.ReportMetric(0, "ns/op")
}

// openCodeCall is a tool.execute.before call as runaway's OpenCode plugin
// sends it, in a session of msgs steps all of which OpenCode priced at $0
// (the plugin then lists each one for runaway to price: the largest report
// it sends).
func openCodeCall(i, msgs int) string {
	unpriced := make([]string, msgs)
	for j := range unpriced {
		unpriced[j] = `{"model":"claude-sonnet-4-5","in":1200,"out":350,"cr":80000,"cc":1500}`
	}
	return fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"ses_dd150a03fffem7MQii8Pl4Hre7","cwd":"/home/u/proj","prompt_id":"msg_u1","tool_name":"bash","tool_input":{"command":"npm test -- --watch=false %d","description":"Run the test suite"},"tool_use_id":"call_%d","opencode":{"plugin":1,"instance":"7c0e","seq":%d,"cost_usd":0,"tokens":{"in":1200,"out":350,"cr":80000,"cc":1500},"unpriced":[%s],"models":["claude-sonnet-4-5"],"results":[{"id":"call_%d","failed":false}]}}`,
		i%3, i, i+1, strings.Join(unpriced, ","), i-1)
}

// BenchmarkHookOpenCode times `runaway hook opencode` on the plugin's call
// of a 1-step and a 1000-step session against `runaway hook claude` on a
// typical call and the floor program, alternated. Reported: medians and
// ratios to the floor.
func BenchmarkHookOpenCode(b *testing.B) {
	dir := b.TempDir()
	runaway := build(b, dir, "runaway", "github.com/runaway-guard/runaway/cmd/runaway")
	floor := build(b, dir, "floor", "github.com/runaway-guard/runaway/bench/floor")
	env := hookEnv(b)
	transcript := filepath.Join(dir, "none.jsonl")
	var base, claude, small, large []time.Duration
	for i := 0; b.Loop(); i++ {
		base = append(base, runOnce(b, floor, nil, env, fmt.Sprintf(typicalClaudeCall, transcript, i%3, i)))
		claude = append(claude, runOnce(b, runaway, []string{"hook", "claude"}, env, fmt.Sprintf(typicalClaudeCall, transcript, i%3, i)))
		small = append(small, runOnce(b, runaway, []string{"hook", "opencode"}, env, openCodeCall(i, 1)))
		large = append(large, runOnce(b, runaway, []string{"hook", "opencode"}, env, openCodeCall(i, 1000)))
	}
	mf := median(base)
	b.ReportMetric(float64(median(claude).Microseconds()), "claude-µs")
	b.ReportMetric(float64(median(small).Microseconds()), "opencode-µs")
	b.ReportMetric(float64(median(large).Microseconds()), "opencode1000-µs")
	b.ReportMetric(float64(median(small))/float64(mf), "opencode/floor")
	b.ReportMetric(float64(median(large))/float64(mf), "opencode1000/floor")
	b.ReportMetric(float64(median(claude))/float64(mf), "claude/floor")
	b.ReportMetric(0, "ns/op")
}
