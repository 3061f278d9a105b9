package agent

// Claude Code (shared/reference/claude-code.md).
var claude = Facts{
	ID: Claude, Name: "Claude Code",
	Aliases:  []string{"claude-code"},
	Packages: []string{"@anthropic-ai/claude-code"},
	Programs: []string{"claude"},
	CallVars: []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID"},
	Config:   Dir{Var: "CLAUDE_CONFIG_DIR", Default: ".claude"},
	Resume: func(id string) (string, string) {
		return "claude --resume " + id, `claude -p "…" --resume ` + id
	},
}
