package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Qwen Code against the fake Chat Completions server (qwen-code.md §5): the
// openai auth type with a base URL on loopback, --yolo so that the shell
// calls run without asking, the prompt positional (headless).

// qwenModel is the model every run asks for: one the price table knows
// (the fake does not care), so that spend is priced, not estimated.
const qwenModel = "gpt-5.1"

// qwenUsageEach is what every fake answer reports: 2000 prompt tokens, 1000
// of them cached, 100 completion tokens. Priced by hand at gpt-5.1's rates
// ($1.25 per million input, $0.125 cached, $10 output):
// 1000×1.25e-6 + 1000×0.125e-6 + 100×10e-6 = $0.002375 a response.
var qwenUsageEach = chatUsage{Prompt: 2000, Cached: 1000, Completion: 100}

const qwenUSDEach = 1000*1.25e-6 + 1000*0.125e-6 + 100*10e-6

// qwenSettingsText is the user's settings before setup: JSON with comments
// (Qwen Code strips them), what an offline run needs. remove must give
// these bytes back.
const qwenSettingsText = `{
  // Offline: no usage statistics, no update check.
  "privacy": { "usageStatisticsEnabled": false },
  "general": { "disableAutoUpdate": true, "disableUpdateNag": true }
}
`

func (s *sandbox) qwenHome() string     { return filepath.Join(s.home, ".qwen") }
func (s *sandbox) qwenSettings() string { return filepath.Join(s.qwenHome(), "settings.json") }

// setupQwen writes Qwen Code's settings with comments and wires runaway in
// with the real `runaway setup --yes --harness qwen`.
func (s *sandbox) setupQwen() {
	s.t.Helper()
	qwenAgent.require(s.t)
	requireCommand(s.t, "setup")
	s.setenv("QWEN_HOME", s.qwenHome())
	s.setenv("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
	s.writeFile(s.qwenSettings(), qwenSettingsText)
	r := s.runaway("setup", "--yes", "--harness", "qwen")
	if r.Code != 0 || !strings.Contains(s.readFile(s.qwenSettings()), "hook qwen") {
		s.t.Fatalf("runaway setup --yes --harness qwen: exit %d\n%s%s\nsettings:\n%s", r.Code, r.Stdout, r.Stderr, s.readFile(s.qwenSettings()))
	}
}

// qwenRun is one finished headless qwen run.
type qwenRun struct {
	procResult
	Session string           // the session id
	File    string           // its transcript
	Records []map[string]any // the transcript's JSON lines
}

// runQwen runs qwen headless against srv; with more ("--resume", id) it
// goes on in that session.
func (s *sandbox) runQwen(srv *chatServer, prompt string, more ...string) qwenRun {
	s.t.Helper()
	args := append([]string{"--auth-type", "openai", "--openai-base-url", srv.URL() + "/v1", "--openai-api-key", "dummy",
		"-m", qwenModel, "--yolo"}, more...)
	args = append(args, prompt)
	before := s.qwenTranscripts()
	r := qwenRun{procResult: s.exec(nil, "", qwenAgent.path, args...)}
	var changed []string
	for p, size := range s.qwenTranscripts() {
		if size != before[p] {
			changed = append(changed, p)
		}
	}
	resumed := slices.Contains(more, "--resume")
	if len(changed) == 0 && resumed {
		// A prompt blocked before the model: nothing is written.
		r.Session = more[slices.Index(more, "--resume")+1]
		s.t.Logf("qwen: exit %d in %s, nothing written to session %s, %d requests served", r.Code, r.Took.Round(1e6), r.Session, len(srv.log()))
		return r
	}
	if len(changed) != 1 {
		s.t.Fatalf("qwen %q (exit %d) wrote to %d transcripts, want 1: %v\nstdout:\n%s\nstderr:\n%s", more, r.Code, len(changed), changed, r.Stdout, r.Stderr)
	}
	r.File = changed[0]
	r.Session = strings.TrimSuffix(filepath.Base(r.File), ".jsonl")
	for _, l := range nonEmptyLines(s.readFile(r.File)) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			r.Records = append(r.Records, m)
		}
	}
	s.t.Logf("qwen: exit %d in %s, %d transcript records, session %s, %d requests served", r.Code, r.Took.Round(1e6), len(r.Records), r.Session, len(srv.log()))
	return r
}

