package agent

// GitHub Copilot CLI (shared/reference/copilot-cli.md). COPILOT_HOME
// replaces ~/.copilot itself. The commands its shell tool runs get
// COPILOT_AGENT_SESSION_ID and COPILOT_CLI=1 (seen in 1.0.102; its hooks
// get COPILOT_CLI too).
var copilot = Facts{
	ID: Copilot, Name: "GitHub Copilot CLI",
	Aliases:  []string{"copilot-cli", "github-copilot"},
	Packages: []string{"@github/copilot"},
	Programs: []string{"copilot"},
	CallVars: []string{"COPILOT_AGENT_SESSION_ID", "COPILOT_CLI"},
	Config:   Dir{Var: "COPILOT_HOME", Default: ".copilot"},
	// 1.0.102 prints "Resume copilot --resume=<id>" at the end of a run.
	Resume: func(id string) (string, string) {
		return "copilot --resume=" + id, "copilot --resume=" + id + ` -p "…"`
	},
}
