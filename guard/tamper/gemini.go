package tamper

import (
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// Gemini CLI (shared/reference/cursor-gemini-opencode.md): runaway's entry
// is in $GEMINI_CLI_HOME/.gemini/settings.json (else under HOME) and a
// project's .gemini/settings.json; hooksConfig.enabled, tools.enableHooks
// and hooksConfig.disabled switch hooks off; it loads .gemini/.env, else
// ~/.env, at start.

// geminiSettings is $GEMINI_CLI_HOME/.gemini/settings.json or any
// .gemini/settings.json. Gemini CLI reads comments.
var geminiSettings = &fileKind{
	what:  "a Gemini CLI settings file, where its hooks live",
	hooks: true, watched: true,
	change: geminiSettingsChange,
	edit:   geminiEdit,
	parse:  looseJSON,
}

var geminiRules = agentRules{
	id: agent.Gemini,
	files: []agentFile{
		{kind: geminiSettings, dirEnv: "GEMINI_CLI_HOME", name: filepath.Join(".gemini", "settings.json")},
		{kind: startupFile, dirEnv: "GEMINI_CLI_HOME", name: filepath.Join(".gemini", ".env")},
		{kind: startupFile, dirEnv: "HOME", name: ".env"}, // when .gemini/.env is absent
	},
	anywhere: []agentFile{
		{kind: geminiSettings, name: ".gemini/settings.json"}, // a project's, or another home's
		// Loaded from the folder it starts in, or the nearest one above.
		{kind: projectEnv, name: ".gemini/.env"},
		{kind: projectEnv, name: ".env"},
	},
	// Another GEMINI_CLI_HOME (or HOME) reads another settings file, one
	// without runaway's hook; the system settings override the user's.
	homeVars: []string{"GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"},
}

func geminiSettingsChange(_ *checker, path string, w fileWrite) *finding {
	oldV, oldOK := parseSettingsJSON(w.old, false)
	newV, newOK := parseSettingsJSON(w.next, false)
	if newOK && oldOK {
		if f := geminiChange(path, oldV, newV); f != nil {
			return f
		}
	}
	f, _ := hooksChange(false, path, w, oldV, oldOK, newV, newOK)
	return f
}

// geminiChange: Gemini CLI's switches for hooks, hooksConfig.enabled
// (0.26 and later), tools.enableHooks (earlier) and hooksConfig.disabled
// (hook names), turned against runaway.
func geminiChange(path string, oldV, newV map[string]any) *finding {
	get := func(m map[string]any, outer, inner string) any {
		o, _ := m[outer].(map[string]any)
		return o[inner]
	}
	for _, sw := range [][2]string{{"hooksConfig", "enabled"}, {"tools", "enableHooks"}} {
		if get(newV, sw[0], sw[1]) == false && get(oldV, sw[0], sw[1]) != false {
			return &finding{action: "set " + sw[0] + "." + sw[1] + " to false in " + path, why: "which switches every hook off, runaway's too"}
		}
	}
	disabled := func(m map[string]any) bool {
		list, _ := get(m, "hooksConfig", "disabled").([]any)
		for _, v := range list {
			if s, _ := v.(string); strings.EqualFold(strings.TrimSpace(s), "runaway") {
				return true
			}
		}
		return false
	}
	if disabled(newV) && !disabled(oldV) {
		return &finding{action: "disable runaway's hook in " + path + " (hooksConfig.disabled)"}
	}
	return nil
}

// geminiEdit judges an edit to a Gemini CLI settings file from its strings
// alone: its hook switches, then what every hooks file is judged by.
func geminiEdit(path, old, new string) *finding {
	flat := strings.Join(strings.Fields(new), "")
	if strings.Contains(flat, `"enabled":false`) || strings.Contains(flat, `"enableHooks":false`) ||
		strings.Contains(flat, `"disabled":[`) && strings.Contains(strings.ToLower(flat), `runaway`) {
		return &finding{action: "switch Gemini CLI's hooks off in " + path, why: "which switches runaway's hook off"}
	}
	return hooksEdit(path, old, new)
}
