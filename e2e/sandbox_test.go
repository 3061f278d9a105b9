package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/testbin"
	"github.com/runaway-guard/runaway/testhome"
)

// patience stretches every bounded wait of the package: a bound catches a
// hang, never a slow machine (at load 25 on 2 cores an agent's run took
// over 90 s that takes 10 on a quiet one).
const patience = 6

// runTimeout bounds one agent run; the fake model ends every conversation
// long before it.
const runTimeout = patience * 90 * time.Second

// sandbox is an isolated home for one test: HOME, the XDG folders,
// CLAUDE_CONFIG_DIR and CODEX_HOME all live in t.TempDir(), and the agents
// run with an environment built from scratch, so nothing reaches a real home
// and no variable of the shell running the tests leaks in.
type sandbox struct {
	t                   *testing.T
	root, home, proj    string
	claudeDir, codexDir string
	configDir, stateDir string
	binHome             string
	vars                map[string]string
	// runTimeout, when set, bounds its runs instead of the package's
	// (a run that times a known stall).
	runTimeout time.Duration
	// wrap, when set, runs every command through it (wrap..., name,
	// args...): a private mount namespace (withSystemFiles).
	wrap []string
}

// touchSources makes a change anywhere in the module re-run the cached
// tests that ran the binary built from it.
var touchSources = sync.OnceFunc(func() { testbin.TouchSources("..") })

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	touchSources()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	s := &sandbox{t: t, root: root, home: home, proj: filepath.Join(root, "proj")}
	s.claudeDir = filepath.Join(home, ".claude")
	s.codexDir = filepath.Join(home, ".codex")
	s.configDir = filepath.Join(home, ".config", "runaway")
	s.stateDir = filepath.Join(home, ".local", "state", "runaway")
	s.binHome = filepath.Join(home, ".local", "bin")
	// The agents find node (Codex's launcher) and the shell on PATH; their
	// own folders come first so setup can find them as a person's would.
	path := []string{filepath.Dir(claudeAgent.looked), filepath.Dir(codexAgent.looked), s.binHome}
	path = append(path, filepath.SplitList(os.Getenv("PATH"))...)
	s.vars = testhome.Vars(home)
	for k, v := range s.vars {
		if v == "" {
			delete(s.vars, k)
		}
	}
	// Gemini CLI's home is HOME when unset; tests that wire Gemini set it.
	delete(s.vars, "GEMINI_CLI_HOME")
	maps.Copy(s.vars, map[string]string{
		"USER":   "e2e",
		"PATH":   strings.Join(path, string(os.PathListSeparator)),
		"SHELL":  "/bin/bash",
		"LANG":   "C.UTF-8",
		"TERM":   "dumb",
		"TMPDIR": filepath.Join(root, "tmp"),
		// Setup and remove refuse inside an agent; this test is not one.
		testbin.FloorVar: strconv.Itoa(os.Getpid()),
	})
	for _, d := range []string{s.proj, s.claudeDir, s.codexDir, s.binHome, s.vars["TMPDIR"], s.vars["XDG_RUNTIME_DIR"]} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// environ is the sandbox's environment plus extra variables.
func (s *sandbox) environ(extra map[string]string) []string {
	all := map[string]string{}
	for k, v := range s.vars {
		all[k] = v
	}
	for k, v := range extra {
		all[k] = v
	}
	env := make([]string, 0, len(all))
	for k, v := range all {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// setenv sets a variable for everything the sandbox runs from now on
// (runaway's config overrides such as RUNAWAY_SESSION_CAP_USD).
func (s *sandbox) setenv(k, v string) { s.vars[k] = v }

func (s *sandbox) writeFile(path, content string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sandbox) readFile(path string) string {
	s.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		s.t.Fatal(err)
	}
	return string(b)
}

// result of one process run.
type procResult struct {
	Stdout, Stderr string
	Code           int
	Took           time.Duration
}

// exec runs a command in the project folder with the sandbox's environment.
func (s *sandbox) exec(extra map[string]string, stdin string, name string, args ...string) procResult {
	s.t.Helper()
	limit := cmp.Or(s.runTimeout, runTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if len(s.wrap) > 0 {
		args = append(append(append([]string(nil), s.wrap[1:]...), name), args...)
		name = s.wrap[0]
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = s.proj
	cmd.Env = s.environ(extra)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := procResult{Stdout: out.String(), Stderr: errb.String(), Took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		s.t.Fatalf("running %s: %v\nstderr:\n%s", name, err, r.Stderr)
	}
	if ctx.Err() != nil {
		s.t.Fatalf("%s %s did not finish within %s\nstderr:\n%s", name, strings.Join(args, " "), limit, r.Stderr)
	}
	return r
}

// runaway runs the runaway binary built for the tests.
func (s *sandbox) runaway(args ...string) procResult {
	s.t.Helper()
	return s.exec(nil, "", runawayBin, args...)
}

// hookCommand is the command line setup writes into a hook entry.
func hookCommand(bin, harness string) string {
	return "'" + bin + "' hook " + harness + " || true"
}

// hookEntry is the settings content with one PreToolUse hook, in the exact
// shape setup writes (Claude Code's settings.json, Codex's hooks.json).
func hookEntry(command string) string {
	b, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 10}}},
	}}}, "", "  ")
	return string(b) + "\n"
}

