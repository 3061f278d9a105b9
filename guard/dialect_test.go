package guard

import (
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// TestEveryAgentHasADialect: each agent of agent.All is answered in its own
// dialect, and each dialect is an agent's.
func TestEveryAgentHasADialect(t *testing.T) {
	for _, f := range agent.All {
		if !knownDialect(f.ID) {
			t.Errorf("%s has no dialect: add guard/dialect_%s.go and a line in dialects", f.ID, f.ID)
		}
	}
	for _, d := range dialects {
		if _, ok := agent.Lookup(d.id); !ok || d.encode == nil || d.escalated == "" {
			t.Errorf("dialect %q: an agent.All id, encode and escalated are required", d.id)
		}
	}
}

// Qwen Code's call is told by its tool_call_id (or by `runaway hook qwen`),
// and its tool_call_id, the id its transcript records, is the call's id;
// Claude Code's and Codex's calls stay theirs under any hint.
func TestQwenCallsAreQwens(t *testing.T) {
	qwen := `{"session_id":"s","transcript_path":"/t.jsonl","hook_event_name":"PreToolUse","prompt_id":"s########0","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_use_id":"toolu_1","tool_call_id":"call_1"}`
	for _, c := range []struct {
		in     string
		hint   agent.ID
		want   agent.ID
		callID string
	}{
		{qwen, agent.Claude, agent.Qwen, "call_1"},
		{qwen, agent.Qwen, agent.Qwen, "call_1"},
		{`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"hi"}`, agent.Qwen, agent.Qwen, ""},
		{`{"session_id":"s","prompt_id":"p","tool_name":"Bash","tool_input":{},"tool_use_id":"toolu_1"}`, agent.Claude, agent.Claude, "toolu_1"},
		{`{"session_id":"s","turn_id":"t","tool_name":"Bash","tool_input":{},"tool_use_id":"call_9"}`, agent.Qwen, agent.Codex, "call_9"},
	} {
		in, err := ParseInput([]byte(c.in), c.hint)
		if err != nil || in.Harness != c.want || in.ToolUseID != c.callID {
			t.Errorf("%s (hint %s): %+v, %v; want %s with call id %q", c.in, c.hint, in, err, c.want, c.callID)
		}
	}
}