// qwenTranscripts are the main transcripts and their sizes.
func (s *sandbox) qwenTranscripts() map[string]int64 {
	m, _ := filepath.Glob(filepath.Join(s.qwenHome(), "projects", "*", "chats", "*.jsonl"))
	sizes := map[string]int64{}
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil {
			sizes[p] = fi.Size()
		}
	}
	return sizes
}

// results are the transcript's tool results as "status: output or error".
func (r qwenRun) results() []string {
	var out []string
	for _, rec := range r.Records {
		if rec["type"] != "tool_result" {
			continue
		}
		res, _ := rec["toolCallResult"].(map[string]any)
		msg, _ := rec["message"].(map[string]any)
		b, _ := json.Marshal(msg["parts"])
		out = append(out, fmt.Sprintf("%v %v: %s", res["status"], res["errorType"], b))
	}
	return out
}

// Identical failing calls: runaway's loop wire, set to 4, denies the 4th,
// before Qwen Code's own detector (the 5th identical call) would trip.
func TestQwenLoopDenied(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupQwen()
	s.setenv("RUNAWAY_REPEAT_RUN", "4")
	cmds := slices.Repeat([]string{"false"}, 8)
	srv := newChatServer(t, chatScript{Tool: "run_shell_command", Cmds: cmds, Usage: qwenUsageEach})
	r := s.runQwen(srv, "run false until it works")
	res := r.results()
	if len(res) < 4 || !strings.Contains(res[3], "execution_denied") || !strings.Contains(res[3], "runaway: the same run_shell_command call 4 times in a row") {
		t.Fatalf("the 4th identical call was not denied by runaway's loop wire:\n%s\nerrors.log:\n%s", strings.Join(res, "\n"), s.errorsLog())
	}
	for _, c := range res[:3] {
		if !strings.HasPrefix(c, "error shell_execute_error") {
			t.Errorf("the calls before the 4th should run (and fail): %s", c)
		}
	}
	checkDecisions(t, s, "qwen", r.Session, "loop", "deny", 1)
}

// Varied failing calls: the failure wire denies the 6th call, after 5
// failed; the model goes on failing, and at the next trigger (the 12th
// call) the escalated stop ends the run as a stop at the cap does: runaway
// interrupts the qwen process that ran the hook (SIGINT), the 12th call
// does not run, and no request follows (issue 29: before, the stop was
// answered and Qwen Code's UserPromptSubmit blocked the next request).
func TestQwenFailuresEscalate(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupQwen()
	var cmds []string
	for i := range 14 {
		cmds = append(cmds, fmt.Sprintf("false # try %d", i+1))
	}
	srv := newChatServer(t, chatScript{Tool: "run_shell_command", Cmds: cmds, Usage: qwenUsageEach})
	r := s.runQwen(srv, "make the build pass")
	res := r.results()
	if len(res) < 6 || !strings.Contains(res[5], "runaway: the last 5 tool calls failed in a row") {
		t.Fatalf("the 6th call, after 5 failures, was not denied:\n%s\nerrors.log:\n%s", strings.Join(res, "\n"), s.errorsLog())
	}
	if got := len(srv.log()); got != 12 {
		t.Errorf("%d model requests, want 12: the escalated stop at the 12th call ends the run\n%s", got, strings.Join(res, "\n"))
	}
	if r.Code != 130 || !strings.Contains(r.Stderr, "went on the same way") {
		t.Errorf("qwen exit %d, want 130 (SIGINT) with runaway's lines on its stderr:\n%s", r.Code, lastLines(r.Stderr, 6))
	}
	checkDecisions(t, s, "qwen", r.Session, "failure", "deny", 1)
	if n := countDecisions(s, "qwen", r.Session, "failure", "stop"); n < 1 {
		t.Errorf("no failure stop in decisions.jsonl:\n%s", s.readFile(filepath.Join(s.stateDir, "decisions.jsonl")))
	}
}

// countDecisions counts the session's decisions of one wire and kind.
func countDecisions(s *sandbox, harness, session, wire, kind string) int {
	n := 0
	for _, d := range s.decisions() {
		if d.Harness == harness && d.Session == session && d.Wire == wire && d.Decision == kind {
			n++
		}
	}
	return n
}

