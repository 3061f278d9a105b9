// Package testscripts runs the scripts in this folder against the real
// runaway command, built once for the run.
package testscripts

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/runaway-guard/runaway/guard/caller"
	"github.com/runaway-guard/runaway/testbin"
	"github.com/runaway-guard/runaway/testhome"
)

// binDir holds the runaway binary built by TestMain; scripts find it on PATH.
var binDir string

// Every test runs with its homes in a temporary folder, never a real one.
func TestMain(m *testing.M) { os.Exit(testhome.Main(func() int { return run(m) })) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "runaway-testscripts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := testbin.Build("..", filepath.Join(dir, "runaway")); err != nil {
		fmt.Fprintln(os.Stderr, "building runaway:", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

func TestScripts(t *testing.T) {
	testbin.TouchSources("..")
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		Setup:               setupEnv,
		Cmds:                customCommands(),
		Condition:           customCondition,
		RequireExplicitExec: false,
		RequireUniqueNames:  true,
	})
}

// homeVars points HOME, the XDG folders and the agents' config folders
// into home, so that nothing run with them can touch a real home.
func homeVars(home string) map[string]string { return testhome.Vars(home) }

// agentVars are the variables the agents set for their tool calls: they
// must not leak in from a developer's shell.
var agentVars = append(caller.Variables(), "CODEX_CI")

// setupEnv isolates every script in $WORK/home; $STATE and $CONFIG name
// runaway's state and config folders there.
func setupEnv(env *testscript.Env) error {
	work := env.WorkDir
	home := filepath.Join(work, "home")
	vars := homeVars(home)
	vars["STATE"] = filepath.Join(home, ".local", "state", "runaway")
	vars["CONFIG"] = filepath.Join(home, ".config", "runaway")
	for k, v := range vars {
		env.Setenv(k, v)
	}
	for _, k := range agentVars {
		env.Setenv(k, "")
	}
	// setup, remove and allow refuse inside an agent; these scripts are
	// not one, even when a developer runs them from inside an agent.
	env.Setenv(testbin.FloorVar, strconv.Itoa(os.Getpid()))
	env.Setenv("PATH", binDir+string(os.PathListSeparator)+env.Getenv("PATH"))
	env.Setenv("GOOS_GOARCH", runtime.GOOS+"_"+runtime.GOARCH)
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return os.MkdirAll(vars["XDG_RUNTIME_DIR"], 0o700)
}
