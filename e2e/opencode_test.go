package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// OpenCode 1.18.33 (opencode-ai on npm) runs offline here: its bundled
// @ai-sdk/openai-compatible provider talks to a fake Chat Completions
// server on loopback, its models catalogue is the snapshot compiled into
// the binary (OPENCODE_DISABLE_MODELS_FETCH), and npm's registry is an
// address nothing listens on, so no registry is reachable from the run.
// runaway is wired by `runaway setup --yes --harness opencode`, which
// writes its plugin into $XDG_CONFIG_HOME/opencode/plugins.

// stepUsage is each scripted step's usage: 100k prompt tokens of which 60k
// cached, 5k out. At $3 / $15 / $0.30 per million (fake-1's cost block,
// and Claude Sonnet 4.5's price in runaway's table) a step costs
// 40000·3 + 5000·15 + 60000·0.3 = $0.213.
var stepUsage = chatUsage{Prompt: 100000, Cached: 60000, Completion: 5000}

const stepUSD = 0.213

// writeOpenCodeConfig writes OpenCode's global config: a "fake" provider
// on srv with fake-1 (a cost block) and claude-sonnet-4-5 (none: OpenCode
// prices a model of an unknown provider at 0).
func (s *sandbox) writeOpenCodeConfig(srv *chatServer) string {
	s.t.Helper()
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"model":      "fake/fake-1",
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": srv.URL() + "/v1", "apiKey": "dummy"},
			"models": map[string]any{
				"fake-1":            map[string]any{"name": "Fake 1", "cost": map[string]any{"input": 3, "output": 15, "cache_read": 0.3}},
				"claude-sonnet-4-5": map[string]any{"name": "Sonnet without a price"},
			},
		}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	path := filepath.Join(s.vars["XDG_CONFIG_HOME"], "opencode", "opencode.json")
	s.writeFile(path, string(b)+"\n")
	return path
}

// openCodeEnv keeps OpenCode offline: no update check, no models fetch,
// and npm pointed at a port nothing listens on.
func openCodeEnv() map[string]string {
	return map[string]string{
		"OPENCODE_DISABLE_AUTOUPDATE":   "1",
		"OPENCODE_DISABLE_MODELS_FETCH": "1",
		"npm_config_registry":           "http://127.0.0.1:9/",
		"NO_PROXY":                      "*",
		// Several OpenCode runs share a loaded machine: runaway's deadline
		// stays under the plugin's 10 s, but far from a slow start's.
		"RUNAWAY_HOOK_DEADLINE": "8s",
	}
}

// runOpenCode runs `opencode run` in the project folder.
func (s *sandbox) runOpenCode(model, prompt string) procResult {
	s.t.Helper()
	opencodeAgent.require(s.t)
	r := s.exec(openCodeEnv(), "", opencodeAgent.path, "run", "--model", "fake/"+model, "--print-logs", "--log-level", "INFO", prompt)
	s.t.Logf("opencode run: exit %d in %s", r.Code, r.Took.Round(time.Millisecond))
	return r
}

