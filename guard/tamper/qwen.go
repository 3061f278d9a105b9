package tamper

import "github.com/runaway-guard/runaway/agent"

// Qwen Code (shared/reference/qwen-code.md): runaway's entry is in
// $QWEN_HOME/settings.json (else ~/.qwen), in Claude Code's hook layout; a
// project's .qwen/settings.json holds hooks too (in a folder Qwen Code
// trusts); disableAllHooks in either switches every hook off; it loads
// $QWEN_HOME/.env and ~/.env at start (findEnvFiles in 0.24.4's bundle),
// whose variables reach runaway's hook; `qwen --safe-mode` starts it
// without hooks.

// qwenSettings is $QWEN_HOME/settings.json or any .qwen/settings.json.
// Qwen Code strips comments before it parses the file.
var qwenSettings = &fileKind{
	what:  "a Qwen Code settings file, where its hooks live",
	hooks: true, watched: true,
	change: qwenChange,
	edit:   hooksEdit,
	parse:  looseJSON,
}

var qwenRules = agentRules{
	id: agent.Qwen,
	files: []agentFile{
		{kind: qwenSettings, dirEnv: "QWEN_HOME", name: "settings.json"},
		{kind: startupFile, dirEnv: "QWEN_HOME", name: ".env"},
		{kind: startupFile, dirEnv: "HOME", name: ".env"},
	},
	anywhere: []agentFile{{kind: qwenSettings, name: ".qwen/settings.json", inProject: true}},
	// Another QWEN_HOME reads another settings file, one without runaway's
	// hook; so does another system settings file.
	homeVars: []string{"QWEN_HOME", "QWEN_CODE_SYSTEM_SETTINGS_PATH"},
	start:    (*shell).qwenCmd,
}

// qwenChange: disableAllHooks set, or runaway's entries dropped.
func qwenChange(_ *checker, path string, w fileWrite) *finding {
	oldV, oldOK := parseSettingsJSON(w.old, false)
	newV, newOK := parseSettingsJSON(w.next, false)
	if newOK && newV["disableAllHooks"] == true && !(oldOK && oldV["disableAllHooks"] == true) {
		return &finding{action: "set disableAllHooks in " + path, why: "which switches every hook off, runaway's too"}
	}
	f, _ := hooksChange(false, path, w, oldV, oldOK, newV, newOK)
	return f
}

// qwenCmd: Qwen Code started with --safe-mode, which disables hooks (and
// extensions, skills and MCP), runaway's too.
func (sh *shell) qwenCmd(args []string, _ map[string]string) {
	for _, a := range args {
		if a == "--safe-mode" || a == "--safe-mode=true" {
			sh.t.deny(&finding{action: "start Qwen Code with --safe-mode", why: "which skips its hooks, runaway's too"})
			return
		}
	}
}
