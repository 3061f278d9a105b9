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
	// Files that set the environment of the next shell or agent run:
	// judged by what they would set or run (see startupFiles).
	startupFile
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
	case startupFile:
		return "a file that sets the environment of the next shell or agent run"
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

// agentCommand checks an agent the line starts (name is the program's
// base name) for the ways to start it without runaway's hook; it reports
// whether name is an agent.
func (sh *shell) agentCommand(name string, args []string, cmdEnv map[string]string) bool {
	switch name {
	case "claude":
		sh.agentEnv("Claude Code", cmdEnv, "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SIMPLE")
		sh.claudeCmd(args)
	case "codex":
		sh.agentEnv("Codex", cmdEnv, "CODEX_HOME")
		sh.codexCmd(args)
	case "opencode":
		sh.agentEnv("OpenCode", cmdEnv)
		sh.openCodeCmd(args, cmdEnv)
	case "gemini":
		// Another GEMINI_CLI_HOME (or HOME) reads another settings file,
		// one without runaway's hook.
		sh.agentEnv("Gemini CLI", cmdEnv, "GEMINI_CLI_HOME")
	default:
		return false
	}
	return true
}

// agentPackage maps an npm package (npx, bunx, pnpm dlx) to its agent's
// program name.
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

// agentScript maps a script node runs to its agent (the installed CLI's
// entry point).
func agentScript(p string) string {
	switch {
	case strings.Contains(p, "claude-code/") || filepath.Base(p) == "claude":
		return "claude"
	case strings.Contains(p, "@openai/codex/") || filepath.Base(p) == "codex" || filepath.Base(p) == "codex.js":
		return "codex"
	}
	return ""
}

// agentEnv: a nested agent started with another home, config folder,
// runaway's variables or hooks skipped runs without runaway's guard, or
// with other limits. vars are the agent's own such variables.
func (sh *shell) agentEnv(agent string, cmdEnv map[string]string, vars ...string) {
	set := func(k string) bool {
		if _, ok := cmdEnv[k]; ok {
			return true
		}
		v, ok := sh.env.vars[k]
		return ok && v.Exported
	}
	names := append([]string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_BIN_HOME"}, vars...)
	for k := range cmdEnv {
		if strings.HasPrefix(k, "RUNAWAY_") {
			names = append(names, k)
		}
	}
	for k, v := range sh.env.vars {
		if strings.HasPrefix(k, "RUNAWAY_") && v.Exported {
			names = append(names, k)
		}
	}
	for _, k := range names {
		if set(k) && !sh.sameAsNow(k, cmdEnv) {
			sh.t.deny(&finding{action: "start " + agent + " with another " + k, why: "which runs it without runaway's hook or with other limits"})
			return
		}
	}
}

// sameAsNow reports a variable set for a nested agent to the value it has
// already (GEMINI_CLI_HOME=$HOME).
func (sh *shell) sameAsNow(k string, cmdEnv map[string]string) bool {
	v, ok := cmdEnv[k]
	if !ok {
		v = sh.env.vars[k].Str
	}
	if !known(v) || v == "" {
		return false
	}
	now := sh.t.getenv(k)
	if now == "" {
		if _, ok := envDefaults[k]; ok {
			now = sh.t.envDir(k)
		}
	}
	return now != "" && filepath.Clean(v) == filepath.Clean(now)
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

// claudeCmd: Claude Code started with its hooks skipped: --bare,
// --safe-mode, --setting-sources without a file holding runaway's entry,
// --settings with disableAllHooks (inline or a file).
func (sh *shell) claudeCmd(args []string) {
	for _, a := range args {
		if a == "--bare" || a == "--safe-mode" {
			sh.t.deny(&finding{action: "start Claude Code with " + a, why: "which skips its hooks, runaway's too"})
			return
		}
	}
	for _, v := range optionValues(args, "--setting-sources") {
		if !sh.t.sourcesHoldEntry(strings.Split(v, ","), sh.cwd) {
			sh.t.deny(&finding{action: "start Claude Code with --setting-sources " + v, why: "which leaves out the settings holding runaway's hook"})
			return
		}
	}
	for _, v := range optionValues(args, "--settings") {
		if !known(v) {
			continue
		}
		text := strings.TrimSpace(v)
		if !strings.HasPrefix(text, "{") {
			p := sh.abs(text)
			if p == "" {
				continue
			}
			if w, ok := sh.t.written[filepath.Clean(p)]; ok {
				text = w // written earlier in the line
			} else if s, err := readSmall(p); err == nil {
				text = s
			} else {
				continue
			}
		}
		if disablesAllHooks(text) {
			sh.t.deny(&finding{action: "start Claude Code with disableAllHooks", why: "which switches runaway's hook off"})
			return
		}
	}
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

// sourcesHoldEntry reports whether one of the setting sources (user,
// project, local) holds runaway's entry, or none holds it anywhere.
func (t *checker) sourcesHoldEntry(sources []string, cwd string) bool {
	files := map[string]string{"user": t.settingsPath(claudeSettings)}
	if d := t.abs(".claude", cwd); d != "" && known(d) {
		files["project"] = filepath.Join(d, "settings.json")
		files["local"] = filepath.Join(d, "settings.local.json")
	}
	anywhere, listed := false, false
	for src, p := range files {
		if !holdsEntry(claudeSettings, p) {
			continue
		}
		anywhere = true
		for _, s := range sources {
			if strings.TrimSpace(s) == src {
				listed = true
			}
		}
	}
	return listed || !anywhere
}

// holdsEntry reports whether the settings file at p holds runaway's entry.
func holdsEntry(kind fileKind, p string) bool {
	data, err := readSmall(p)
	if err != nil {
		return false
	}
	v, ok := parseSettingsJSON(data, false)
	return ok && len(runawayEntries(v, kind == codexHooks)) > 0
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

// codexCmd: Codex started with its hooks off (`-c features.hooks=false`,
// attached or not, `--disable hooks`, a `-c hooks.state…` override turning
// a hook off), or `codex features disable hooks`, which writes that into
// its config.
func (sh *shell) codexCmd(args []string) {
	for _, v := range optionValues(args, "-c", "--config") {
		kv := strings.Join(strings.Fields(v), "")
		key, val, _ := strings.Cut(kv, "=")
		switch {
		case (key == "features.hooks" || key == "features.codex_hooks") && strings.Trim(val, `"'`) == "false",
			key == "features" && (strings.Contains(val, "hooks=false") || strings.Contains(val, "hooks=\"false\"")),
			strings.HasPrefix(key, "hooks.state") && strings.Contains(kv, "false"):
			sh.t.deny(&finding{action: "start Codex with its hooks switched off (" + key + ")", why: "which switches runaway's hook off"})
			return
		}
	}
	for _, v := range optionValues(args, "--disable") {
		if v == "hooks" || v == "codex_hooks" {
			sh.t.deny(&finding{action: "start Codex with its hooks switched off (--disable " + v + ")", why: "which switches runaway's hook off"})
			return
		}
	}
	ops := operands(args, "cpmsaCi")
	if len(ops) >= 3 && ops[0] == "features" && ops[1] == "disable" && (ops[2] == "hooks" || ops[2] == "codex_hooks") {
		sh.t.deny(&finding{action: "switch Codex's hooks off (codex features disable " + ops[2] + ")", why: "which switches runaway's hook off"})
	}
}
