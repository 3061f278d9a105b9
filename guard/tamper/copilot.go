package tamper

import (
	"path/filepath"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// GitHub Copilot CLI (shared/reference/copilot-cli.md): runaway is a hooks
// file of its own, $COPILOT_HOME/hooks/runaway.json (else under
// ~/.copilot); disableAllHooks in its user settings, or at the top of a
// repository's .github/copilot/settings{,.local}.json, skips every user
// hook, runaway's included; another COPILOT_HOME reads another hooks
// folder.

var (
	// copilotHooks is runaway's own: any change to it can switch the
	// guard off.
	copilotHooks = &fileKind{what: "runaway's Copilot CLI hooks file", own: true, watched: true}
	// copilotSettings is $COPILOT_HOME/settings.json, or a repository's
	// .github/copilot/settings{,.local}.json. Copilot CLI reads comments.
	copilotSettings = &fileKind{
		what:   "a Copilot CLI settings file, where its hooks are switched off",
		change: copilotSettingsChange,
		edit:   hooksEdit,
		parse:  looseJSON,
	}
)

var copilotRules = agentRules{
	id: agent.Copilot,
	files: []agentFile{
		{kind: copilotHooks, dirEnv: "COPILOT_HOME", name: filepath.Join("hooks", configs.CopilotHooksName)},
		{kind: copilotSettings, dirEnv: "COPILOT_HOME", name: "settings.json"},
	},
	anywhere: []agentFile{
		{kind: copilotSettings, name: ".github/copilot/settings.json", inProject: true},
		{kind: copilotSettings, name: ".github/copilot/settings.local.json", inProject: true},
	},
	homeVars: []string{"COPILOT_HOME"},
}

// copilotSettingsChange: disableAllHooks set.
func copilotSettingsChange(_ *checker, path string, w fileWrite) *finding {
	oldV, oldOK := parseSettingsJSON(w.old, false)
	newV, newOK := parseSettingsJSON(w.next, false)
	if newOK && newV["disableAllHooks"] == true && !(oldOK && oldV["disableAllHooks"] == true) {
		return &finding{action: "set disableAllHooks in " + path, why: "which switches every user hook off, runaway's too"}
	}
	return nil
}