func (s *sandbox) claudeSettings() string { return filepath.Join(s.claudeDir, "settings.json") }
func (s *sandbox) codexHooks() string     { return filepath.Join(s.codexDir, "hooks.json") }

// installRecorder wires a tiny hook that only records its stdin (one JSON
// line per call in hook-<harness>.jsonl) and answers nothing: it shows the
// agents' plumbing works without runaway.
func (s *sandbox) installRecorder() {
	s.t.Helper()
	rec := filepath.Join(s.root, "record-hook")
	s.writeFile(rec, "#!/bin/bash\n{ tr -d '\\n'; echo; } >> \""+s.root+"\"/hook-\"$2\".jsonl\n")
	if err := os.Chmod(rec, 0o700); err != nil {
		s.t.Fatal(err)
	}
	s.writeFile(s.claudeSettings(), hookEntry(hookCommand(rec, "claude")))
	s.writeFile(s.codexHooks(), hookEntry(hookCommand(rec, "codex")))
}

// recorded returns the hook inputs the recorder saw for a harness.
func (s *sandbox) recorded(harness string) []map[string]any {
	s.t.Helper()
	var calls []map[string]any
	for _, line := range nonEmptyLines(s.readFile(filepath.Join(s.root, "hook-"+harness+".jsonl"))) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			s.t.Fatalf("recorded hook input is not JSON: %v: %s", err, line)
		}
		calls = append(calls, m)
	}
	return calls
}

// installRunaway wires runaway into both agents: with the real
// `runaway setup --yes` once main has it, else by writing the entry setup
// writes. It returns the hook command now in the settings files.
func (s *sandbox) installRunaway() {
	s.t.Helper()
	requireCommand(s.t, "hook")
	if !hasCommand("setup") {
		s.writeFile(s.claudeSettings(), hookEntry(hookCommand(runawayBin, "claude")))
		s.writeFile(s.codexHooks(), hookEntry(hookCommand(runawayBin, "codex")))
		return
	}
	r := s.runaway("setup", "--yes")
	if r.Code != 0 {
		s.t.Fatalf("runaway setup --yes: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, f := range []string{s.claudeSettings(), s.codexHooks()} {
		if !strings.Contains(s.readFile(f), "runaway' hook") {
			s.t.Fatalf("after runaway setup --yes, %s has no runaway hook entry:\n%s\nsetup said:\n%s%s", f, s.readFile(f), r.Stdout, r.Stderr)
		}
	}
}

// decision is one line of runaway's decisions.jsonl.
type decision struct {
	Time     string `json:"time"`
	Harness  string `json:"harness"`
	Session  string `json:"session"`
	Wire     string `json:"wire"`
	Decision string `json:"decision"`
	Tool     string `json:"tool"` // "" before a prompt reaches the model
	Summary  string `json:"summary"`
}

func (s *sandbox) decisions() []decision {
	s.t.Helper()
	var ds []decision
	for _, line := range nonEmptyLines(s.readFile(filepath.Join(s.stateDir, "decisions.jsonl"))) {
		var d decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			s.t.Fatalf("decisions.jsonl line is not JSON: %v: %s", err, line)
		}
		ds = append(ds, d)
	}
	return ds
}

// sessionStates lists runaway's per-session state files by name.
func (s *sandbox) sessionStates() []string {
	names, _ := filepath.Glob(filepath.Join(s.stateDir, "sessions", "*.json"))
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// errorsLog is runaway's error log, shown when a test fails.
func (s *sandbox) errorsLog() string { return s.readFile(filepath.Join(s.stateDir, "errors.log")) }

func nonEmptyLines(s string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return string(b)
}
