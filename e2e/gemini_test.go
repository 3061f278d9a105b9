package e2e

import (
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

	"github.com/runaway-guard/runaway/pricing"
)

// geminiModel is the model every Gemini CLI run asks for (-m skips the
// model router's utility call).
const geminiModel = "gemini-3.8-flash"

// geminiUsageEach is what every fake answer reports, as in the reference's
// runs: 100000 prompt tokens (60000 cached), 5000 output, 2000 thoughts.
var geminiUsageEach = geminiUsage{Prompt: 100000, Cached: 60000, Candidates: 5000, Thoughts: 2000}

// geminiSettingsText is the user's settings before setup: JSON with
// comments, what a headless run against the fake needs (gemini-cli-observed.md
// §1, §7). remove must give these bytes back.
const geminiSettingsText = `{
  // The fake API key's auth type (with a base URL alone, headless runs exit 41).
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  /* No usage statistics: offline, exit waits on their DNS lookup. */
  "privacy": { "usageStatisticsEnabled": false }
}
`

// setupGemini writes Gemini CLI's settings with comments and wires runaway
// in with the real `runaway setup --yes --harness gemini`.
func (s *sandbox) setupGemini() {
	s.t.Helper()
	geminiAgent.require(s.t)
	requireCommand(s.t, "setup")
	s.setenv("GEMINI_CLI_HOME", s.home)
	s.writeFile(s.geminiSettings(), geminiSettingsText)
	r := s.runaway("setup", "--yes", "--harness", "gemini")
	if r.Code != 0 || !strings.Contains(s.readFile(s.geminiSettings()), "hook gemini") {
		s.t.Fatalf("runaway setup --yes --harness gemini: exit %d\n%s%s\nsettings:\n%s", r.Code, r.Stdout, r.Stderr, s.readFile(s.geminiSettings()))
	}
}

func (s *sandbox) geminiSettings() string { return filepath.Join(s.home, ".gemini", "settings.json") }

// geminiRun is one finished `gemini -p` run.
type geminiRun struct {
	procResult
	Session string           // the session file
	Records []map[string]any // its JSON lines
	// Started are the other session files a resumed run wrote to: its
	// start-up file (see TestGeminiResumedUnderCap).
	Started []string
	Out     struct {
		SessionID string   `json:"session_id"`
		Warnings  []string `json:"warnings"`
	}
}

// runGemini runs `gemini -p` headless against srv: --yolo offers the model
// the shell tool, --skip-trust lets it run in the project folder. The
// run's session file is the one it created, or with -r the one it resumed.
func (s *sandbox) runGemini(srv *geminiServer, prompt string, more ...string) geminiRun {
	s.t.Helper()
	env := map[string]string{"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": srv.URL()}
	before := s.geminiSessions()
	args := append([]string{"-p", prompt, "--yolo", "--skip-trust", "-o", "json", "-m", geminiModel}, more...)
	r := geminiRun{procResult: s.exec(env, "", geminiAgent.path, args...)}
	_ = json.Unmarshal([]byte(r.Stdout), &r.Out)
	var session []string
	for p, size := range s.geminiSessions() {
		old, existed := before[p]
		switch {
		case size == old:
		case !slices.Contains(more, "-r"):
			if !existed {
				session = append(session, p)
			}
		case strings.Contains(s.readFile(p)[min(old, size):], `{"$set":{"sessionId":`):
			// What ChatRecordingService.initialize appends to the file
			// it resumes.
			session = append(session, p)
		default:
			r.Started = append(r.Started, p)
		}
	}
	sort.Strings(r.Started)
	if len(session) != 1 {
		s.t.Fatalf("gemini -p %q (exit %d) wrote to %d session files, want 1: %v (started %v)\nstdout:\n%s\nstderr:\n%s", more, r.Code, len(session), session, r.Started, r.Stdout, r.Stderr)
	}
	r.Session = session[0]
	r.Records = s.geminiRecords(r.Session)
	var first, last string
	for _, rec := range r.Records {
		if ts, ok := rec["timestamp"].(string); ok {
			if first == "" {
				first = ts
			}
			last = ts
		}
	}
	s.t.Logf("gemini: session records from %s to %s", first, last)
	s.t.Logf("gemini: exit %d in %s, %d session records, session %s, warnings %q", r.Code, r.Took.Round(1e6), len(r.Records), r.Out.SessionID, r.Out.Warnings)
	return r
}

