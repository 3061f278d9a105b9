package agent

// Gemini CLI (shared/reference/cursor-gemini-opencode.md). GEMINI_CLI_HOME replaces
// the home for all of its files: it keeps .gemini in it.
var gemini = Facts{
	ID: Gemini, Name: "Gemini CLI",
	Aliases:  []string{"gemini-cli"},
	Packages: []string{"@google/gemini-cli"},
	Programs: []string{"gemini"},
	CallVars: []string{"GEMINI_CLI"},
	Config:   Dir{Var: "GEMINI_CLI_HOME", Sub: ".gemini"},
	// --resume takes "latest", an index, or the session's id (0.61.0's
	// SessionSelector.findSession), in the session's project folder.
	Resume: func(id string) (string, string) {
		return "gemini --resume " + id, "gemini --resume " + id + ` -p "…"`
	},
}
