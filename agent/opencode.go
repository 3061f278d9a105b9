package agent

// OpenCode (shared/reference/cursor-gemini-opencode.md). Its global config folder is
// $XDG_CONFIG_HOME/opencode, else ~/.config/opencode, on every system.
var openCode = Facts{
	ID: OpenCode, Name: "OpenCode",
	Packages: []string{"opencode-ai"},
	Programs: []string{"opencode"},
	CallVars: []string{"OPENCODE", "OPENCODE_PID"},
	Config:   Dir{Var: "XDG_CONFIG_HOME", Default: ".config", Sub: "opencode"},
}