// The spend cap: each response costs $0.002375; with a $0.005 cap the 3rd
// response crosses it, runaway interrupts the qwen process that ran the
// hook, the 3rd call does not run, and no further model request is sent.
// runaway's spend is the server's usage priced by hand. The session,
// resumed while over its cap, is blocked at its prompt with no request;
// after `runaway allow` it goes on.
func TestQwenCapEndsSession(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupQwen()
	s.setenv("RUNAWAY_SESSION_CAP_USD", "0.005")
	var cmds []string
	for i := range 8 {
		cmds = append(cmds, fmt.Sprintf("echo step %d >> ran.txt", i+1))
	}
	srv := newChatServer(t, chatScript{Tool: "run_shell_command", Cmds: cmds, Usage: qwenUsageEach})
	r := s.runQwen(srv, "do the eight steps")
	if got := len(srv.log()); got != 3 {
		t.Errorf("the model got %d requests, want 3: the 3rd response's call ends the session\ndecisions:\n%s\nerrors.log:\n%s",
			got, s.readFile(filepath.Join(s.stateDir, "decisions.jsonl")), s.errorsLog())
	}
	if ran := nonEmptyLines(s.readFile(filepath.Join(s.proj, "ran.txt"))); len(ran) != 2 {
		t.Errorf("%d commands ran (%q), want 2: the crossing call must not run", len(ran), ran)
	}
	if r.Code != 130 || !strings.Contains(r.Stderr, "Operation cancelled.") {
		t.Errorf("qwen exit %d, want 130 with \"Operation cancelled.\" (SIGINT):\n%s", r.Code, r.Stderr)
	}
	// The stop of the crossing call (the dying run's follow-up
	// UserPromptSubmit may be stopped too).
	stops := 0
	for _, d := range s.decisions() {
		if d.Session == r.Session && d.Wire == "spend" && d.Decision == "stop" && d.Tool != "" {
			stops++
		}
	}
	if stops != 1 {
		t.Errorf("%d spend stops of a tool call, want 1:\n%s", stops, s.readFile(filepath.Join(s.stateDir, "decisions.jsonl")))
	}
	st := s.status("qwen", r.Session)
	want := 3 * qwenUSDEach
	if math.Abs(st.SpendUSD-want) > 1e-9 || st.Estimated || st.State != "stopped" {
		t.Errorf("runaway: $%.9f (estimated %v, %s), the server's usage priced by hand: $%.9f", st.SpendUSD, st.Estimated, st.State, want)
	}
	text := s.runaway("status")
	if !strings.Contains(text.Stdout, "interrupted Qwen Code (SIGINT to pid") || !strings.Contains(text.Stdout, "qwen --resume "+r.Session) {
		t.Errorf("runaway status does not say how the session ended and how it goes on:\n%s", text.Stdout)
	}
	t.Logf("TABLE | qwen headless | cap $0.005 | requests %d | crossing call ran: no | exit %d | spend $%.6f of hand-priced $%.6f", len(srv.log()), r.Code, st.SpendUSD, want)

	// Resumed over the cap: UserPromptSubmit blocks the prompt, no request.
	again := s.runQwen(srv, "go on", "--resume", r.Session)
	if got := len(srv.log()); got != 3 {
		t.Errorf("resumed over its cap, the session sent %d more requests, want none", got-3)
	}
	// Qwen Code 0.24.4 shows a blocked prompt's reason nowhere in a
	// headless run (exit 0, empty output): runaway's decision log has it.
	t.Logf("resumed over the cap: exit %d, stdout %q, stderr %q", again.Code, again.Stdout, again.Stderr)
	if n := countDecisions(s, "qwen", r.Session, "spend", "stop"); n < 2 {
		t.Errorf("the resumed prompt was not stopped by runaway (%d spend stops)", n)
	}

	if a := s.runaway("allow", r.Session, "--add", "1"); a.Code != 0 {
		t.Fatalf("runaway allow: exit %d\n%s%s", a.Code, a.Stdout, a.Stderr)
	}
	after := s.runQwen(srv, "go on", "--resume", r.Session)
	if after.Code != 0 || len(srv.log()) <= 3 {
		t.Errorf("after runaway allow the session does not go on: exit %d, %d requests\n%s", after.Code, len(srv.log()), after.Stderr)
	}
}

