package agent

// Codex (shared/reference/codex.md).
var codex = Facts{
	ID: Codex, Name: "Codex",
	Packages: []string{"@openai/codex"},
	Programs: []string{"codex"},
	CallVars: []string{"CODEX_SESSION_ID", "CODEX_THREAD_ID", "CODEX_TOOL_CALL_ID"},
	Config:   Dir{Var: "CODEX_HOME", Default: ".codex"},
	Resume: func(id string) (string, string) {
		return "codex resume " + id, "codex exec resume " + id + ` "…"`
	},
}
