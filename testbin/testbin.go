// Package testbin builds the real runaway binary for the tests that drive it
// as a process (testscripts, e2e).
package testbin

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build compiles ./cmd/runaway of the module at root into out, statically
// linked (CGO_ENABLED=0). It builds without VCS stamping, so the binary's version is "devel" wherever the
// tests run (a git checkout would stamp a pseudo-version, and a dirty tree
// another one).
//
// The binary walks its parent processes only up to the process whose pid is
// in FloorVar (see guard/caller): commands that only the person may run
// (setup, remove, allow) then work in tests that a developer runs from
// inside an agent, while an agent a test starts is still seen.
func Build(root, out string) error {
	cmd := exec.Command("go", "build", "-buildvcs=false",
		"-ldflags=-X github.com/runaway-guard/runaway/guard/caller.testFloorVar="+FloorVar,
		"-o", out, "./cmd/runaway")
	cmd.Dir = root
	// Static, as releases and the README's install command build it.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// FloorVar names the variable the tests set to their own pid.
const FloorVar = "RUNAWAY_TEST_CALLER_FLOOR"

// TouchSources reads every Go source and the module files under root. go
// test caches a passing run by the files its tests opened, and the binary
// is built in another process: a test that runs the binary calls this, so
// that a change anywhere in the module runs it again. It must be called
// from a test (or after TestMain's m.Run has begun): files opened before
// that are not recorded.
func TouchSources(root string) {
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