// setup then remove gives Qwen Code's settings back byte for byte, its
// comments included.
func TestQwenRemoveIsByteExact(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupQwen()
	set := s.readFile(s.qwenSettings())
	for _, want := range []string{"// Offline: no usage statistics", `"PreToolUse"`, `"UserPromptSubmit"`, `"timeout": 10`} {
		if !strings.Contains(set, want) {
			t.Errorf("after setup the settings lack %q:\n%s", want, set)
		}
	}
	if r := s.runaway("doctor"); !strings.Contains(r.Stdout, "qwen-hooks-off") || !strings.Contains(r.Stdout, "qwen-stop") {
		t.Errorf("doctor has no Qwen Code checks:\n%s", r.Stdout)
	}
	if r := s.runaway("remove", "--yes", "--harness", "qwen"); r.Code != 0 {
		t.Fatalf("runaway remove --yes --harness qwen: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if got := s.readFile(s.qwenSettings()); got != qwenSettingsText {
		t.Errorf("after remove:\n%q\nwant the bytes before setup:\n%q", got, qwenSettingsText)
	}
}

// A subagent's spend: the main agent runs Qwen Code's agent tool in the
// foreground, whose subagent makes its own requests (3000 prompt tokens,
// 200 completion: $0.00575 each at gpt-5.1's rates, priced by hand) and
// shell calls. runaway counts them from the subagent's transcript
// (<project>/subagents/<session>/agent-<id>.jsonl) into the session's
// spend, and judges the subagent's calls in the session.
func TestQwenSubagentSpendCounted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.setupQwen()
	const subUSDEach = 3000*1.25e-6 + 200*10e-6
	srv := newChatServer(t, chatScript{
		Tool: "run_shell_command", Usage: qwenUsageEach,
		Cmds:    []string{"agent:list what is here", "echo main after"},
		SubMark: "[scripted subagent]", Sub: []string{"echo sub one >> sub.txt", "echo sub two >> sub.txt"},
		SubUsage: chatUsage{Prompt: 3000, Completion: 200},
	})
	r := s.runQwen(srv, "hand the listing to a subagent")
	main, sub := 0, 0
	for _, l := range srv.log() {
		if l.Model != qwenModel {
			t.Errorf("a request for %q: the hand prices are gpt-5.1's", l.Model)
		}
		if l.Sub {
			sub++
		} else {
			main++
		}
	}
	if ran := nonEmptyLines(s.readFile(filepath.Join(s.proj, "sub.txt"))); sub < 2 || len(ran) != 2 {
		t.Fatalf("the subagent made %d requests and ran %q: no subagent ran (exit %d)\nstderr:\n%s", sub, ran, r.Code, r.Stderr)
	}
	files, _ := filepath.Glob(filepath.Join(s.qwenHome(), "projects", "*", "subagents", r.Session, "agent-*.jsonl"))
	if len(files) == 0 {
		t.Errorf("no subagent transcript under subagents/%s/", r.Session)
	}
	st := s.status("qwen", r.Session)
	want := float64(main)*qwenUSDEach + float64(sub)*subUSDEach
	if math.Abs(st.SpendUSD-want) > 1e-9 || st.Estimated {
		for _, f := range files {
			t.Logf("subagent transcript %s:\n%s", f, s.readFile(f))
		}
		t.Errorf("runaway: $%.9f (estimated %v); the server's usage priced by hand: %d main × $%.6f + %d subagent × $%.6f = $%.9f",
			st.SpendUSD, st.Estimated, main, qwenUSDEach, sub, subUSDEach, want)
	}
	if n := s.hookCalls(r.Session); n < 4 {
		t.Errorf("runaway judged %d calls of the session, want at least 4 (the agent call, the subagent's two, the main one after)", n)
	}
	t.Logf("TABLE | qwen subagent | %d main + %d subagent requests | runaway $%.6f | hand-priced $%.6f | transcripts %v", main, sub, st.SpendUSD, want, files)
}
