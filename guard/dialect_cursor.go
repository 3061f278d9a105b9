package guard

import "github.com/runaway-guard/runaway/agent"

// cursorDialect: Cursor runs Claude Code's hooks, but its transcripts
// carry no usage and its answer format differs: runaway stays out of the
// way with `{}`.
var cursorDialect = dialect{
	id: agent.Cursor, stayOut: true,
	claims:       func(in *Input, _ agent.ID) bool { return in.CursorVersion != "" },
	encode:       func(Answer) []byte { return []byte("{}\n") },
	encodePrompt: func(Answer) []byte { return []byte("{}\n") },
	escalated:    endsTheTurn,
}
