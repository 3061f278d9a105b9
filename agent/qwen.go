package agent

// Qwen Code (shared/reference/qwen-code.md). A Gemini CLI fork whose hooks
// follow Claude Code's contract. QWEN_HOME replaces ~/.qwen itself; its shell
// tool marks the commands it runs with QWEN_CODE=1 (QwenLM/qwen-code,
// shellExecutionService.ts; it does not set GEMINI_CLI).
var qwen = Facts{
	ID: Qwen, Name: "Qwen Code",
	Aliases:  []string{"qwen-code"},
	Packages: []string{"@qwen-code/qwen-code"},
	Programs: []string{"qwen"},
	CallVars: []string{"QWEN_CODE"},
	Config:   Dir{Var: "QWEN_HOME", Default: ".qwen"},
	Resume: func(id string) (string, string) {
		return "qwen --resume " + id, `qwen --resume ` + id + ` "…"`
	},
}
