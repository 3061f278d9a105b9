package agent

// Cursor (shared/reference/cursor-gemini-opencode.md). Its agent CLI is cursor-agent; the
// editor itself is not an agent (people run their own terminals in it).
var cursor = Facts{
	ID: Cursor, Name: "Cursor",
	Aliases:     []string{"cursor-agent"},
	ScriptMarks: []string{"@cursor/"},
	Programs:    []string{"cursor-agent"},
	CallVars:    []string{"CURSOR_AGENT"},
	Config:      Dir{Default: ".cursor"},
}
