package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A few tool calls against the fake model, with a hook that only records
// what it is given: the agents run offline, call the hook once per tool
// call, and pass it what the references say.
func TestSmokeClaudeCallsHookPerToolCall(t *testing.T) {
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.installRecorder()
	u := claudeUsage{Input: 1000, Output: 100}
	srv := newAnthropicServer(t, claudeScript{
		Main: []claudeTurn{bash("echo one", u), bash("echo two", u), bash("echo three", u)},
		End:  u,
	})
	r := s.runClaude(srv, "run three commands", claudeOpts{})
	if r.Code != 0 || r.Result.IsError {
		t.Fatalf("claude exit %d, is_error %v: %s\n%s", r.Code, r.Result.IsError, r.Stdout, r.Stderr)
	}
	calls := s.recorded("claude")
	if len(calls) != 3 {
		t.Fatalf("hook ran %d times, want 3 (one per Bash call); server log: %+v", len(calls), srv.log())
	}
	for i, c := range calls {
		in, _ := c["tool_input"].(map[string]any)
		if c["hook_event_name"] != "PreToolUse" || c["tool_name"] != "Bash" || c["session_id"] != r.Result.SessionID {
			t.Errorf("call %d: hook input %v", i, c)
		}
		if want := []string{"echo one", "echo two", "echo three"}[i]; in["command"] != want {
			t.Errorf("call %d: command %v, want %q", i, in["command"], want)
		}
		if tp, _ := c["transcript_path"].(string); !strings.HasSuffix(tp, r.Result.SessionID+".jsonl") {
			t.Errorf("call %d: transcript_path %q", i, tp)
		}
	}
	if got := srv.count("main"); got != 4 {
		t.Errorf("main conversation made %d requests, want 4 (3 calls + final message)", got)
	}
	if u := srv.Unexpected(); len(u) > 0 {
		t.Errorf("unexpected requests: %v", u)
	}
	t.Logf("requests: %s", srv.summary())
}

func TestSmokeCodexCallsHookPerToolCall(t *testing.T) {
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	u := codexUsage{Input: 10000, Cached: 4000, Output: 500, Reasoning: 100}
	srv := newOpenAIServer(t, codexScript{Turns: []codexTurn{{Cmd: "echo one", Usage: u}, {Cmd: "echo two", Usage: u}, {Cmd: "echo three", Usage: u}}, End: u})
	s.writeCodexConfig(srv)
	s.installRecorder()
	r := s.runCodex(srv, "run three commands", nil)
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	calls := s.recorded("codex")
	if len(calls) != 3 {
		t.Fatalf("hook ran %d times, want 3; server log: %+v\nstderr:\n%s", len(calls), srv.log(), r.Stderr)
	}
	for i, c := range calls {
		in, _ := c["tool_input"].(map[string]any)
		if c["hook_event_name"] != "PreToolUse" || c["tool_name"] != "Bash" || c["turn_id"] == nil || c["session_id"] != r.Session() {
			t.Errorf("call %d: hook input %v", i, c)
		}
		if want := []string{"echo one", "echo two", "echo three"}[i]; in["command"] != want {
			t.Errorf("call %d: command %v, want %q", i, in["command"], want)
		}
	}
	if got := r.Executed(); len(got) != 3 {
		t.Errorf("commands run: %v, want 3", got)
	}
	if u := srv.Unexpected(); len(u) > 0 {
		t.Errorf("unexpected requests: %v", u)
	}
	t.Logf("requests: %+v", srv.log())
}

// With runaway wired in as the hook, a quiet session gets no decision and
// runaway's state for it counts every tool call.
func TestSmokeRunawayHookSeesEveryCall(t *testing.T) {
	requireCommand(t, "hook")
	const calls = 3
	t.Run("claude", func(t *testing.T) {
		claudeAgent.require(t)
		t.Parallel()
		s := newSandbox(t)
		var turns []claudeTurn
		for i := range calls {
			turns = append(turns, bash(fmt.Sprintf("echo %d", i), claudeUsage{Input: 100, Output: 10}))
		}
		srv := newAnthropicServer(t, claudeScript{Main: turns})
		s.installRunaway()
		r := s.runClaude(srv, "run commands", claudeOpts{Model: "claude-haiku-4-5"})
		checkQuietSession(t, s, "claude", r.Result.SessionID, calls)
		if len(r.Result.PermissionDenials) != 0 || r.Result.TerminalReason != "completed" {
			t.Errorf("quiet session: denials %v, terminal_reason %q", r.Result.PermissionDenials, r.Result.TerminalReason)
		}
	})
	t.Run("codex", func(t *testing.T) {
		codexAgent.require(t)
		t.Parallel()
		s := newSandbox(t)
		var turns []codexTurn
		for i := range calls {
			turns = append(turns, codexTurn{Cmd: fmt.Sprintf("echo %d", i), Usage: codexUsage{Input: 1000, Output: 10}})
		}
		srv := newOpenAIServer(t, codexScript{Turns: turns})
		s.writeCodexConfig(srv)
		s.installRunaway()
		r := s.runCodex(srv, "run commands", nil)
		checkQuietSession(t, s, "codex", r.Session(), calls)
		if got := r.Executed(); len(got) != calls {
			t.Errorf("commands run: %v, want %d", got, calls)
		}
	})
}

func checkQuietSession(t *testing.T, s *sandbox, harness, session string, calls int) {
	t.Helper()
	var st struct {
		Calls int `json:"calls"`
	}
	raw := s.readFile(filepath.Join(s.stateDir, "sessions", harness+"-"+session+".json"))
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		t.Fatalf("runaway's state for %s session %s: %v (state files: %v)\nerrors.log:\n%s", harness, session, err, s.sessionStates(), s.errorsLog())
	}
	if st.Calls != calls {
		t.Errorf("runaway counted %d calls, want %d", st.Calls, calls)
	}
	if ds := s.decisions(); len(ds) != 0 {
		t.Errorf("a quiet session got decisions: %+v", ds)
	}
	if e := s.errorsLog(); e != "" {
		t.Errorf("runaway logged errors:\n%s", e)
	}
}