// geminiRecords are the JSON lines of a session file.
func (s *sandbox) geminiRecords(path string) []map[string]any {
	var recs []map[string]any
	for _, l := range nonEmptyLines(s.readFile(path)) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			recs = append(recs, m)
		}
	}
	return recs
}

// geminiSessions are the main session files and their sizes.
func (s *sandbox) geminiSessions() map[string]int64 {
	m, _ := filepath.Glob(filepath.Join(s.home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	sizes := map[string]int64{}
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil {
			sizes[p] = fi.Size()
		}
	}
	return sizes
}

// ToolCalls are the session's tool calls as "status name: output or error",
// each once (Gemini CLI writes a message again when it changes).
func (r geminiRun) ToolCalls() []string {
	seen := map[string]bool{}
	var out []string
	for _, rec := range r.Records {
		calls, _ := rec["toolCalls"].([]any)
		for _, c := range calls {
			call, _ := c.(map[string]any)
			id, _ := call["id"].(string)
			status, _ := call["status"].(string)
			if seen[id] || (status != "success" && status != "error") {
				continue
			}
			seen[id] = true
			b, _ := json.Marshal(call["result"])
			out = append(out, fmt.Sprintf("%s %v: %s", status, call["name"], b))
		}
	}
	return out
}

// denied are the tool calls a hook blocked, or stopped with the run.
func (r geminiRun) denied() []string {
	var out []string
	for _, c := range r.ToolCalls() {
		if strings.Contains(c, "Tool execution blocked: ") || strings.Contains(c, "Agent execution stopped by hook: ") {
			out = append(out, c)
		}
	}
	return out
}

// priceServed prices what the fake server reported, by runaway's table:
// the spend runaway must find in the session files.
func priceServed(log []geminiRequestLog, kinds ...string) float64 {
	usd := 0.0
	for _, l := range log {
		if !slices.Contains(kinds, l.Kind) {
			continue
		}
		u := l.Usage
		usd += pricing.Default().Cost(l.Model, pricing.Usage{
			Input: int64(u.Prompt - u.Cached), CacheRead: int64(u.Cached), Output: int64(u.Candidates + u.Thoughts),
		}, time.Now()).USD
	}
	return usd
}

// hookCalls is how many calls runaway's hook judged in the session
// (`runaway status --json`'s calls): subagents' calls share the session.
func (s *sandbox) hookCalls(session string) int {
	s.t.Helper()
	r := s.runaway("status", "--json")
	var v struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			Calls     int    `json:"calls"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		s.t.Fatalf("runaway status --json: %v\n%s", err, r.Stdout)
	}
	for _, x := range v.Sessions {
		if x.SessionID == session {
			return x.Calls
		}
	}
	return 0
}

// geminiRow is one line of the scenarios table the tests log.
func geminiRow(t *testing.T, scenario string, r geminiRun, srv *geminiServer, s *sandbox) {
	t.Helper()
	st := s.status("gemini", r.Out.SessionID)
	t.Logf("TABLE | %s | exit %d | %d main + %d subagent + %d utility requests | %d calls in the session file, %d denied, %d judged by the hook | runaway $%.6f (%s) | server $%.6f | warnings %q",
		scenario, r.Code, srv.served("main"), srv.served("subagent"), srv.served("utility"), len(r.ToolCalls()), len(r.denied()), s.hookCalls(r.Out.SessionID),
		st.SpendUSD, st.State, priceServed(srv.log(), "main", "subagent", "utility"), r.Out.Warnings)
}

// Identical failing calls: runaway's loop wire, set to 4, denies the 4th,
// before Gemini CLI's own detector (the 5th identical call) would trip.
func TestGeminiLoopDenied(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	s.setenv("RUNAWAY_REPEAT_RUN", "4")
	turns := make([]geminiTurn, 10)
	for i := range turns {
		turns[i] = geminiTurn{Cmd: "false"}
	}
	srv := newGeminiServer(t, geminiScript{Turns: turns, Usage: geminiUsageEach})
	r := s.runGemini(srv, "run false until it works")
	calls := r.ToolCalls()
	if len(calls) < 4 || !strings.Contains(calls[3], "Tool execution blocked: runaway: the same run_shell_command call 4 times in a row") {
		t.Fatalf("the 4th identical call was not denied by runaway's loop wire:\n%s\nerrors.log:\n%s", strings.Join(calls, "\n"), s.errorsLog())
	}
	for _, c := range calls[:3] {
		if !strings.HasPrefix(c, "success run_shell_command") {
			t.Errorf("calls before the 4th should run: %s", c)
		}
	}
	checkDecisions(t, s, "gemini", r.Out.SessionID, "loop", "deny", 1)
	geminiRow(t, "loop (4 identical)", r, srv, s)
}

// Varied failing calls: the failure wire denies after 5 failed results,
// and, when the model goes on failing, the escalated stop ends the run.
func TestGeminiFailuresDenied(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	turns := make([]geminiTurn, 20)
	for i := range turns {
		turns[i] = geminiTurn{Cmd: fmt.Sprintf("false # try %d", i+1)}
	}
	srv := newGeminiServer(t, geminiScript{Turns: turns, Usage: geminiUsageEach})
	r := s.runGemini(srv, "make the build pass")
	calls := r.ToolCalls()
	if len(calls) < 6 || !strings.Contains(calls[5], "Tool execution blocked: runaway: the last 5 tool calls failed in a row") {
		t.Fatalf("the 6th call, after 5 failures, was not denied:\n%s\nerrors.log:\n%s", strings.Join(calls, "\n"), s.errorsLog())
	}
	checkDecisions(t, s, "gemini", r.Out.SessionID, "failure", "deny", 1)
	// Runaway's own denial is not a failure: the next trigger comes after
	// 5 more failed commands (the 12th call), escalates, and ends the run.
	if len(calls) != 12 || !strings.Contains(calls[11], "Agent execution stopped by hook: runaway: the last 5 tool calls failed in a row; runaway denied this earlier") {
		t.Errorf("the 12th call was not stopped, ending the run (%d calls):\n%s", len(calls), strings.Join(calls, "\n"))
	}
	if got := srv.served("main"); got != 12 {
		t.Errorf("the model got %d requests, want 12: the stop at the 12th call ends the run", got)
	}
	checkDecisions(t, s, "gemini", r.Out.SessionID, "failure", "stop", 1)
	geminiRow(t, "failures (varied)", r, srv, s)
}

// The spend cap: each response costs $0.06075 (gemini-3.8-flash); with a
// $0.20 cap the 4th response crosses it. runaway's AfterModel entry sees
// its usage on its last chunk and ends the run there (continue:false),
// before its call runs; no further model request is sent. That response
// never reaches the session file: runaway counts it from the chunk, its
// cached input taken from the response before (estimated), so runaway's
// spend is the server's usage priced by the table.
func TestGeminiCapEndsRun(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	s.setenv("RUNAWAY_SESSION_CAP_USD", "0.2")
	turns := make([]geminiTurn, 10)
	for i := range turns {
		turns[i] = geminiTurn{Cmd: fmt.Sprintf("echo step %d", i+1)}
	}
	srv := newGeminiServer(t, geminiScript{Turns: turns, Usage: geminiUsageEach})
	r := s.runGemini(srv, "do the ten steps")
	if got := srv.served("main"); got != 4 {
		t.Errorf("the model got %d requests, want 4: the 4th response ends the run", got)
	}
	if calls := r.ToolCalls(); len(calls) != 3 {
		t.Errorf("%d calls in the session file, want 3: the 4th response's call must not run\n%s", len(calls), strings.Join(calls, "\n"))
	}
	if len(r.Out.Warnings) == 0 || !strings.Contains(r.Out.Warnings[0], "Agent execution stopped: runaway: this session has spent $0.24") {
		t.Errorf("warnings %q do not say runaway stopped the run at the cap", r.Out.Warnings)
	}
	checkDecisions(t, s, "gemini", r.Out.SessionID, "spend", "stop", 1)
	st := s.status("gemini", r.Out.SessionID)
	want := priceServed(srv.log(), "main", "subagent", "utility")
	if math.Abs(st.SpendUSD-want) > 1e-9 || !st.Estimated || st.State != "stopped" {
		t.Errorf("runaway: $%.9f (estimated %v, %s), the server's usage priced: $%.9f, estimated", st.SpendUSD, st.Estimated, st.State, want)
	}
	geminiRow(t, "cap $0.20", r, srv, s)

	// Resumed over its cap, the session sends the model nothing: the
	// BeforeModel entry denies the request before it goes out.
	rr := s.runGemini(srv, "go on", "-r", "latest")
	if got := srv.served("main"); got != 4 {
		t.Errorf("the resumed session sent %d requests in all, want still 4 (exit %d)\nstdout:\n%s\nstderr:\n%s", got, rr.Code, rr.Stdout, rr.Stderr)
	}
	if len(rr.Out.Warnings) == 0 || !strings.Contains(rr.Out.Warnings[0], "Agent execution stopped: runaway: this session has spent $0.24") {
		t.Errorf("the resumed run's warnings %q do not say runaway stopped it", rr.Out.Warnings)
	}
	t.Logf("TABLE | resumed over the cap | exit %d | %d main requests in all | runaway $%.6f | warnings %q", rr.Code, srv.served("main"), s.status("gemini", r.Out.SessionID).SpendUSD, rr.Out.Warnings)
}

// A subagent's calls are guarded too (same session id), and its spend is
// counted from its own session file: runaway's spend equals the server's
// usage, main and subagent. Then remove gives the settings file, comments
// included, back byte for byte.
func TestGeminiSubagentSpendAndRemove(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	srv := newGeminiServer(t, geminiScript{
		Turns:    []geminiTurn{{Subagent: true}, {Cmd: "echo main 1"}, {Cmd: "echo main 2"}},
		SubTurns: []string{"ls", "echo sub 2", "echo sub 3"},
		Usage:    geminiUsageEach,
	})
	r := s.runGemini(srv, "look around, then do two steps")
	if got := srv.served("subagent"); got != 4 {
		t.Errorf("the subagent made %d requests, want 4 (3 calls and complete_task)", got)
	}
	// invoke_agent, the subagent's 3 shell calls and complete_task, and the
	// main agent's 2: the hook runs before every tool.
	if got := s.hookCalls(r.Out.SessionID); got != 7 {
		t.Errorf("the hook judged %d calls of the session, want 7", got)
	}
	st := s.status("gemini", r.Out.SessionID)
	want := priceServed(srv.log(), "main", "subagent", "utility")
	if math.Abs(st.SpendUSD-want) > 1e-9 || st.Estimated {
		t.Errorf("runaway: $%.9f (estimated %v), the server's usage priced: $%.9f (%d requests)", st.SpendUSD, st.Estimated, want, len(srv.log()))
	}
	// The report reads the session file, which holds the main and the
	// subagent's responses (the router's utility calls are in no file).
	if rep, est := s.reportSpend("gemini", r.Out.SessionID); math.Abs(rep-priceServed(srv.log(), "main", "subagent")) > 1e-6 || est {
		t.Errorf("runaway report: $%.9f (estimated %v), the server's main and subagent usage priced: $%.9f", rep, est, priceServed(srv.log(), "main", "subagent"))
	}
	geminiRow(t, "subagent (invoke_agent)", r, srv, s)

	rm := s.runaway("remove", "--yes")
	if rm.Code != 0 {
		t.Fatalf("runaway remove --yes: exit %d\n%s%s", rm.Code, rm.Stdout, rm.Stderr)
	}
	if got := s.readFile(s.geminiSettings()); got != geminiSettingsText {
		t.Errorf("remove did not give the settings back byte for byte:\n%s\nwant:\n%s", got, geminiSettingsText)
	}
	if _, err := os.Stat(s.geminiSettings()); err != nil {
		t.Error(err)
	}
}

// A session resumed under its cap goes on spending, and runaway counts it:
// its spend equals the server's usage over all the runs. Gemini CLI 0.61
// starts a session file for the new run before it loads the resumed one
// (Config.initialize runs GeminiClient.initialize, which starts a chat and
// so a ChatRecordingService file: header and $set.messages with the
// session context; then resumeChat re-initializes the recording on the
// resumed file, which every later record goes to). The resume waits for a
// new minute so that this start-up file does not share the resumed file's
// name (in the same minute its two lines go to the resumed file). It holds
// nothing to resume, so the next -r latest picks the resumed file again.
func TestGeminiResumedUnderCap(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupGemini()
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	srv := newGeminiServer(t, geminiScript{
		Turns:  []geminiTurn{{Cmd: "echo one"}, {Cmd: "echo two"}},
		Resume: []geminiTurn{{Cmd: "echo three"}},
		Usage:  geminiUsageEach,
	})
	r := s.runGemini(srv, "do two steps")
	if got := srv.served("main"); got != 3 {
		t.Fatalf("the first run made %d requests, want 3 (2 calls, then text)", got)
	}
	sid := r.Out.SessionID
	minute := strings.TrimPrefix(filepath.Base(r.Session), "session-")[:len("2006-01-02T15-04")]
	if now := time.Now().UTC(); now.Format("2006-01-02T15-04") == minute {
		wait := now.Truncate(time.Minute).Add(time.Minute + time.Second).Sub(now)
		t.Logf("waiting %s for a new minute", wait.Round(time.Millisecond))
		time.Sleep(wait)
	}

	check := func(run string, rr geminiRun, requests, calls int) {
		t.Helper()
		if rr.Out.SessionID != sid || rr.Session != r.Session {
			t.Fatalf("%s: session %s went on in %s, want %s in %s", run, rr.Out.SessionID, filepath.Base(rr.Session), sid, filepath.Base(r.Session))
		}
		if got := srv.served("main"); got != requests {
			t.Errorf("%s: %d requests in all, want %d (exit %d)\nstderr:\n%s", run, got, requests, rr.Code, rr.Stderr)
		}
		if got := geminiPaid(rr.Records); got != requests {
			t.Errorf("%s: %s holds %d responses with tokens, want all %d", run, filepath.Base(r.Session), got, requests)
		}
		st := s.status("gemini", sid)
		want := priceServed(srv.log(), "main", "subagent", "utility")
		if math.Abs(st.SpendUSD-want) > 1e-9 || st.Estimated || st.Transcript != r.Session {
			t.Errorf("%s: runaway $%.9f (estimated %v, from %s), the server's usage priced over all runs: $%.9f", run, st.SpendUSD, st.Estimated, st.Transcript, want)
		}
		if got := s.hookCalls(sid); got != calls {
			t.Errorf("%s: the hook judged %d calls of the session, want %d", run, got, calls)
		}
		t.Logf("TABLE | %s | exit %d | %d main requests in all | runaway $%.6f (%s) | server $%.6f", run, rr.Code, srv.served("main"), st.SpendUSD, st.State, want)
	}
	check("first run", r, 3, 2)

	// Each resume also writes a start-up file for its minute: a header and
	// the session context, no message, nothing counted or resumed.
	startup := func(run string, rr geminiRun) {
		t.Helper()
		if len(rr.Started) != 1 || !strings.HasSuffix(rr.Started[0], "-"+sid[:8]+".jsonl") {
			t.Fatalf("%s: wrote to start-up files %q, want one session-<minute>-%s.jsonl", run, rr.Started, sid[:8])
		}
		recs := s.geminiRecords(rr.Started[0])
		for _, rec := range recs {
			if id, ok := rec["sessionId"].(string); ok && id != sid {
				t.Errorf("%s: the start-up file's header names session %s, want %s", run, id, sid)
			}
			if _, ok := rec["id"]; ok || strings.Contains(fmt.Sprint(rec), "tokens") {
				t.Errorf("%s: the start-up file has a message record: %v", run, rec)
			}
		}
		t.Logf("%s: went on in %s; start-up file %s (%d records, no messages)", run, filepath.Base(rr.Session), filepath.Base(rr.Started[0]), len(recs))
	}
	rr := s.runGemini(srv, geminiResumePrompt, "-r", "latest")
	check("resumed under the cap", rr, 5, 3)
	startup("resumed under the cap", rr)

	// Resumed again: latest is still the first file, as the start-up one
	// has nothing to resume.
	rr = s.runGemini(srv, geminiResumePrompt, "-r", "latest")
	check("resumed again", rr, 7, 4)
	startup("resumed again", rr)
}

// geminiPaid counts the responses with tokens among a session file's
// message records (each id once; snapshots repeat them).
func geminiPaid(recs []map[string]any) int {
	ids := map[string]bool{}
	for _, rec := range recs {
		if id, _ := rec["id"].(string); id != "" && rec["type"] == "gemini" && rec["tokens"] != nil {
			ids[id] = true
		}
	}
	return len(ids)
}
