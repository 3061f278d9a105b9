package guard

import (
	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// dialect is how one agent is answered: its answer format, whether it can
// ask the person, what runaway says when an ask comes back refused, and
// how its recorded calls reach the hook (for replay). Each agent's is in
// its own file (dialect_<agent>.go) and listed in dialects.
type dialect struct {
	id agent.ID
	// stayOut: runaway answers nothing but encode(Answer{}) there, and
	// runs no wire (Cursor, whose transcripts carry no usage).
	stayOut bool
	// claims reports whether a call is this agent's, from the call's own
	// fields and the agent named on the command line (hint).
	claims func(in *Input, hint agent.ID) bool
	// adopt moves the agent's own spellings of the fields runaway reads
	// into them, once the call is claimed (nil: none to move).
	adopt func(in *Input)
	// encode renders the answer to a tool call or a model request.
	encode func(Answer) []byte
	// encodePrompt renders the answer to a user's prompt (nil: the
	// UserPromptSubmit answer Claude Code and Codex read).
	encodePrompt func(Answer) []byte
	// canAsk: the agent can ask the person. Where it cannot, an ask is a
	// deny that tells the model to stop and ask.
	canAsk bool
	// end ends the agent's run at a spend stop its answer cannot end by
	// itself (nil: the answer ends it, or nothing can). See stop.go.
	end *ender
	// escalated ends the reason of a stop that follows a refused ask of the
	// same wire: what runaway does now.
	escalated string
	// replay turns a recorded call into the hook's input, and says whether
	// the agent runs its hook for that call at all (nil: as recorded, and
	// it does).
	replay func(in *Input, tc transcripts.ToolCall) bool
	// sample is a tool call as the agent sends it, naming the session file
	// at transcript, and that file's content ("" when the agent has none):
	// doctor's live test (runaway hook --self-test). nil: not hooked.
	sample func(transcript string) (call, session string)
	// callBeforeUsage: the agent records a call before the usage of the
	// response that made it, so a replayed call waits for that usage (or
	// for its own result).
	callBeforeUsage bool
	// transcript is the session file of a call that names none, from the
	// agent's folders under env ("" when it cannot be told).
	transcript func(in *Input, env agent.Env) string
	// stopsLater reports the tools whose calls reach a later event that
	// ends the turn (Copilot CLI's permissionRequest): a stop of such a
	// call is answered there, and the call goes on to it.
	stopsLater func(tool string) bool
}

// dialects lists every agent's dialect, in the order detect asks them to
// claim a call (Claude Code, whose input the others copy, last): a slice,
// not a map, so that the hook builds nothing at start.
var dialects = []*dialect{&cursorDialect, &openCodeDialect, &geminiDialect, &copilotDialect, &codexDialect, &qwenDialect, &claudeDialect}

// dialectOf is the agent's dialect; an agent runaway does not know is
// answered as Claude Code is (its hook format is the one others copy).
func dialectOf(id agent.ID) *dialect {
	for _, d := range dialects {
		if d.id == id {
			return d
		}
	}
	return &claudeDialect
}

// knownDialect reports whether runaway knows how to answer the agent.
func knownDialect(id agent.ID) bool {
	for _, d := range dialects {
		if d.id == id {
			return true
		}
	}
	return false
}
