package guard

import (
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// codexDialect: Codex has no ask and no way to end the turn from this
// hook; it records its shell tool by the model-facing name, and a call
// before the usage of the response that made it.
var codexDialect = dialect{
	id: agent.Codex, encode: Answer.encodeCodex,
	// turn_id is Codex's; without it, the command line's hint holds when
	// the input carries no Claude Code prompt_id either.
	claims: func(in *Input, hint agent.ID) bool {
		return in.TurnID != "" || hint == agent.Codex && in.PromptID == ""
	},
	escalated: "runaway denied this earlier in this prompt and the agent went on the same way: runaway denies every call until the next prompt.",
	replay:    codexReplay,
	sample: func(t string) (string, string) {
		return `{"session_id":"doctor-live-test","turn_id":"doctor-turn","transcript_path":` + jsonString(t) +
				`,"cwd":"/","hook_event_name":"PreToolUse","model":"gpt-5.1-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"true"},"tool_use_id":"call_doctor"}`,
			`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"doctor-live-test","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"true\"]}","call_id":"call_doctor"}}` + "\n"
	},
	callBeforeUsage: true,
	end:             &codexEnder,
}

// codexOutput holds only the fields Codex accepts: it marks a hook that
// sends anything else (ask, continue, stopReason, …) as failed and runs the
// tool anyway.
type codexOutput struct {
	SystemMessage      string      `json:"systemMessage,omitempty"`
	HookSpecificOutput *preToolUse `json:"hookSpecificOutput,omitempty"`
}

func (a Answer) encodeCodex() []byte {
	var out codexOutput
	switch a.Kind() {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	default:
		// Codex has no ask and no way to end the turn from this hook: deny,
		// and tell the model to stop and ask the person. Later calls are
		// denied again while the cause lasts.
		// Codex shows it as "<reason>. Command: <cmd>": no period of ours
		// before its own.
		reason := strings.TrimSuffix(strings.TrimSpace(a.reasons(Ask, Stop, true)), ".")
		out.HookSpecificOutput = decision("PreToolUse", "deny", reason)
		out.SystemMessage = a.reasons(Warn, Warn, false)
	}
	return marshal(out)
}
