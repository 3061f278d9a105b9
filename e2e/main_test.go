// Package e2e drives the real agents (Claude Code, Codex and Gemini CLI, as
// pinned in agents.txt) against fake model servers on loopback, with runaway wired in
// as their hook by `runaway setup --yes`, and checks what each agent did:
// its -p result or rollout, its transcript, and runaway's state.
//
// The agents come from `bash e2e/install-agents.sh` (CI runs it); a test
// whose agent is missing skips and says how to install it, and a scenario
// whose runaway command or wire is missing skips and names it.
//
//	RUNAWAY_E2E_CACHE  where install-agents.sh put the agents ($HOME/.cache/runaway-e2e)
//	RUNAWAY_E2E_BIN    test this runaway binary instead of building ../cmd/runaway
//
// Every agent talks to 127.0.0.1 only, with HOME, XDG_*, CLAUDE_CONFIG_DIR,
// CODEX_HOME and GEMINI_CLI_HOME in the test's temp folder and an environment built from
// scratch.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/runaway-guard/runaway/testbin"
	"github.com/runaway-guard/runaway/testhome"
)

// runawayBin is the runaway binary built once by TestMain.
var runawayBin string

// Every test runs with its homes in a temporary folder, never a real one.
func TestMain(m *testing.M) { os.Exit(testhome.Main(func() int { return run(m) })) }

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
	versionHome = filepath.Join(dir, "version-home")
	if err := findAgents(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	findCommands()
	findWires()
	return m.Run()
}
