package testscripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/testbin"
)

// settingsFixtures is ../shared/fixtures/settings beside the module root.
func settingsFixtures(t *testing.T) string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
	base := filepath.Join(dir, "..", "shared", "fixtures", "settings")
	if _, err := os.Stat(base); err != nil {
		t.Skipf("real settings fixtures absent (%v); they live in ../shared next to the module", err)
	}
	return base
}

// fixtureHome says where an agent keeps a fixture file, relative to HOME,
// and whether setup writes runaway's entry into it (then it must stay
// strict JSON).
func fixtureHome(agent, name string) (rel string, wired bool) {
	switch agent {
	case "claude-code":
		// settings.local.json fixtures go to the user file too: setup has
		// no flag for project files.
		return ".claude/settings.json", true
	case "codex":
		if strings.HasSuffix(name, "config.toml") {
			return ".codex/config.toml", false
		}
		return ".codex/hooks.json", true
	case "cursor":
		return ".cursor/hooks.json", false
	case "gemini":
		return ".gemini/settings.json", true
	case "opencode":
		if strings.HasSuffix(name, ".jsonc") {
			return ".config/opencode/opencode.jsonc", false
		}
		return ".config/opencode/opencode.json", false
	}
	return "", false
}

// doctorWarns are the checks doctor warns on after setup beyond
// codex-trust, per fixture.
// ("permission": "allow" in fmind's OpenCode config sets doom_loop to
// allow too, which with runaway's plugin wired is no warning.)
var doctorWarns = map[string][]string{}

// TestRealSettingsSetupRemove runs the real setup, doctor and remove on a
// home holding one real settings file, placed where its agent keeps it,
// with every agent installed: setup adds exactly one entry to Claude
// Code's and Codex's files and touches nothing else, and remove gives the
// home back byte for byte, without backups or temp files.
func TestRealSettingsSetupRemove(t *testing.T) {
	testbin.TouchSources("..")
	base := settingsFixtures(t)
	for _, agent := range []string{"claude-code", "codex", "cursor", "gemini", "opencode"} {
		files, err := os.ReadDir(filepath.Join(base, agent))
		if err != nil || len(files) == 0 {
			t.Fatalf("no %s fixtures in %s (%v)", agent, base, err)
		}
		for _, f := range files {
			path := filepath.Join(base, agent, f.Name())
			t.Run(agent+"/"+f.Name(), func(t *testing.T) {
				t.Parallel()
				roundTrip(t, agent, path)
			})
		}
	}
}

