package tamper

import (
	"reflect"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// OpenCode (shared/reference/cursor-gemini-opencode.md): runaway is a
// plugin, $XDG_CONFIG_HOME/opencode/plugins/runaway.js; every
// opencode.json{,c} (global, project, .opencode/) loads plugins; `opencode
// --pure` and OPENCODE_PURE start it without them.

var (
	// openCodePlugin is runaway's own: any change to it can switch the
	// guard off.
	openCodePlugin = &fileKind{what: "runaway's OpenCode plugin", own: true, watched: true}
	// openCodeConfig is $XDG_CONFIG_HOME/opencode/opencode.json{,c}, or
	// any opencode.json{,c}.
	openCodeConfig = &fileKind{
		what: "an OpenCode config, where its plugins are loaded",
		change: func(_ *checker, path string, w fileWrite) *finding {
			return openCodeConfigChange(path, w.old, w.next)
		},
		edit: openCodeEdit,
	}
)

var openCodeRules = agentRules{
	id: agent.OpenCode,
	files: []agentFile{
		{kind: openCodePlugin, dirEnv: "XDG_CONFIG_HOME", name: "opencode/plugins/runaway.js"},
		{kind: openCodeConfig, dirEnv: "XDG_CONFIG_HOME", name: "opencode/opencode.json"},
		{kind: openCodeConfig, dirEnv: "XDG_CONFIG_HOME", name: "opencode/opencode.jsonc"},
	},
	// A project's (or .opencode/'s) config loads plugins too.
	anywhere: []agentFile{{kind: openCodeConfig, name: "opencode.json"}, {kind: openCodeConfig, name: "opencode.jsonc"}},
	start:    (*shell).openCodeCmd,
}

// openCodeEdit judges an edit to an OpenCode config from its strings alone.
func openCodeEdit(path, old, new string) *finding {
	flatOld := strings.Join(strings.Fields(old), "")
	if strings.Contains(new, `"plugin"`) || strings.Contains(flatOld, `"plugin":`) {
		return &finding{action: "change the plugins of " + path, why: "which run inside OpenCode beside runaway's plugin and can switch it off"}
	}
	return nil
}

// openCodeCmd: `opencode --pure` (or OPENCODE_PURE set for it) starts
// OpenCode without external plugins, runaway's included.
func (sh *shell) openCodeCmd(args []string, cmdEnv map[string]string) {
	for _, a := range args {
		if a == "--pure" || strings.HasPrefix(a, "--pure=") && a != "--pure=false" {
			sh.t.deny(&finding{action: "start OpenCode with --pure", why: "which loads no plugins, runaway's included"})
			return
		}
	}
	pure, ok := cmdEnv["OPENCODE_PURE"]
	if v, set := sh.env.vars["OPENCODE_PURE"]; !ok && set && v.Exported {
		pure = v.Str
	}
	if pure != "" && pure != "0" && pure != "false" {
		sh.t.deny(&finding{action: "start OpenCode with OPENCODE_PURE set", why: "which loads no plugins, runaway's included"})
	}
}

// openCodeConfigChange: a plugin added or changed in an OpenCode config.
// Plugins run inside OpenCode beside runaway's, and one of them can switch
// it off (replace what it runs, drop its hooks); the rest of the file stays
// the agent's to edit. OpenCode reads comments and trailing commas.
func openCodeConfigChange(path, old, next string) *finding {
	newV, ok := parseSettingsJSON(next, false)
	if !ok {
		return nil // OpenCode refuses to start: nothing runs unguarded
	}
	oldV, _ := parseSettingsJSON(old, false)
	if p, ok := newV["plugin"]; ok && !reflect.DeepEqual(p, oldV["plugin"]) {
		return &finding{action: "change the plugins of " + path, why: "which run inside OpenCode beside runaway's plugin and can switch it off"}
	}
	return nil
}
