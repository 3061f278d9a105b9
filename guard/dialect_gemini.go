package guard

import "github.com/runaway-guard/runaway/agent"

// geminiDialect: Gemini CLI's ask would wait forever headless; with no
// prompt id, its continue: false ends the run itself.
var geminiDialect = dialect{
	id: agent.Gemini, encode: Answer.encodeGemini,
	claims: func(in *Input, _ agent.ID) bool {
		switch in.HookEventName {
		case geminiBeforeTool, geminiBeforeModel, geminiAfterModel:
			return true
		}
		return false
	},
	escalated: "runaway denied this earlier and the agent went on the same way: runaway ends the run.",
	sample: func(t string) (string, string) {
		return `{"session_id":"doctor-live-test","transcript_path":` + jsonString(t) +
				`,"cwd":"/","hook_event_name":"BeforeTool","timestamp":"2026-01-01T00:00:01.000Z","tool_name":"run_shell_command","tool_input":{"command":"true","description":"doctor's live test"}}`,
			`{"sessionId":"doctor-live-test","projectHash":"0","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}` + "\n" +
				`{"id":"doctor-msg","timestamp":"2026-01-01T00:00:00.500Z","type":"gemini","content":"","tokens":{"input":0,"output":0,"cached":0,"thoughts":0,"tool":0,"total":0},"model":"gemini-2.5-flash"}` + "\n"
	},
}

// Gemini CLI's events before a tool call and before a model request.
const (
	geminiBeforeTool  = "BeforeTool"
	geminiBeforeModel = "BeforeModel"
)

// geminiOutput is Gemini CLI's BeforeTool answer. It has no "ask" that
// works headless (the run waits for a confirmation forever), so asks are
// denials that tell the model to ask the person, as for Codex.
type geminiOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	Continue      *bool  `json:"continue,omitempty"`
	StopReason    string `json:"stopReason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

func (a Answer) encodeGemini() []byte {
	var out geminiOutput
	switch k := a.Kind(); k {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	default:
		// The reason goes to the model as the tool's error; the system
		// message to the person. continue: false ends the run.
		out.Decision = "deny"
		out.Reason = a.reasons(Ask, Stop, true)
		out.SystemMessage = a.reasons(Warn, Warn, false)
		if k == Stop {
			f := false
			out.Continue = &f
			out.StopReason = a.reasons(Stop, Stop, false)
		}
	}
	return marshal(out)
}

// encodeGeminiChunk answers AfterModel: continue: false ends the run there
// (Gemini CLI throws before it takes the chunk, so the response's calls do
// not run and no request follows); a warning is a systemMessage. Its keys
// are those of Claude Code's PostToolBatch answer.
func (a Answer) encodeGeminiChunk() []byte { return a.encodeBatchEnd() }
