// Package e2e drives the real agents (Claude Code and Codex, as pinned in
// agents.txt) against fake model servers on loopback, with runaway wired in
// as their hook, and checks what each agent did.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runaway-guard/runaway/testbin"
)

// runawayBin is the runaway binary built once by TestMain.
var runawayBin string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "runaway-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	runawayBin = filepath.Join(dir, "runaway")
	build := func() error { return testbin.Build("..", runawayBin) }
	if bin := os.Getenv("RUNAWAY_E2E_BIN"); bin != "" {
		// Test a runaway built elsewhere (a release binary, another checkout).
		build = func() error {
			cp := exec.Command("cp", bin, runawayBin)
			cp.Stdout, cp.Stderr = os.Stdout, os.Stderr
			return cp.Run()
		}
	}
	if err := build(); err != nil {
		fmt.Fprintln(os.Stderr, "building runaway:", err)
		return 1
	}
	if err := findAgents(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	findCommands()
	findWires()
	return m.Run()
}
