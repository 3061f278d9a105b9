// Package measure holds what the benchmark commands share: timing a
// program's runs (wall, CPU and peak memory), medians and ratios, and the
// machine's load average, printed beside every figure.
package measure

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Contender is one program a bench times, run after run.
type Contender struct {
	Name      string
	Cmd       func() *exec.Cmd
	Wall, CPU []time.Duration
	// RSS is the largest peak memory seen, in KiB.
	RSS int64
	// Out is the last run's stdout.
	Out string
}

// Run runs the program once and records its figures.
func (c *Contender) Run() error {
	cmd := c.Cmd()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	b, err := cmd.Output()
	el := time.Since(start)
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", c.Name, err, stderr.String())
	}
	c.Wall = append(c.Wall, el)
	c.CPU = append(c.CPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	c.RSS = max(c.RSS, PeakRSS(cmd.ProcessState))
	c.Out = string(b)
	return nil
}

// Median is the middle of ds.
func Median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// Ratio is median(a) / median(b).
func Ratio(a, b []time.Duration) float64 { return Median(a).Seconds() / Median(b).Seconds() }

// Loadavg is the machine's 1, 5 and 15 minute load averages: a figure
// taken above 1 on a 2-core machine is not a figure.
func Loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
