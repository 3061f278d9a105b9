package tamper

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/configs"
)

// What the wire knows about each agent: the files that hold runaway's
// entry or switch the agent's hooks off, the variables that move them, and
// how the agent can be started from a tool call without its hooks. A new
// agent adds its kinds, a row in settingsFiles, its variables in
// envDefaults, its nouns, how a change to its files is judged
// (settingsChange) and its command in agentCommand.

// fileKind is what a protected path is to runaway.
type fileKind uint8

const (
	notProtected fileKind = iota
	ownConfig             // $XDG_CONFIG_HOME/runaway and anything in it
	ownState              // $XDG_STATE_HOME/runaway and anything in it
	ownBinary             // $XDG_BIN_HOME/runaway, the running program
	// The agents' settings files (see settingsFiles).
	claudeSettings // $CLAUDE_CONFIG_DIR/settings.json, any .claude/settings{,.local}.json
	codexHooks     // $CODEX_HOME/hooks.json
	codexConfig    // $CODEX_HOME/config.toml
	openCodePlugin // $XDG_CONFIG_HOME/opencode/plugins/runaway.js
	openCodeConfig // $XDG_CONFIG_HOME/opencode/opencode.json{,c}, any opencode.json{,c}
	geminiSettings // $GEMINI_CLI_HOME/.gemini/settings.json, any .gemini/settings.json
)

// owned: any write is denied, whatever it writes. runaway's OpenCode plugin
// is runaway's own, and any change to it can switch the guard off.
func (k fileKind) owned() bool {
	return k == ownConfig || k == ownState || k == ownBinary || k == openCodePlugin
}

// settingsFiles are the agents' files that hold runaway's entry or switch
// their hooks off, each in the folder a variable names (by default under
// HOME, see envDefaults).
var settingsFiles = []struct {
	kind   fileKind
	dirEnv string // the variable naming its folder
	name   string // its name in that folder
}{
	{claudeSettings, "CLAUDE_CONFIG_DIR", "settings.json"},
	{codexHooks, "CODEX_HOME", "hooks.json"},
	{codexConfig, "CODEX_HOME", "config.toml"},
	{openCodePlugin, "XDG_CONFIG_HOME", "opencode/plugins/runaway.js"},
	{openCodeConfig, "XDG_CONFIG_HOME", "opencode/opencode.json"},
	{openCodeConfig, "XDG_CONFIG_HOME", "opencode/opencode.jsonc"},
	{geminiSettings, "GEMINI_CLI_HOME", filepath.Join(".gemini", "settings.json")},
}

// settingsPath is where the file of kind is ("" when HOME is unknown).
func (t *checker) settingsPath(kind fileKind) string {
	for _, f := range settingsFiles {
		if f.kind == kind {
			if d := t.envDir(f.dirEnv); d != "" {
				return filepath.Join(d, f.name)
			}
		}
	}
	return ""
}

// envDefaults are the defaults, relative to HOME, of the variables that
// name runaway's and the agents' folders.
var envDefaults = map[string]string{
	"XDG_CONFIG_HOME":   ".config",
	"XDG_STATE_HOME":    ".local/state",
	"XDG_DATA_HOME":     ".local/share",
	"XDG_CACHE_HOME":    ".cache",
	"XDG_BIN_HOME":      ".local/bin",
	"CLAUDE_CONFIG_DIR": ".claude",
	"CODEX_HOME":        ".codex",
	"GEMINI_CLI_HOME":   "", // Gemini CLI's home: it keeps .gemini in it
}

// noun names a protected file for people.
func (k fileKind) noun() string {
	switch k {
	case ownConfig:
		return "runaway's own config"
	case ownState:
		return "runaway's state"
	case ownBinary:
		return "runaway's program"
	case claudeSettings:
		return "a Claude Code settings file, where its hooks live"
	case codexHooks:
		return "Codex's hooks file"
	case codexConfig:
		return "Codex's config, where its hooks are switched on and trusted"
	case openCodePlugin:
		return "runaway's OpenCode plugin"
	case openCodeConfig:
		return "an OpenCode config, where its plugins are loaded"
	case geminiSettings:
		return "a Gemini CLI settings file, where its hooks live"
	}
	return "a protected file"
}

// guardEnv reports a variable that, set in a settings file's env (which
// Claude Code passes to its hooks), changes runaway's limits or where it
// keeps its files, or skips hooks.
func guardEnv(name string) bool {
	switch name {
	case "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_BIN_HOME", "CLAUDE_CODE_SIMPLE":
		return true
	}
	return strings.HasPrefix(name, "RUNAWAY_")
}

// agentCommand checks an agent started from a tool call (name is the
// program's base name): the ways to start it without runaway's hook.
func (t *checker) agentCommand(st *shellState, name string, args []arg) (*finding, bool) {
	switch name {
	case "claude":
		return t.claudeCmd(st, args), true
	case "codex":
		return codexCmd(args), true
	case "opencode":
		return openCodeCmd(st, args), true
	case "gemini":
		return t.geminiCmd(st), true
	}
	return nil, false
}

