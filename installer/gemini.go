package installer

import "github.com/runaway-guard/runaway/agent"

// geminiHarness: Gemini CLI denies instead of asking; doctor checks its
// hook switches and its own loop detection.
var geminiHarness = Harness{
	ID: agent.Gemini, Name: "Gemini CLI", Support: AllWiresDenyNotAsk,
	Why: "Gemini CLI's ask would wait forever in a headless run, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you; at the cap it ends the run. Gemini CLI's own loop detection stays on beside it.",
	doctor: func(d *doctor, h Harness) {
		d.checkWired(h)
		d.checkGemini(h)
	},
	settingsChecks: func(d *doctor, w *wiredChecks) { d.checkGeminiHooks(w.doc) },
}
