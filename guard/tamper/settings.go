package tamper

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/configs"
)

// How the tamper wire judges a change to a settings file runaway manages:
// it compares the file on disk with what the call would leave there. Other
// parts of those files (permissions, env, model…) stay the agent's to edit.

// settingsChange judges writing next over old (exists: whether each is a
// file; a missing or empty file is `{}`).
func (t *checker) settingsChange(kind fileKind, path, old string, oldExists bool, next string, nextExists bool) *finding {
	if f := t.settingsSwitches(kind, path, old, oldExists, next, nextExists); f != nil {
		return f
	}
	if nextExists {
		return t.laterCommands(kind, path, old, next)
	}
	return nil
}

// settingsSwitches judges what switches runaway's hook off or moves its
// files.
func (t *checker) settingsSwitches(kind fileKind, path, old string, oldExists bool, next string, nextExists bool) *finding {
	if !oldExists {
		old = ""
	}
	if !nextExists {
		next = ""
	}
	switch kind {
	case startupFile:
		return t.startupChange(path, old, next)
	case claudeSettings, codexHooks, geminiSettings:
		oldV, oldOK := parseSettingsJSON(old, false)
		// Claude Code and Codex reject comments and trailing commas: a file
		// with them loses its hooks. Gemini CLI reads comments.
		newV, newOK := parseSettingsJSON(next, kind != geminiSettings)
		if kind == geminiSettings && newOK && oldOK {
			if f := geminiChange(path, oldV, newV); f != nil {
				return f
			}
		}
		if kind == claudeSettings && newOK && newV["disableAllHooks"] == true && !(oldOK && oldV["disableAllHooks"] == true) {
			return &finding{action: "set disableAllHooks in " + path, why: "which switches every hook off, runaway's too"}
		}
		if kind == claudeSettings && newOK {
			if f := envChange(path, oldV, newV); f != nil {
				return f
			}
		}
		if !oldOK {
			return nil
		}
		oldE := runawayEntries(oldV, kind == codexHooks)
		if len(oldE) == 0 {
			return nil
		}
		if !nextExists {
			return &finding{action: "remove " + path, why: "which holds runaway's hook"}
		}
		if !newOK {
			return &finding{action: "leave " + path + " unreadable", why: "which would switch runaway's hook off"}
		}
		if !containsAll(runawayEntries(newV, kind == codexHooks), oldE) {
			return &finding{action: "remove or change runaway's hook entry in " + path}
		}
		if kind == codexHooks && codexAccepts(oldV) && !codexAccepts(newV) {
			return &finding{action: "leave " + path + " unreadable to Codex", why: "which skips a hooks.json with unknown keys or wrong types, runaway's hook with it"}
		}
	case codexConfig:
		return codexConfigChange(path, old, next, t.settingsPath(codexHooks))
	case openCodeConfig:
		return openCodeConfigChange(path, old, next)
	}
	return nil
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

// laterCommands: commands a settings file runs outside tool calls (other
// hooks, statusLine, apiKeyHelper, Codex notify…). A new one is checked
// like a Bash call; one that passes is still the person's to allow.
func (t *checker) laterCommands(kind fileKind, path, old, next string) *finding {
	have := map[string]int{}
	for _, c := range settingsCommands(kind, old) {
		have[c]++
	}
	for _, c := range settingsCommands(kind, next) {
		if have[c] > 0 {
			have[c]--
			continue
		}
		if configs.IsRunawayCommand(c) {
			continue
		}
		t.shell(c, t.cwd)
		if f := t.found; f != nil {
			t.found = nil
			return &finding{action: "add a command to " + path + " that runs outside tool calls and would " + f.action, path: f.path}
		}
		if t.expired() {
			return nil
		}
		if kind != claudeSettings {
			continue // only Claude Code can ask the person
		}
		short := c
		if len(short) > 80 {
			short = short[:80] + "…"
		}
		t.ask(&finding{action: "add a command to " + path + " that runs outside tool calls (" + short + ")", why: "where runaway does not see it"})
	}
	return nil
}

// commandKeys name the settings values that are command lines.
var commandKeys = map[string]bool{
	"command": true, "commandWindows": true, "command_windows": true, "apiKeyHelper": true,
	"awsAuthRefresh": true, "awsCredentialExport": true, "otelHeadersHelper": true,
}

// settingsCommands lists the command lines in a settings file's text.
func settingsCommands(kind fileKind, text string) []string {
	var v map[string]any
	switch kind {
	case claudeSettings, codexHooks, geminiSettings:
		m, ok := parseSettingsJSON(text, false)
		if !ok {
			return nil
		}
		v = m
	case codexConfig:
		if configs.TooDeep([]byte(text)) >= 0 {
			return nil
		}
		if _, err := toml.Decode(text, &v); err != nil {
			return nil
		}
	default:
		return nil
	}
	var out []string
	var walk func(key string, x any, depth int)
	walk = func(key string, x any, depth int) {
		if depth > 12 {
			return
		}
		switch y := x.(type) {
		case string:
			if commandKeys[key] {
				out = append(out, y)
			}
		case []any:
			if key == "notify" {
				var q []string
				for _, e := range y {
					if s, ok := e.(string); ok {
						q = append(q, configs.ShellQuote(s))
					}
				}
				out = append(out, strings.Join(q, " "))
				return
			}
			for _, e := range y {
				walk(key, e, depth+1)
			}
		case map[string]any:
			// An MCP server (mcpServers, mcp_servers): a program and its
			// arguments, run as one command (`bash` with `-c …`).
			cmd, isCmd := y["command"].(string)
			args, hasArgs := y["args"].([]any)
			if isCmd && hasArgs {
				q := []string{configs.ShellQuote(cmd)}
				for _, a := range args {
					if s, ok := a.(string); ok {
						q = append(q, configs.ShellQuote(s))
					}
				}
				out = append(out, strings.Join(q, " "))
			}
			for k, e := range y {
				if isCmd && hasArgs && (k == "command" || k == "args") {
					continue
				}
				walk(k, e, depth+1)
			}
		}
	}
	walk("", v, 0)
	return out
}

// codexAccepts reports whether Codex would load a hooks.json: only a
// "hooks" key at the top, and handlers whose fields have the right types.
func codexAccepts(v map[string]any) bool {
	for k := range v {
		if k != "hooks" {
			return false
		}
	}
	hooks, ok := v["hooks"]
	if !ok {
		return true
	}
	events, ok := hooks.(map[string]any)
	if !ok {
		return false
	}
	for _, groups := range events {
		list, ok := groups.([]any)
		if !ok {
			return false
		}
		for _, g := range list {
			group, ok := g.(map[string]any)
			if !ok {
				return false
			}
			if m, ok := group["matcher"]; ok && m != nil {
				if _, ok := m.(string); !ok {
					return false
				}
			}
			handlers, ok := group["hooks"].([]any)
			if !ok {
				return false
			}
			for _, h := range handlers {
				if !codexHandlerOK(h) {
					return false
				}
			}
		}
	}
	return true
}

func codexHandlerOK(h any) bool {
	m, ok := h.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range m {
		switch k {
		case "type", "command", "statusMessage", "commandWindows", "command_windows":
			if _, ok := v.(string); !ok {
				return false
			}
		case "timeout", "timeoutSec":
			f, ok := v.(float64)
			if !ok || f < 0 || f != float64(int64(f)) {
				return false
			}
		case "async":
			if _, ok := v.(bool); !ok {
				return false
			}
		}
	}
	typ, _ := m["type"].(string)
	return typ == "command" || typ == "prompt" || typ == "agent"
}

// envChange: the new file's env sets or changes a variable guardEnv names.
func envChange(path string, oldV, newV map[string]any) *finding {
	oldEnv, _ := oldV["env"].(map[string]any)
	newEnv, _ := newV["env"].(map[string]any)
	for k, v := range newEnv {
		if guardEnv(k) && !reflect.DeepEqual(oldEnv[k], v) {
			return &finding{action: "set " + k + " in the env of " + path, why: "which changes runaway's limits or where it keeps its files"}
		}
	}
	return nil
}

// parseSettingsJSON parses a settings file (missing or empty: `{}`);
// strict refuses comments and trailing commas.
func parseSettingsJSON(s string, strict bool) (map[string]any, bool) {
	s = strings.TrimPrefix(s, "\ufeff")
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, true
	}
	b := []byte(s)
	if configs.TooDeep(b) >= 0 {
		return nil, false // as the JSON decoder would say, without the stack overflow
	}
	if !strict {
		var err error
		if b, err = hujson.Standardize(b); err != nil {
			return nil, false
		}
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// runawayEntries are runaway's handlers under "hooks", each as a string
// that changes when the handler, its matcher or its event changes (for
// Codex also its position, which the trust key names).
func runawayEntries(settings map[string]any, withPosition bool) []string {
	hooks, _ := settings["hooks"].(map[string]any)
	var out []string
	for event, groups := range hooks {
		list, _ := groups.([]any)
		for gi, g := range list {
			group, _ := g.(map[string]any)
			handlers, _ := group["hooks"].([]any)
			for hi, h := range handlers {
				handler, _ := h.(map[string]any)
				if !isRunawayHandler(handler) {
					continue
				}
				b, _ := json.Marshal(handler) // keys sorted: a stable form
				m, _ := json.Marshal(group["matcher"])
				key := event + "\x00" + string(m) + "\x00" + string(b)
				if withPosition {
					key += fmt.Sprintf("\x00%d:%d", gi, hi)
				}
				out = append(out, key)
			}
		}
	}
	return out
}

// isRunawayHandler: runaway's entry, by the marker setup uses (the
// program is named runaway and its first argument is hook), in shell form
// or exec form (command + args).
func isRunawayHandler(h map[string]any) bool {
	cmd, _ := h["command"].(string)
	if cmd == "" {
		return false
	}
	if args, ok := h["args"].([]any); ok && len(args) > 0 {
		first, _ := args[0].(string)
		return configs.IsRunawayCommand(configs.ShellQuote(cmd) + " " + configs.ShellQuote(first))
	}
	return configs.IsRunawayCommand(cmd)
}

// containsAll reports whether have holds every entry of want (as many
// times).
func containsAll(have, want []string) bool {
	count := map[string]int{}
	for _, h := range have {
		count[h]++
	}
	for _, w := range want {
		if count[w] == 0 {
			return false
		}
		count[w]--
	}
	return true
}

// codexConfigChange: switching hooks off ([features] hooks = false, or the
// old codex_hooks name), or changing the trust record of runaway's hook.
func codexConfigChange(path, old, next, hooksPath string) *finding {
	var oldV, newV map[string]any
	// Nesting past configs.MaxNesting is broken too (and overflows the
	// TOML decoder's stack).
	if configs.TooDeep([]byte(next)) >= 0 {
		return nil
	}
	oldOK := configs.TooDeep([]byte(old)) < 0
	if oldOK {
		_, err := toml.Decode(old, &oldV)
		oldOK = err == nil
	}
	if _, err := toml.Decode(next, &newV); err != nil {
		if oldOK {
			return &finding{action: "leave " + path + " unreadable", why: "which Codex needs to run its hooks"}
		}
		return nil
	}
	features := func(m map[string]any) map[string]any { f, _ := m["features"].(map[string]any); return f }
	for _, key := range []string{"hooks", "codex_hooks"} {
		if features(newV)[key] == false && !(oldOK && features(oldV)[key] == false) {
			return &finding{action: "switch Codex's hooks off in " + path + " ([features] " + key + " = false)", why: "which switches runaway's hook off"}
		}
	}
	state := func(m map[string]any) map[string]any {
		h, _ := m["hooks"].(map[string]any)
		s, _ := h["state"].(map[string]any)
		return s
	}
	oldS, newS := state(oldV), state(newV)
	keys := runawayTrustKeys(hooksPath)
	ours := func(k string) bool {
		if keys == nil {
			return strings.HasPrefix(k, hooksPath+":")
		}
		return keys[k]
	}
	for k, v := range oldS {
		if ours(k) && !reflect.DeepEqual(v, newS[k]) {
			return &finding{action: "change the trust record of runaway's hook in " + path, why: "without which Codex skips the hook"}
		}
	}
	for k, v := range newS {
		if _, had := oldS[k]; !had && ours(k) {
			if e, _ := v.(map[string]any); e["enabled"] == false {
				return &finding{action: "disable runaway's hook in " + path, why: "which switches it off"}
			}
		}
	}
	return nil
}

// codexEventLabels name the events in Codex's trust keys.
var codexEventLabels = map[string]string{
	"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use", "PermissionRequest": "permission_request",
	"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop",
	"SubagentStart": "subagent_start", "SubagentStop": "subagent_stop", "PreCompact": "pre_compact",
	"PostCompact": "post_compact", "SessionEnd": "session_end",
}

// runawayTrustKeys are the [hooks.state] keys of runaway's handlers in
// Codex's hooks.json (`<path>:pre_tool_use:<group>:<handler>`), or nil when
// the file cannot be read (then every key of that file counts).
func runawayTrustKeys(hooksPath string) map[string]bool {
	if hooksPath == "" {
		return map[string]bool{}
	}
	data, err := readSmall(hooksPath)
	if err != nil {
		return nil
	}
	v, ok := parseSettingsJSON(data, false)
	if !ok {
		return nil
	}
	keys := map[string]bool{}
	hooks, _ := v["hooks"].(map[string]any)
	for event, groups := range hooks {
		list, _ := groups.([]any)
		for gi, g := range list {
			group, _ := g.(map[string]any)
			handlers, _ := group["hooks"].([]any)
			for hi, h := range handlers {
				if handler, _ := h.(map[string]any); isRunawayHandler(handler) {
					label := codexEventLabels[event]
					if label == "" {
						label = event
					}
					keys[fmt.Sprintf("%s:%s:%d:%d", hooksPath, label, gi, hi)] = true
				}
			}
		}
	}
	return keys
}

// editTouchesHooks judges an edit from its strings alone, when it cannot be
// tried on the file: it touches runaway's entry (names runaway and hook),
// sets disableAllHooks, removes the hooks key, or switches Codex hooks off.
func editTouchesHooks(kind fileKind, path, old, new string) *finding {
	both := strings.ToLower(old + "\n" + new)
	if strings.Contains(both, "runaway") && strings.Contains(both, "hook") {
		return &finding{action: "edit runaway's hook entry in " + path}
	}
	flat := strings.Join(strings.Fields(new), "")
	flatOld := strings.Join(strings.Fields(old), "")
	switch kind {
	case claudeSettings, codexHooks, geminiSettings:
		if kind == geminiSettings && (strings.Contains(flat, `"enabled":false`) || strings.Contains(flat, `"enableHooks":false`) ||
			strings.Contains(flat, `"disabled":[`) && strings.Contains(strings.ToLower(flat), `runaway`)) {
			return &finding{action: "switch Gemini CLI's hooks off in " + path, why: "which switches runaway's hook off"}
		}
		if strings.Contains(flat, `"disableAllHooks":true`) {
			return &finding{action: "set disableAllHooks in " + path, why: "which switches every hook off, runaway's too"}
		}
		if strings.Contains(flatOld, `"hooks":`) && !strings.Contains(flat, `"hooks":`) {
			return &finding{action: "remove the hooks of " + path}
		}
		if strings.Contains(new, `"RUNAWAY_`) || strings.Contains(new, `"XDG_STATE_HOME"`) || strings.Contains(new, `"XDG_CONFIG_HOME"`) {
			return &finding{action: "set runaway's variables in the env of " + path, why: "which changes runaway's limits or where it keeps its files"}
		}
	case codexConfig:
		if strings.Contains(flat, "hooks=false") || strings.Contains(flatOld, "hooks.state") {
			return &finding{action: "switch Codex's hooks off or change their trust in " + path}
		}
	case openCodeConfig:
		if strings.Contains(new, `"plugin"`) || strings.Contains(flatOld, `"plugin":`) {
			return &finding{action: "change the plugins of " + path, why: "which run inside OpenCode beside runaway's plugin and can switch it off"}
		}
	}
	return nil
}

// writeFile judges writing a file: content makes the new text from the old
// one (ok false: it cannot tell), and fallback judges the change when it
// cannot.
func (t *checker) writeFile(p string, content func(old string, exists bool) (string, bool), fallback func(fileKind, string) *finding) *finding {
	kind := t.classify(p)
	switch {
	case kind == notProtected:
		if laterKind(p) == "" {
			return nil
		}
		old, err := readSmall(p)
		if next, ok := content(old, err == nil); ok {
			return t.laterChange(p, old, next)
		}
		return nil
	case kind.owned():
		return &finding{action: kind.action(opWrite), path: p}
	}
	old, err := readSmall(p)
	next, ok := content(old, err == nil)
	if !ok {
		if fallback != nil {
			return fallback(kind, p)
		}
		return nil
	}
	return t.settingsChange(kind, p, old, err == nil, next, true)
}

// removeFile judges deleting (or moving away) a file.
func (t *checker) removeFile(p string) *finding {
	kind := t.classify(p)
	switch {
	case kind == notProtected:
		return nil
	case kind.owned():
		return &finding{action: kind.action(opDeep), path: p}
	}
	old, err := readSmall(p)
	if err != nil {
		return nil
	}
	return t.settingsChange(kind, p, old, true, "", false)
}
