package guard

import "github.com/runaway-guard/runaway/agent"

// qwenDialect: Qwen Code reads Claude Code's deny, but its ask is a deny in
// a headless run and no answer ends its turn (continue: false was ignored,
// shared/reference/qwen-code.md §3.4): runaway denies instead of asking,
// and at the cap ends a headless qwen process that ran the hook
// (stop_process.go).
// Its call carries the model's call id as tool_call_id (the id its
// transcript records) beside a tool_use_id of its own.
var qwenDialect = dialect{
	id: agent.Qwen, encode: Answer.encodeQwen,
	claims: func(in *Input, hint agent.ID) bool {
		return in.ToolCallID != "" || hint == agent.Qwen && in.TurnID == "" && in.CursorVersion == ""
	},
	adopt: func(in *Input) {
		if in.ToolCallID != "" {
			in.ToolUseID = in.ToolCallID
		}
	},
	escalated: "runaway denied this earlier in this prompt and the agent went on the same way: runaway denies every call until the next prompt.",
	end:       &qwenEnder,
	sample: func(t string) (string, string) {
		return `{"session_id":"doctor-live-test","transcript_path":` + jsonString(t) +
				`,"cwd":"/","hook_event_name":"PreToolUse","timestamp":"2026-01-01T00:00:01.000Z","permission_mode":"default","prompt_id":"doctor-live-test########0","tool_name":"run_shell_command","tool_input":{"command":"true","description":"doctor's live test"},"tool_use_id":"toolu_doctor","tool_call_id":"call_doctor"}`,
			`{"uuid":"doctor-a1","parentUuid":null,"sessionId":"doctor-live-test","timestamp":"2026-01-01T00:00:00.500Z","type":"assistant","provenance":"model","cwd":"/","version":"0.24.4","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"functionCall":{"id":"call_doctor","name":"run_shell_command","args":{"command":"true"}}}]},"usageMetadata":{"promptTokenCount":0,"candidatesTokenCount":0,"thoughtsTokenCount":0,"totalTokenCount":0,"cachedContentTokenCount":0}}` + "\n"
	},
}

// qwenOutput is Claude Code's answer less continue and stopReason, which
// Qwen Code ignores.
type qwenOutput struct {
	SystemMessage      string      `json:"systemMessage,omitempty"`
	HookSpecificOutput *preToolUse `json:"hookSpecificOutput,omitempty"`
}

func (a Answer) encodeQwen() []byte {
	var out qwenOutput
	switch a.Kind() {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	default:
		// The reason goes to the model as the call's error (stderr shows
		// `Tool "…" was not run: <reason>`); warnings go to the person.
		out.HookSpecificOutput = decision("PreToolUse", "deny", a.reasons(Ask, Stop, true))
		out.SystemMessage = a.reasons(Warn, Warn, false)
	}
	return marshal(out)
}

// qwenEnder: SIGINT to the qwen process that ran the hook (the innermost
// of the node processes its launcher starts: a signal to the outer one
// leaves the inner one running, observed with 0.24.4) ends a headless run
// with exit 130, "Operation cancelled.", the crossing call not run and no
// further request. Its TUI (a terminal on its input) takes SIGINT for a
// cancel and goes on: the hook dies unanswered and the call runs (observed),
// so it is not signalled; the deny, then UserPromptSubmit, which Qwen Code
// runs before every follow-up request and runaway blocks over the cap, end
// the turn, and the TUI shows why. Under --acp it serves an editor's
// sessions, which a signal would end too.
var qwenEnder = ender{mode: func(p proc) endMode {
	for _, a := range p.args() {
		if a == "--acp" || a == "--experimental-acp" {
			return endNever
		}
	}
	if isTerminal(p.fdPath(0)) {
		return endNot
	}
	return endRun
}}
