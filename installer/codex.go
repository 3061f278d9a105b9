package installer

import (
	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// codexHarness: Codex denies instead of asking, and the person trusts
// runaway's entries in /hooks once: doctor checks that trust, its config
// and how a stop ends the run, and its sandbox.
var codexHarness = Harness{
	ID: agent.Codex, Name: "Codex", Support: AllWiresDenyNotAsk,
	Why:    "Codex hooks cannot ask the person, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you; Codex cannot end a turn from a hook, so at the cap runaway interrupts the codex process that ran it (that one only).",
	Todo:   `start codex: it says "Hooks need review"; choose "Review hooks" (or type /hooks) and trust runaway's two entries, named "` + configs.CodexToolName + `" and "` + configs.CodexPromptName + `". Codex runs a new or changed hook only once you trust it.`,
	doctor: (*doctor).checkWired,
	settingsChecks: func(d *doctor, w *wiredChecks) {
		var trust []trustCheck
		if len(w.byEvent["PreToolUse"]) == 1 {
			trust = append(trust, trustCheck{"codex-trust", w.entry})
		}
		if w.promptOK {
			trust = append(trust, trustCheck{"codex-prompt-trust", w.prompt})
		}
		d.checkCodexConfig(w.sf.Path, trust)
		d.checkCodexStop()
	},
	protection: (*doctor).checkCodexSandbox,
	afterSetup: func(bin string) []string {
		return []string{
			"",
			"Codex runs a new or changed hook only once you trust it. Once, now:",
			"  1. start codex: it says \"Hooks need review\"",
			"  2. choose \"Review hooks\" (or type /hooks)",
			"  3. trust runaway's two entries, named \"" + configs.CodexToolName + "\" and \"" + configs.CodexPromptName + "\" (both run " + ownfiles.Tilde(bin) + " hook codex)",
			"runaway doctor tells whether it is trusted.",
		}
	},
}