// setupOpenCode wires runaway into OpenCode with the real setup.
func (s *sandbox) setupOpenCode() {
	s.t.Helper()
	requireCommand(s.t, "setup")
	r := s.runaway("setup", "--yes", "--harness", "opencode")
	if r.Code != 0 {
		s.t.Fatalf("runaway setup --yes --harness opencode: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(s.vars["XDG_CONFIG_HOME"], "opencode", "plugins", "runaway.js")); err != nil {
		s.t.Fatalf("setup wrote no plugin: %v\n%s", err, r.Stdout)
	}
}

// openCodeSession is the one OpenCode session runaway guarded, with its
// state.
func (s *sandbox) openCodeSession() (id string, state map[string]any) {
	s.t.Helper()
	var ids []string
	for _, n := range s.sessionStates() {
		if rest, ok := strings.CutPrefix(n, "opencode-"); ok {
			ids = append(ids, strings.TrimSuffix(rest, ".json"))
		}
	}
	if len(ids) != 1 {
		s.t.Fatalf("want one OpenCode session in runaway's state, have %v; errors.log:\n%s", s.sessionStates(), s.errorsLog())
	}
	if err := json.Unmarshal([]byte(s.readFile(filepath.Join(s.stateDir, "sessions", "opencode-"+ids[0]+".json"))), &state); err != nil {
		s.t.Fatal(err)
	}
	return ids[0], state
}

// openCodeCost is OpenCode's own cost of a session, from `opencode export`.
func (s *sandbox) openCodeCost(id string) float64 {
	s.t.Helper()
	r := s.exec(openCodeEnv(), "", opencodeAgent.path, "export", id)
	out := r.Stdout
	if i := strings.IndexByte(out, '{'); i >= 0 {
		out = out[i:]
	}
	var exp struct {
		Messages []struct {
			Info struct {
				Role string  `json:"role"`
				Cost float64 `json:"cost"`
			} `json:"info"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(out), &exp); err != nil {
		s.t.Fatalf("opencode export %s: exit %d, %v\nstdout:\n%.2000s\nstderr:\n%.2000s", id, r.Code, err, r.Stdout, r.Stderr)
	}
	sum := 0.0
	for _, m := range exp.Messages {
		if m.Info.Role == "assistant" {
			sum += m.Info.Cost
		}
	}
	return sum
}

func spendOf(state map[string]any) (usd float64, estimated bool) {
	sp, _ := state["spend"].(map[string]any)
	usd, _ = sp["usd"].(float64)
	estimated, _ = sp["estimated"].(bool)
	return usd, estimated
}

func commands(n int, f string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(f, i+1)
	}
	return out
}

func lineCount(s string) int { return len(nonEmptyLines(s)) }

// Identical calls, one per step: OpenCode's doom_loop never sees them (it
// looks at the current message only); runaway's loop wire denies the 5th,
// the model reads why, and the calls after it run again.
func TestOpenCodeLoopDenied(t *testing.T) {
	t.Parallel()
	opencodeAgent.require(t)
	s := newSandbox(t)
	srv := newChatServer(t, chatScript{Cmds: slices.Repeat([]string{"echo hi >> ran.txt"}, 7), Usage: chatUsage{Prompt: 1000, Completion: 10}})
	s.writeOpenCodeConfig(srv)
	s.setupOpenCode()
	r := s.runOpenCode("fake-1", "run the scripted commands")
	if r.Code != 0 {
		t.Fatalf("opencode run: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	if n := lineCount(s.readFile(filepath.Join(s.proj, "ran.txt"))); n != 6 {
		t.Errorf("ran.txt has %d lines, want 6: calls 1-4 and 6-7 ran, the 5th was denied", n)
	}
	if !srv.toolResultsContain("runaway: the same bash call 5 times in a row") {
		t.Errorf("the model was not told runaway's reason; tool results: %v", srv.steps())
	}
	var loops []decision
	for _, d := range s.decisions() {
		if d.Wire == "loop" {
			loops = append(loops, d)
		}
	}
	if len(loops) != 1 || loops[0].Decision != "deny" || loops[0].Harness != "opencode" {
		t.Errorf("loop decisions %+v, want one deny", loops)
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}

// Failing commands (a non-zero exit) in a row: the 6th call is denied by
// the failure wire once OpenCode reported five failures.
func TestOpenCodeFailureDenied(t *testing.T) {
	t.Parallel()
	opencodeAgent.require(t)
	s := newSandbox(t)
	srv := newChatServer(t, chatScript{Cmds: commands(7, "echo %d >> tried.txt; exit 3"), Usage: chatUsage{Prompt: 1000, Completion: 10}})
	s.writeOpenCodeConfig(srv)
	s.setupOpenCode()
	r := s.runOpenCode("fake-1", "run the scripted commands")
	if r.Code != 0 {
		t.Fatalf("opencode run: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	// Calls 1-5 ran and failed; the 6th was denied; the 7th runs (the run
	// starts over, and the denied call does not count).
	if got := strings.Join(nonEmptyLines(s.readFile(filepath.Join(s.proj, "tried.txt"))), ","); got != "1,2,3,4,5,7" {
		t.Errorf("tried.txt: %s, want 1,2,3,4,5,7", got)
	}
	if !srv.toolResultsContain("runaway: the last 5 tool calls failed in a row") {
		t.Errorf("the model was not told runaway's reason")
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}

// titleUSD is the title agent's request priced by hand (fake-1, $3/M in,
// $15/M out): billed, though OpenCode leaves it out of the session's cost.
const titleUSD = (100*3.0 + 5*15.0) / 1e6

// A cap of $0.50 at $0.213 a step: step 3 crosses it ($0.639). The plugin
// reads each response's usage on the wire, so step 3's call is refused
// before it runs, also when the usage comes 1.5 s after the call; then
// chat.params ends the session (exit 1) before a 4th request is sent.
// runaway's spend is what the server billed, priced by hand: the 3 steps
// (OpenCode's own cost) and the title request.
func TestOpenCodeCapStopsBeforeNextRequest(t *testing.T) {
	t.Parallel()
	opencodeAgent.require(t)
	// One after the other: two OpenCode runs at once on a loaded machine
	// come near the run timeout.
	for _, c := range []struct {
		name  string
		delay time.Duration
	}{{"usage with the call", 0}, {"usage 1.5s after the call", 1500 * time.Millisecond}} {
		delay := c.delay
		t.Run(c.name, func(t *testing.T) {
			s := newSandbox(t)
			s.setenv("RUNAWAY_SESSION_CAP_USD", "0.5")
			s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
			srv := newChatServer(t, chatScript{Cmds: commands(10, "echo step %d >> "+ranLog), Usage: stepUsage, UsageDelay: delay})
			s.writeOpenCodeConfig(srv)
			s.setupOpenCode()
			r := s.runOpenCode("fake-1", "run the scripted commands")
			if r.Code != 1 {
				t.Errorf("opencode run: exit %d, want 1 (the session stopped); errors.log:\n%s", r.Code, s.errorsLog())
			}
			if !strings.Contains(r.Stderr+r.Stdout, "runaway: this session has spent $0.64; the session cap is $0.50") {
				t.Errorf("opencode did not show runaway's stop:\n%.4000s", r.Stderr)
			}
			if got := strings.Join(s.ranLines(), ","); got != "step 1,step 2" {
				t.Errorf("calls that ran: %q, want steps 1 and 2: the crossing step's call is refused", got)
			}
			if n := len(srv.steps()); n != 3 {
				t.Errorf("the model got %d requests, want 3: none after the crossing response", n)
			}
			id, state := s.openCodeSession()
			runaway, estimated := spendOf(state)
			own := s.openCodeCost(id)
			billed := 3*stepUSD + titleUSD
			t.Logf("spend: runaway $%.6f (estimated %v), OpenCode's own $%.6f, the fake server's usage priced $%.6f", runaway, estimated, own, billed)
			if math.Abs(runaway-billed) > 1e-9 || math.Abs(own-3*stepUSD) > 1e-9 || estimated {
				t.Errorf("runaway's spend $%.6f (estimated %v), OpenCode's $%.6f; want runaway $%.6f (billed), OpenCode $%.3f, not estimated", runaway, estimated, own, billed, 3*stepUSD)
			}
			// The report reads OpenCode's database: OpenCode's own cost,
			// which leaves out the title request.
			if rep, est := s.reportSpend("opencode", id); math.Abs(rep-own) > 1e-6 || est {
				t.Errorf("runaway report: $%.6f (estimated %v), OpenCode's own $%.6f", rep, est, own)
			}
			if stops := s.decisionsOf("spend", "stop"); len(stops) == 0 || stops[0].Tool == "" {
				t.Errorf("the first spend stop is not the crossing call's: %+v", stops)
			}
			if n := s.notifications("stop"); len(n) == 0 {
				t.Errorf("notify_command got no stop")
			}
			if st := s.runaway("status").Stdout; !strings.Contains(st, "next: runaway allow "+id) {
				t.Errorf("status does not name the next command:\n%s", st)
			}
		})
	}
}

// A model OpenCode prices at $0 (no cost block, unknown provider): runaway
// prices its tokens with its own table (claude-sonnet-4-5) and marks the
// figure estimated.
func TestOpenCodeUnpricedModelEstimated(t *testing.T) {
	t.Parallel()
	opencodeAgent.require(t)
	s := newSandbox(t)
	srv := newChatServer(t, chatScript{Cmds: commands(3, "echo step %d"), Usage: stepUsage})
	s.writeOpenCodeConfig(srv)
	s.setupOpenCode()
	if r := s.runOpenCode("claude-sonnet-4-5", "run the scripted commands"); r.Code != 0 {
		t.Fatalf("opencode run: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	id, state := s.openCodeSession()
	runaway, estimated := spendOf(state)
	own := s.openCodeCost(id)
	// Before the 4th step (the final answer) chat.params saw three.
	t.Logf("spend: runaway $%.6f (estimated %v), OpenCode's own $%.6f; runaway's state: %v", runaway, estimated, own, state["spend"])
	// The title request is billed too, priced by runaway's table as well
	// (claude-sonnet-4-5: the same $3/M in, $15/M out).
	if own != 0 || !estimated || math.Abs(runaway-3*stepUSD-titleUSD) > 1e-9 {
		t.Errorf("runaway $%.6f (estimated %v), OpenCode $%.6f; want runaway $%.6f estimated, OpenCode $0", runaway, estimated, own, 3*stepUSD+titleUSD)
	}
	out := s.runaway("status")
	if !strings.Contains(out.Stdout, "~$0.64") {
		t.Errorf("status does not show the estimate:\n%s", out.Stdout)
	}
}

// remove --yes takes out the plugin and what setup created beside it:
// OpenCode's config folder is as it was, byte for byte, after OpenCode ran
// with the plugin in it. (OpenCode writes a .gitignore there at every
// start, plugin or not: the folder is compared with how a run without
// runaway left it.)
func TestOpenCodeRemoveGivesConfigBack(t *testing.T) {
	t.Parallel()
	opencodeAgent.require(t)
	s := newSandbox(t)
	srv := newChatServer(t, chatScript{Cmds: commands(1, "echo step %d"), Usage: chatUsage{Prompt: 1000, Completion: 10}})
	s.writeOpenCodeConfig(srv)
	dir := filepath.Join(s.vars["XDG_CONFIG_HOME"], "opencode")
	if r := s.runOpenCode("fake-1", "run the scripted commands"); r.Code != 0 {
		t.Fatalf("opencode run without runaway: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	before := treeOf(t, dir)
	t.Logf("OpenCode's config folder after a run without runaway:\n%s", strings.Join(before, "\n"))
	s.setupOpenCode()
	if r := s.runOpenCode("fake-1", "run the scripted commands"); r.Code != 0 {
		t.Fatalf("opencode run: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	if len(s.sessionStates()) == 0 {
		t.Fatalf("the plugin never ran runaway; errors.log:\n%s", s.errorsLog())
	}
	r := s.runaway("remove", "--yes")
	if r.Code != 0 {
		t.Fatalf("runaway remove --yes: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	after := treeOf(t, dir)
	if !slices.Equal(before, after) {
		t.Errorf("OpenCode's config folder after setup, a run and remove:\n%s\nbefore setup:\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
}

// treeOf lists a folder's files and folders with a hash of each file.
func treeOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %x", rel, sha256.Sum256(b)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func (s *sandbox) decisionsOf(wire, kind string) []decision {
	var out []decision
	for _, d := range s.decisions() {
		if d.Wire == wire && d.Decision == kind {
			out = append(out, d)
		}
	}
	return out
}

// Offline startup with runaway's plugin and without: OpenCode waits at
// start for an npm install of its plugin SDK when a plugin is there (about
// 70 s with no registry); setup's package-lock.json and node_modules/
// settle it, so no install is tried. The runs alternate; the time from the
// process's start to its first model request, and the whole run's, are
// logged, not asserted. RUNAWAY_E2E_OPENCODE_STALL=1 also times the plugin
// without setup's npm files, once (the stall itself).
func TestOpenCodeStartupWithPlugin(t *testing.T) {
	t.Parallel()
	opencodeAgent.require(t)
	without, with := newSandbox(t), newSandbox(t)
	srvA, srvB := newChatServer(t, chatScript{}), newChatServer(t, chatScript{})
	without.writeOpenCodeConfig(srvA)
	with.writeOpenCodeConfig(srvB)
	with.setupOpenCode()
	var firstA, firstB, wallA, wallB []time.Duration
	for range 3 {
		a, fa := timedRun(without, srvA)
		b, fb := timedRun(with, srvB)
		if a.Code != 0 || b.Code != 0 {
			t.Fatalf("opencode run: exit %d without the plugin, %d with it\n%.3000s", a.Code, b.Code, b.Stderr)
		}
		if strings.Contains(b.Stderr, "dependency install") {
			t.Errorf("with setup's npm files OpenCode still tried to install its plugin SDK:\n%.3000s", b.Stderr)
		}
		firstA, firstB = append(firstA, fa), append(firstB, fb)
		wallA, wallB = append(wallA, a.Took), append(wallB, b.Took)
	}
	if len(with.sessionStates()) != 3 {
		t.Errorf("the plugin guarded %d sessions, want 3: %v", len(with.sessionStates()), with.sessionStates())
	}
	t.Logf("offline `opencode run`, 3 alternated runs: start to first model request without runaway %v (median %v), with runaway's plugin %v (median %v); whole run without %v (median %v), with %v (median %v)",
		rounded(firstA), median(firstA), rounded(firstB), median(firstB), rounded(wallA), median(wallA), rounded(wallB), median(wallB))
	if os.Getenv("RUNAWAY_E2E_OPENCODE_STALL") != "1" {
		return
	}
	stall := newSandbox(t)
	stall.runTimeout = 10 * time.Minute
	srvC := newChatServer(t, chatScript{})
	stall.writeOpenCodeConfig(srvC)
	stall.setupOpenCode()
	dir := filepath.Join(stall.vars["XDG_CONFIG_HOME"], "opencode")
	for _, p := range []string{"package-lock.json", "node_modules"} {
		if err := os.RemoveAll(filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	c, fc := timedRun(stall, srvC)
	t.Logf("with the plugin but without setup's npm files: first model request after %v, whole run %v (exit %d, install tried: %v)",
		fc.Round(10*time.Millisecond), c.Took.Round(10*time.Millisecond), c.Code, strings.Contains(c.Stderr, "dependency install"))
}

// timedRun runs `opencode run` and returns it with the time from its start
// to the fake server's first request of the run.
func timedRun(s *sandbox, srv *chatServer) (procResult, time.Duration) {
	s.t.Helper()
	start := time.Now()
	r := s.runOpenCode("fake-1", "say hi")
	for _, req := range srv.log() {
		if req.Time.After(start) {
			return r, req.Time.Sub(start)
		}
	}
	return r, 0
}
func rounded(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(10 * time.Millisecond)
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(10 * time.Millisecond)
}
