package guard

import "github.com/runaway-guard/runaway/agent"

// claudeDialect: Claude Code asks the person, and continue: false ends the
// turn.
var claudeDialect = dialect{
	id: agent.Claude, encode: Answer.encodeClaude, canAsk: true,
	escalated: endsTheTurn,
	sample: func(t string) (string, string) {
		return `{"session_id":"doctor-live-test","prompt_id":"doctor-prompt","transcript_path":` + jsonString(t) +
				`,"cwd":"/","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"true","description":"doctor's live test"},"tool_use_id":"toolu_doctor"}`,
			`{"type":"assistant","sessionId":"doctor-live-test","timestamp":"2026-01-01T00:00:00.000Z","message":{"id":"msg_doctor","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"tool_use","id":"toolu_doctor","name":"Bash","input":{"command":"true"}}]}}` + "\n"
	},
}

const endsTheTurn = "runaway asked about this earlier in this prompt, the call was refused, and the agent went on the same way: runaway ends the turn."

// claudeOutput is Claude Code's hook answer.
type claudeOutput struct {
	Continue           *bool       `json:"continue,omitempty"`
	StopReason         string      `json:"stopReason,omitempty"`
	SystemMessage      string      `json:"systemMessage,omitempty"`
	HookSpecificOutput *preToolUse `json:"hookSpecificOutput,omitempty"`
}

func (a Answer) encodeClaude() []byte {
	var out claudeOutput
	switch k := a.Kind(); k {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	case Ask:
		// The reason of an ask is shown to the person.
		out.HookSpecificOutput = decision(a.hookEvent(), "ask", a.reasons(Ask, Ask, false))
		out.SystemMessage = a.reasons(Warn, Warn, false)
	case Deny, Stop:
		// The reason of a deny is shown to the model; warnings and asks
		// that came with it go to the person.
		out.HookSpecificOutput = decision(a.hookEvent(), "deny", a.reasons(Deny, Stop, true))
		out.SystemMessage = a.reasons(Warn, Ask, false)
		if k == Stop {
			f := false
			out.Continue = &f
			out.StopReason = a.reasons(Stop, Stop, false)
		}
	}
	return marshal(out)
}

// batchEndOutput is the answer to Claude Code's PostToolBatch: no call to
// decide on, so only continue: false (the turn ends before the next model
// request) and a message for the person.
type batchEndOutput struct {
	Continue      *bool  `json:"continue,omitempty"`
	StopReason    string `json:"stopReason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

func (a Answer) encodeBatchEnd() []byte {
	out := batchEndOutput{SystemMessage: a.reasons(Warn, Ask, false)}
	if a.Kind() >= Deny {
		f := false
		out.Continue, out.StopReason = &f, a.reasons(Deny, Stop, false)
	}
	if out == (batchEndOutput{}) {
		return nil
	}
	return marshal(out)
}
