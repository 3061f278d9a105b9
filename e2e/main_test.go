// Package e2e drives the real agents (Claude Code and Codex, as pinned in
// agents.txt) against fake model servers on loopback, with runaway wired in
// as their hook, and checks what each agent did.
package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	// go test caches a passing run by the files the test process opened; the
	// build below happens in another process, so read the sources here to
	// make a change anywhere in the module invalidate the cached result.
	touchSources("..")
	runawayBin = filepath.Join(dir, "runaway")
	build := exec.Command("go", "build", "-o", runawayBin, "../cmd/runaway")
	if bin := os.Getenv("RUNAWAY_E2E_BIN"); bin != "" {
		// Test a runaway built elsewhere (a release binary, another checkout).
		build = exec.Command("cp", bin, runawayBin)
	}
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
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

// touchSources reads every Go source and the module files under root.
func touchSources(root string) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".json") || d.Name() == "go.mod" || d.Name() == "go.sum" {
			_, _ = os.ReadFile(path)
		}
		return nil
	})
}
