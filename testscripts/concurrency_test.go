package testscripts

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/testbin"
)

// Agents run the hooks of parallel tool calls in parallel: 16 hook
// processes started at once on one session must all be counted.
func TestParallelHooksLoseNoCount(t *testing.T) {
	const n = 16
	sess := parallelHooks(t, n, "claude", "claude-par", func(i int) string {
		// Different calls, so that the loop wire stays quiet and only the
		// counting is under test.
		return fmt.Sprintf(`{"session_id":"par","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo %d"}}`, i)
	})
	if sess.Calls != n {
		t.Fatalf("state counted %d calls, want %d", sess.Calls, n)
	}
}

// OpenCode runs the tool.execute.before of a response's calls concurrently
// (in any order), and its plugin runs one hook each: all are counted, and
// the spend kept is the report with the highest seq, whichever process got
// the lock last.
func TestParallelOpenCodeHooks(t *testing.T) {
	const n = 16
	sess := parallelHooks(t, n, "opencode", "opencode-ses_par", func(i int) string {
		return fmt.Sprintf(`{"hook_event_name":"tool.execute.before","session_id":"ses_par","tool_name":"bash","tool_input":{"command":"echo %d"},"tool_use_id":"call_%d","opencode":{"plugin":1,"instance":"i1","seq":%d,"cost_usd":%g,"tokens":{}}}`, i, i, i+1, float64(i+1)/100)
	})
	if sess.Calls != n || sess.Spend.USD != float64(n)/100 {
		t.Fatalf("state counted %d calls and $%g, want %d and $%g", sess.Calls, sess.Spend.USD, n, float64(n)/100)
	}
}

// parallelState is what the parallel tests read back from a session's state.
type parallelState struct {
	Calls int `json:"calls"`
	Spend struct {
		USD float64 `json:"usd"`
	} `json:"spend"`
}

