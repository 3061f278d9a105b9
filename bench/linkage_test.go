package bench

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkHookStaticVsDynamic times the whole `runaway hook` process on a
// typical Claude Code input, built statically (CGO_ENABLED=0, as releases
// and the README build it) and dynamically linked (CGO_ENABLED=1, what a
// plain `go install` gives where a C compiler is present: runaway imports
// net and os/user), the two alternated in one run. Reported: the medians of
// wall and CPU time and the ratios dynamic/static. Skipped where the cgo
// build does not come out dynamically linked (no C compiler).
func BenchmarkHookStaticVsDynamic(b *testing.B) {
	dir := b.TempDir()
	static := buildCgo(b, dir, "runaway-static", "0")
	dynamic := buildCgo(b, dir, "runaway-dynamic", "1")
	if !hasInterp(b, dynamic) {
		b.Skip("CGO_ENABLED=1 built a static binary here (no C compiler?): nothing to compare")
	}
	if hasInterp(b, static) {
		b.Fatal("the CGO_ENABLED=0 build is dynamically linked")
	}
	env := hookEnv(b)
	transcript := filepath.Join(dir, "none.jsonl")
	var st, dy []time.Duration
	for i := 0; b.Loop(); i++ {
		in := fmt.Sprintf(typicalClaudeCall, transcript, i%3, i)
		st = append(st, runOnce(b, static, []string{"hook", "claude"}, env, in))
		dy = append(dy, runOnce(b, dynamic, []string{"hook", "claude"}, env, in))
	}
	ms, md := median(st), median(dy)
	b.ReportMetric(float64(ms.Microseconds()), "static-µs")
	b.ReportMetric(float64(md.Microseconds()), "dynamic-µs")
	b.ReportMetric(float64(md)/float64(ms), "dynamic/static")
	b.ReportMetric(float64(cpuMedian(static).Microseconds()), "cpu-static-µs")
	b.ReportMetric(float64(cpuMedian(dynamic).Microseconds()), "cpu-dynamic-µs")
	b.ReportMetric(float64(cpuMedian(dynamic))/float64(cpuMedian(static)), "cpu-dynamic/static")
	b.ReportMetric(0, "ns/op")
}

// buildCgo builds runaway into dir with CGO_ENABLED set to cgo.
func buildCgo(b *testing.B, dir, name, cgo string) string {
	b.Helper()
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, "github.com/runaway-guard/runaway/cmd/runaway")
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("building %s: %v", name, err)
	}
	return out
}

// hasInterp reports whether the ELF binary at path names a dynamic loader.
func hasInterp(b *testing.B, path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		b.Skipf("%s is not ELF (%v): the comparison is for Linux", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}
