// Package testhome keeps every test away from a real home: each test
// package's TestMain runs its tests with HOME, every XDG_* folder and every
// agent's own config variable pointed into a temporary folder, and a test
// that needs a home of its own (setup, doctor, detection) gets a fresh one
// from Isolate. Vars and Env give the same set to a process a test starts.
//
// A variable a new agent reads for its home belongs in Vars: a test that
// cannot see it would find the developer's real agent.
package testhome

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adrg/xdg"
)

// Vars are the variables that name a home or an agent's config folder, each
// pointed into home; an empty value means the variable is unset (OpenCode
// reads OPENCODE_CONFIG and OPENCODE_CONFIG_DIR only when set).
func Vars(home string) map[string]string {
	j := func(p ...string) string { return filepath.Join(append([]string{home}, p...)...) }
	return map[string]string{
		"HOME": home,
		// Windows names its homes so; setting them elsewhere is harmless.
		"USERPROFILE":  home,
		"APPDATA":      j("AppData", "Roaming"),
		"LOCALAPPDATA": j("AppData", "Local"),

		"XDG_CONFIG_HOME": j(".config"),
		"XDG_STATE_HOME":  j(".local", "state"),
		"XDG_DATA_HOME":   j(".local", "share"),
		"XDG_CACHE_HOME":  j(".cache"),
		"XDG_BIN_HOME":    j(".local", "bin"),
		"XDG_RUNTIME_DIR": j(".run"),
		"XDG_CONFIG_DIRS": j(".xdg", "config"),
		"XDG_DATA_DIRS":   j(".xdg", "data"),

		"CLAUDE_CONFIG_DIR":      j(".claude"),
		"CODEX_HOME":             j(".codex"),
		"GEMINI_CLI_HOME":        home,
		"COPILOT_HOME":           j(".copilot"),
		"COPILOT_CACHE_HOME":     j(".cache", "copilot"),
		"COPILOT_PKG_CACHE_HOME": j(".cache", "copilot"),
		"QWEN_HOME":              j(".qwen"),
		"OPENCODE_CONFIG":        "",
		"OPENCODE_CONFIG_DIR":    "",
	}
}

// Env is base with Vars(home) in place of its own homes: the environment
// for a process a test starts.
func Env(base []string, home string) []string {
	vars := Vars(home)
	env := make([]string, 0, len(base)+len(vars))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := vars[k]; !ours {
			env = append(env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		if v := vars[k]; v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Isolate gives test t a home of its own: the variables of Vars point into a
// new temporary folder until t ends, and adrg/xdg reads them again. It
// returns the home. Tests that call it cannot run in parallel (t.Setenv).
func Isolate(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	// Cleanups run last first: this one runs after t.Setenv's restores.
	t.Cleanup(xdg.Reload)
	for k, v := range Vars(home) {
		t.Setenv(k, v)
		if v == "" {
			os.Unsetenv(k)
		}
	}
	if err := makeRuntimeDir(home); err != nil {
		t.Fatal(err)
	}
	xdg.Reload()
	return home
}

// Main runs a package's tests (run is m.Run, or a function that prepares
// more and then calls it) with every home in a temporary folder:
//
//	func TestMain(m *testing.M) { os.Exit(testhome.Main(m.Run)) }
//
// The Go toolchain's folders and the e2e agents' cache stay where the
// person's environment has them, so the tests that build runaway or run an
// agent find them.
func Main(run func() int) int {
	home, err := os.MkdirTemp("", "runaway-testhome-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := enter(home); err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	return run()
}

// enter points the process's homes into home, first pinning the folders the
// tests must keep reading from the person's environment.
func enter(home string) error {
	pinned := keep()
	for k, v := range Vars(home) {
		if v == "" {
			os.Unsetenv(k)
		} else {
			os.Setenv(k, v)
		}
	}
	for k, v := range pinned {
		os.Setenv(k, v)
	}
	// adrg/xdg read the variables when the package was initialised, before
	// TestMain: read them again.
	xdg.Reload()
	return makeRuntimeDir(home)
}

// keep are the Go toolchain's folders (as `go env` reports them) and the
// e2e agents' cache, read before the homes move.
func keep() map[string]string {
	kept := map[string]string{}
	if out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output(); err == nil {
		var env map[string]string
		if json.Unmarshal(out, &env) == nil {
			for k, v := range env {
				if v != "" && v != "off" {
					kept[k] = v
				}
			}
		}
	}
	if os.Getenv("RUNAWAY_E2E_CACHE") == "" {
		// install-agents.sh's default.
		if h, err := os.UserHomeDir(); err == nil {
			kept["RUNAWAY_E2E_CACHE"] = filepath.Join(h, ".cache", "runaway-e2e")
		}
	}
	return kept
}

func makeRuntimeDir(home string) error {
	return os.MkdirAll(Vars(home)["XDG_RUNTIME_DIR"], 0o700)
}