func roundTrip(t *testing.T, fixtureDir, fixture string) {
	orig, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	// Every agent is installed: its folder exists. Setup needs a supported
	// agent even when the fixture is Gemini's, and detects the rest.
	for _, d := range []string{".claude", ".codex", ".cursor", ".gemini", ".config/opencode"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	rel, wired := fixtureHome(fixtureDir, filepath.Base(fixture))
	target := filepath.Join(home, rel)
	if err := os.WriteFile(target, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	run := runawayIn(t, home, project)
	bin := filepath.Join(home, ".local", "bin", "runaway")

	start := snapshot(t, home, false)
	out := run("setup", "--dry-run")
	if !strings.Contains(out, "dry run: nothing was written") {
		t.Errorf("setup --dry-run did not say it wrote nothing:\n%s", out)
	}
	diffTrees(t, "setup --dry-run", start, snapshot(t, home, false))

	for _, l := range strings.Split(run("setup", "--yes"), "\n") {
		if strings.HasPrefix(l, "warning: ") {
			t.Logf("setup: %s", l)
		}
	}
	afterSetup := snapshot(t, home, false)
	for _, h := range []struct {
		harness agent.ID
		rel     string
	}{{"claude", ".claude/settings.json"}, {"codex", ".codex/hooks.json"}, {"gemini", ".gemini/settings.json"}} {
		b, ok := afterSetup[h.rel]
		if !ok {
			t.Errorf("setup left no %s", h.rel)
			continue
		}
		data := b.data
		if h.harness == "gemini" {
			// Gemini CLI reads comments: they stay. Trailing commas it
			// refuses, and setup adds none.
			std, err := hujson.Standardize(bytes.Clone(data))
			if err != nil || bytes.Contains(bytes.TrimSpace(data), []byte(",}")) {
				t.Errorf("%s does not parse after setup (%v):\n%s", h.rel, err, data)
				continue
			}
			data = std
		} else if !json.Valid(data) {
			t.Errorf("%s is not strict JSON after setup:\n%s", h.rel, data)
			continue
		}
		sf, _ := configs.SettingsFor(h.harness)
		want := map[string]int{}
		for _, spec := range sf.Specs(bin) {
			want[spec.Event]++
		}
		if n := entriesByEvent(t, data, sf.Spec(bin).Command); !maps.Equal(n, want) {
			t.Errorf("%s holds runaway entries %v after setup, want %v:\n%s", h.rel, n, want, b.data)
		}
	}
	if !wired && !bytes.Equal(afterSetup[rel].data, orig) {
		t.Errorf("setup changed %s, which it never writes", rel)
	}

	out = run("setup", "--yes")
	if !strings.Contains(out, "nothing to change: runaway is set up") {
		t.Errorf("second setup did not find everything in place:\n%s", out)
	}
	diffTrees(t, "second setup", afterSetup, snapshot(t, home, false))

	// Doctor never fails on what the fixture holds; it warns where the
	// fixture weakens a guard, and on the trust only the person can give.
	warned := []string{}
	for _, c := range doctor(t, home, project) {
		if c.Status != "ok" {
			t.Logf("doctor: %s  %s  %s", c.Status, c.Check, c.Detail)
		}
		switch c.Status {
		case "fail":
			t.Errorf("doctor failed: %s  %s", c.Check, c.Detail)
		case "warn":
			warned = append(warned, c.Check)
		}
	}
	// This home is under /tmp, which Codex's default sandbox lets commands
	// write: doctor says runaway's files are held by the guard rail only.
	want := append([]string{"codex-trust", "codex-prompt-trust", "codex-protection"}, doctorWarns[filepath.Base(fixture)]...)
	slices.Sort(warned)
	slices.Sort(want)
	if !slices.Equal(warned, want) {
		t.Errorf("doctor warned on %v, want %v", warned, want)
	}

	run("remove", "--yes")
	diffTrees(t, "setup then remove", start, snapshot(t, home, true))
}

// runawayIn returns a runner of the real binary in an isolated home, from
// the folder dir; it fails the test when the command fails.
func runawayIn(t *testing.T, home, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		out, err := runaway(home, dir, args...)
		if err != nil {
			t.Fatalf("runaway %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
}

func runaway(home, dir string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(binDir, "runaway"), args...)
	cmd.Dir = dir
	cmd.Env = isolatedEnv(home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// isolatedEnv is the environment setupEnv gives the scripts, for a home
// outside testscript.
func isolatedEnv(home string) []string {
	vars := homeVars(home)
	vars["SHELL"] = "/bin/sh"
	vars["PATH"] = binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[k]; ok || slices.Contains(agentVars, k) || k == "OPENCODE_CONFIG" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

type doctorCheck struct{ Status, Check, Detail string }

func doctor(t *testing.T, home, dir string) []doctorCheck {
	t.Helper()
	out, err := runawayStdout(home, dir, "doctor", "--json")
	var res struct{ Checks []doctorCheck }
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		t.Fatalf("runaway doctor --json: %v, %v\n%s", err, jerr, out)
	}
	return res.Checks
}

func runawayStdout(home, dir string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(binDir, "runaway"), args...)
	cmd.Dir = dir
	cmd.Env = isolatedEnv(home)
	return cmd.Output()
}

// entriesByEvent counts, per event, the handlers in a Claude Code or Codex
// settings file that run command; it reads the file with encoding/json,
// not with runaway's own editor.
func entriesByEvent(t *testing.T, data []byte, command string) map[string]int {
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	n := map[string]int{}
	for event, groups := range v.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h.Command == command {
					n[event]++
				}
			}
		}
	}
	return n
}

type node struct {
	mode fs.FileMode
	data []byte
}

// snapshot is every file and folder under home with its mode and bytes.
// With othersOnly, runaway's own files (binary, config, state) are left
// out: remove keeps them.
func snapshot(t *testing.T, home string, othersOnly bool) map[string]node {
	t.Helper()
	own := []string{".local", filepath.Join(".config", "runaway")}
	out := map[string]node{}
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, path)
		if othersOnly && slices.Contains(own, rel) {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n := node{mode: info.Mode()}
		if info.Mode().IsRegular() {
			if n.data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		out[rel] = n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffTrees reports every file that appeared, went, or changed.
func diffTrees(t *testing.T, step string, want, got map[string]node) {
	t.Helper()
	var problems []string
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			problems = append(problems, p+" is gone")
		case g.mode != w.mode:
			problems = append(problems, fmt.Sprintf("%s: mode %v, was %v", p, g.mode, w.mode))
		case !bytes.Equal(g.data, w.data):
			problems = append(problems, fmt.Sprintf("%s changed:\n%s", p, g.data))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			problems = append(problems, p+" appeared")
		}
	}
	slices.Sort(problems)
	for _, p := range problems {
		t.Errorf("after %s: %s", step, p)
	}
}