// parallelHooks starts n `runaway hook <harness>` processes at once, each
// with input(i), checks each answered nothing and nothing was logged, and
// returns the session's state (file base name).
func parallelHooks(t *testing.T, n int, harness, base string, input func(int) string) parallelState {
	t.Helper()
	testbin.TouchSources("..")
	home := t.TempDir()
	state := filepath.Join(home, "state")
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_STATE_HOME="+state,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		// A loaded machine (CI runs the e2e agents alongside) must not turn
		// a slow lock into a lost count here: what is under test is that no
		// count is lost while the lock is had.
		"RUNAWAY_HOOK_DEADLINE=60s",
		"RUNAWAY_HOOK_LOCK_WAIT=50s",
	)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		cmd := exec.Command(filepath.Join(binDir, "runaway"), "hook", harness)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(input(i))
		wg.Go(func() {
			<-start
			if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
				errs <- fmt.Errorf("hook: %v: %q", err, out)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(filepath.Join(state, "runaway", "sessions", base+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var sess parallelState
	if err := json.Unmarshal(data, &sess); err != nil {
		t.Fatal(err)
	}
	if log, err := os.ReadFile(filepath.Join(state, "runaway", "errors.log")); err == nil {
		t.Fatalf("error log written: %s", log)
	}
	return sess
}

// multiCallResponse is one Claude Code API response that asks for n tool
// calls, written as Claude Code writes it (one line per content block, each
// with the response's usage): 1,000,000 input tokens of claude-sonnet-4-6,
// $3.00.
func multiCallResponse(session string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":%q,"requestId":"req_m","timestamp":"2026-11-30T10:00:01Z","message":{"id":"msg_m","model":"claude-sonnet-4-6","role":"assistant","content":[{"type":"tool_use","id":"toolu_m%d","name":"Bash","input":{"command":"echo %d"}}],"usage":{"input_tokens":1000000,"output_tokens":0}}}`+"\n", session, i, i)
	}
	return b.String()
}

// hookRun is one hook process's answer and how long the whole process took.
type hookRun struct {
	out  string
	err  error
	took time.Duration
}

// runHooksAtOnce starts one hook process per input at the same instant, as
// an agent does for the calls of one response, and waits for all of them.
func runHooksAtOnce(env []string, inputs []string) []hookRun {
	runs := make([]hookRun, len(inputs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, in := range inputs {
		cmd := exec.Command(filepath.Join(binDir, "runaway"), "hook", "claude")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(in)
		wg.Go(func() {
			<-start
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			runs[i] = hookRun{out: string(out), err: err, took: time.Since(t0)}
		})
	}
	close(start)
	wg.Wait()
	return runs
}

// readState reads a session's state file as the hook wrote it.
func readState(t *testing.T, state, name string) (sess struct {
	Calls int `json:"calls"`
	Spend struct {
		USD    float64 `json:"usd"`
		Misses int     `json:"misses"`
	} `json:"spend"`
}) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(state, "runaway", "sessions", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sess); err != nil {
		t.Fatal(err)
	}
	return sess
}

// One response asks for 6 calls and Claude Code runs their 6 hooks at once,
// with the default lock wait and deadline. The first hook reads the whole
// response: the 5 others find their call already read and do not wait for
// it, so every one of them gets the lock and is judged (the response's $3
// is over the $1 cap: every call is stopped).
func TestOneResponseSixCallsAllJudged(t *testing.T) {
	testbin.TouchSources("..")
	const n = 6
	home := t.TempDir()
	state := filepath.Join(home, "state")
	transcript := filepath.Join(home, "t.jsonl")
	if err := os.WriteFile(transcript, []byte(multiCallResponse("multi", n)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_STATE_HOME="+state,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"RUNAWAY_SESSION_CAP_USD=1",
	)
	var inputs []string
	for i := range n {
		inputs = append(inputs, fmt.Sprintf(`{"session_id":"multi","transcript_path":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo %d"},"tool_use_id":"toolu_m%d"}`, transcript, i, i))
	}
	runs := runHooksAtOnce(env, inputs)
	for i, r := range runs {
		t.Logf("call %d: %v", i, r.took.Round(time.Millisecond))
		if r.err != nil || !strings.Contains(r.out, `"permissionDecision":"deny"`) {
			t.Errorf("call %d was not stopped: %v: %q", i, r.err, r.out)
		}
	}
	sess := readState(t, state, "claude-multi.json")
	t.Logf("calls recorded: %d of %d", sess.Calls, n)
	if sess.Calls != n || sess.Spend.USD != 3 {
		t.Errorf("state: %d calls and $%.2f, want %d and $3.00", sess.Calls, sess.Spend.USD, n)
	}
	// A hook that waited in vain for its call would have counted a miss.
	if sess.Spend.Misses != 0 {
		t.Errorf("%d hooks waited for a call already read", sess.Spend.Misses)
	}
	if log, err := os.ReadFile(filepath.Join(state, "runaway", "errors.log")); err == nil {
		t.Errorf("error log written: %s", log)
	}
}

// hookEnvIn is an isolated home for hook processes, with runaway's state in
// $home/state.
func hookEnvIn(home string, extra ...string) []string {
	return append(append(os.Environ(),
		"HOME="+home,
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
	), extra...)
}

// runHook runs one hook process and times it.
func runHook(t *testing.T, env []string, input string) time.Duration {
	t.Helper()
	return runHooksAtOnce(env, []string{input})[0].took
}

// A session whose transcript never shows the calls' ids (here: a transcript
// of other calls) waits for the first 3 calls and then never again: calls
// 4–10 do not wait, and the miss count stays where it stopped.
func TestNoWaitWhenCallsNeverShow(t *testing.T) {
	testbin.TouchSources("..")
	home := t.TempDir()
	transcript := filepath.Join(home, "t.jsonl")
	if err := os.WriteFile(transcript, []byte(multiCallResponse("never", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := hookEnvIn(home)
	for i := 1; i <= 10; i++ {
		took := runHook(t, env, fmt.Sprintf(`{"session_id":"never","transcript_path":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo %d"},"tool_use_id":"toolu_never%d"}`, transcript, i, i))
		misses := readState(t, filepath.Join(home, "state"), "claude-never.json").Spend.Misses
		t.Logf("call %d: %v, misses %d", i, took.Round(time.Millisecond), misses)
		if want := min(i, 3); misses != want {
			t.Errorf("after call %d: %d misses, want %d (a call past the third waited, or the count was reset)", i, misses, want)
		}
	}
}

// A second hook run for a call already read (a second entry, or a retry)
// finds the call in what was read and does not wait for it again.
func TestSecondRunForReadCallDoesNotWait(t *testing.T) {
	testbin.TouchSources("..")
	home := t.TempDir()
	transcript := filepath.Join(home, "t.jsonl")
	if err := os.WriteFile(transcript, []byte(multiCallResponse("again", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := hookEnvIn(home)
	in := fmt.Sprintf(`{"session_id":"again","transcript_path":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo 0"},"tool_use_id":"toolu_m0"}`, transcript)
	for run := 1; run <= 3; run++ {
		took := runHook(t, env, in)
		misses := readState(t, filepath.Join(home, "state"), "claude-again.json").Spend.Misses
		t.Logf("run %d: %v, misses %d", run, took.Round(time.Millisecond), misses)
		if misses != 0 {
			t.Errorf("run %d waited for a call already read (%d misses)", run, misses)
		}
	}
}