// openCodeCmd: `opencode --pure` (or OPENCODE_PURE set for it) starts
// OpenCode without external plugins, runaway's included.
func openCodeCmd(st *shellState, args []arg) *finding {
	for _, a := range args {
		if a.text == "--pure" || strings.HasPrefix(a.text, "--pure=") && a.text != "--pure=false" {
			return &finding{action: "start OpenCode with --pure", why: "which loads no plugins, runaway's included"}
		}
	}
	pure := st.ex.vars["OPENCODE_PURE"]
	for _, kv := range st.env {
		if v, ok := strings.CutPrefix(kv, "OPENCODE_PURE="); ok {
			pure = v
		}
	}
	if pure != "" && pure != "0" && pure != "false" {
		return &finding{action: "start OpenCode with OPENCODE_PURE set", why: "which loads no plugins, runaway's included"}
	}
	return nil
}

// agentPackage maps an npm package (npx, bunx) to its agent's program name.
func agentPackage(pkg string) string {
	switch {
	case strings.HasSuffix(pkg, "claude-code"):
		return "claude"
	case pkg == "openai/codex" || pkg == "codex":
		return "codex"
	case pkg == "opencode-ai" || strings.HasPrefix(pkg, "opencode-ai@"):
		return "opencode"
	case strings.HasSuffix(pkg, "gemini-cli"):
		return "gemini"
	}
	return ""
}

// claudeCmd: `claude --settings '{"disableAllHooks":true}'` (or a file
// that says so) starts Claude Code with every hook off.
func (t *checker) claudeCmd(st *shellState, args []arg) *finding {
	for _, v := range optionValues(args, "--settings") {
		if !v.known() {
			continue
		}
		text := strings.TrimSpace(v.text)
		if !strings.HasPrefix(text, "{") {
			p := abs(text, st.cwd)
			if p == "" {
				continue
			}
			s, err := readSmall(p)
			if err != nil {
				continue
			}
			text = s
		}
		if disablesAllHooks(text) {
			return &finding{action: "start Claude Code with disableAllHooks", why: "which switches runaway's hook off"}
		}
	}
	return nil
}

// disablesAllHooks reports a settings text with "disableAllHooks": true.
func disablesAllHooks(text string) bool {
	var m map[string]any
	// Past configs.MaxNesting the JSONC parser's stack would overflow.
	if configs.TooDeep([]byte(text)) < 0 {
		if b, err := hujson.Standardize([]byte(text)); err == nil && json.Unmarshal(b, &m) == nil {
			return m["disableAllHooks"] == true
		}
	}
	// Not JSON: judge the words.
	s := strings.Join(strings.Fields(text), "")
	return strings.Contains(s, `"disableAllHooks":true`)
}

// codexCmd: `codex -c features.hooks=false`, `--disable hooks`, or a
// `-c hooks.state…` override that turns a hook off.
func codexCmd(args []arg) *finding {
	for _, v := range optionValues(args, "-c", "--config") {
		kv := strings.Join(strings.Fields(v.text), "")
		key, val, _ := strings.Cut(kv, "=")
		switch {
		case (key == "features.hooks" || key == "features.codex_hooks") && strings.Trim(val, `"'`) == "false",
			key == "features" && (strings.Contains(val, "hooks=false") || strings.Contains(val, "hooks=\"false\"")),
			strings.HasPrefix(key, "hooks.state") && strings.Contains(kv, "false"):
			return &finding{action: "start Codex with its hooks switched off (" + key + ")", why: "which switches runaway's hook off"}
		}
	}
	for i, a := range args {
		v := ""
		if a.text == "--disable" && i+1 < len(args) {
			v = args[i+1].text
		} else if s, ok := strings.CutPrefix(a.text, "--disable="); ok {
			v = s
		}
		if v == "hooks" || v == "codex_hooks" {
			return &finding{action: "start Codex with its hooks switched off (--disable " + v + ")", why: "which switches runaway's hook off"}
		}
	}
	return nil
}

// geminiCmd: a Gemini CLI started with another GEMINI_CLI_HOME (or, without
// one, another HOME) reads another settings file, one without runaway's
// hook.
func (t *checker) geminiCmd(st *shellState) *finding {
	want := t.envDir("GEMINI_CLI_HOME")
	for _, name := range []string{"GEMINI_CLI_HOME", "HOME"} {
		v, ok := st.ex.vars[name]
		for _, kv := range st.env {
			if val, found := strings.CutPrefix(kv, name+"="); found {
				v, ok = val, true
			}
		}
		if !ok {
			if name == "GEMINI_CLI_HOME" && t.getenv(name) != "" {
				return nil // set by the agent and not changed: HOME no longer matters
			}
			continue
		}
		if v == "" && name == "GEMINI_CLI_HOME" {
			continue // empty: Gemini CLI falls back to HOME
		}
		if !strings.Contains(v, unknownPart) && filepath.Clean(v) == want {
			return nil
		}
		return &finding{action: "start Gemini CLI with another " + name, why: "whose settings do not run runaway's hook"}
	}
	return nil
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
