package installer

import "github.com/runaway-guard/runaway/agent"

// claudeHarness: Claude Code, with every answer. Doctor checks its
// disableAllHooks switches and the deny rules setup writes for it.
var claudeHarness = Harness{
	ID: agent.Claude, Name: "Claude Code", Support: AllWires,
	Why:            "runaway runs before every tool call and can warn you, ask you, deny the call, or end the turn.",
	doctor:         (*doctor).checkWired,
	settingsChecks: func(d *doctor, w *wiredChecks) { d.checkClaudeSwitch(w.doc) },
	protection:     (*doctor).checkClaudeRules,
}
