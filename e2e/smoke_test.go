package e2e

import (
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
	t.Logf("requests: %+v", srv.log())
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
