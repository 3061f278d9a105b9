package installer

import (
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

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
	events: map[string]eventCheck{
		configs.GeminiModelEvent: {"model-entry", "each runs before every model request", "a session over its cap still sends the model a request before runaway stops its first tool call"},
		configs.GeminiChunkEvent: {"chunk-entry", "each runs after every chunk of a model's response", "the call of the response that crosses the cap still runs, and responses Gemini CLI aborts are not counted"},
	},
}

// checkGemini checks Gemini CLI's own loop detection: it stays on beside
// runaway's loop wire (it catches the same call five times in a row before
// the hook even runs).
func (d *doctor) checkGemini(h Harness) {
	check := "gemini-loop-detection"
	path := configs.GeminiSettings().Path
	m, err := readJSONC(path)
	if err != nil {
		d.add(StatusWarn, check, "%v", err)
		return
	}
	if !d.agents[h.ID].Found && m == nil {
		return // checkWired said "not installed"
	}
	model, _ := m["model"].(map[string]any)
	for _, v := range []struct {
		key string
		val any
	}{{"model.disableLoopDetection", model["disableLoopDetection"]}, {"disableLoopDetection", m["disableLoopDetection"]}} {
		if v.val == true {
			d.add(StatusWarn, check, "%s is true in %s: Gemini CLI's own loop detection is off; set it to false, it works beside runaway's", v.key, ownfiles.Tilde(path))
			return
		}
	}
	d.add(StatusOK, check, "Gemini CLI's own loop detection is on")
}

// checkGeminiHooks checks Gemini CLI's switches for hooks in the settings
// file that holds runaway's entry: hooksConfig.enabled (0.26 and later),
// tools.enableHooks (earlier versions) and hooksConfig.disabled.
func (d *doctor) checkGeminiHooks(doc *configs.Doc) {
	var s struct {
		HooksConfig struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
		Tools struct {
			EnableHooks *bool `json:"enableHooks"`
		} `json:"tools"`
	}
	name := ownfiles.Tilde(configs.GeminiSettings().Path)
	if doc == nil || doc.Value(&s) != nil {
		return
	}
	switch {
	case s.HooksConfig.Enabled != nil && !*s.HooksConfig.Enabled:
		d.add(StatusFail, "gemini-hooks-off", "hooksConfig.enabled is false in %s: Gemini CLI runs no hooks, runaway included; remove it", name)
	case s.Tools.EnableHooks != nil && !*s.Tools.EnableHooks:
		d.add(StatusFail, "gemini-hooks-off", "tools.enableHooks is false in %s: Gemini CLI runs no hooks, runaway included; remove it", name)
	case slices.ContainsFunc(s.HooksConfig.Disabled, func(n string) bool { return strings.EqualFold(strings.TrimSpace(n), "runaway") }):
		d.add(StatusFail, "gemini-hooks-off", "hooksConfig.disabled names runaway in %s: Gemini CLI skips its hook; take it out of the list", name)
	default:
		d.add(StatusOK, "gemini-hooks-off", "Gemini CLI's hooks are on")
	}
}
