package tamper

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// Codex (shared/reference/codex.md): runaway's entry is in
// $CODEX_HOME/hooks.json (else ~/.codex), switched on and trusted in
// config.toml beside it; it loads $CODEX_HOME/.env at start; `-c
// features.hooks=false`, `--disable hooks` and `codex features disable
// hooks` switch its hooks off.

var (
	// codexHooks is $CODEX_HOME/hooks.json. Codex rejects comments and
	// trailing commas, and a file with unknown keys or wrong types.
	codexHooks = &fileKind{
		what:  "Codex's hooks file",
		hooks: true, strict: true, positions: true, watched: true,
		change: codexHooksChange,
		edit:   hooksEdit,
		parse:  looseJSON,
	}
	// codexConfig is $CODEX_HOME/config.toml.
	codexConfig = &fileKind{
		what:      "Codex's config, where its hooks are switched on and trusted",
		heldByGit: true,
		change: func(t *checker, path string, w fileWrite) *finding {
			return codexConfigChange(path, w.old, w.next, t.codexHooksPath())
		},
		edit:  codexConfigEdit,
		parse: codexTOML,
	}
)

var codexRules = agentRules{
	id: agent.Codex,
	files: []agentFile{
		{kind: codexHooks, dirEnv: codexDirVar, name: "hooks.json"},
		{kind: codexConfig, dirEnv: codexDirVar, name: "config.toml"},
		{kind: startupFile, dirEnv: codexDirVar, name: ".env"}, // loaded at start
	},
	// A project's .codex/ layer, once trusted: its hooks run, and its
	// [features] can switch them off (shared/reference/codex.md).
	anywhere: []agentFile{
		{kind: codexHooks, name: ".codex/hooks.json"},
		{kind: codexConfig, name: ".codex/config.toml"},
	},
	homeVars: []string{codexDirVar},
	start:    (*shell).codexCmd,
}

const codexDirVar = "CODEX_HOME"

// codexHooksPath is $CODEX_HOME/hooks.json ("" when HOME is unknown).
func (t *checker) codexHooksPath() string {
	if d := t.envDir(codexDirVar); d != "" {
		return filepath.Join(d, "hooks.json")
	}
	return ""
}

// codexHooksChange: runaway's entries dropped, or the file left one Codex
// skips (unknown keys, wrong types).
func codexHooksChange(_ *checker, path string, w fileWrite) *finding {
	oldV, oldOK := parseSettingsJSON(w.old, false)
	newV, newOK := parseSettingsJSON(w.next, true)
	f, held := hooksChange(true, path, w, oldV, oldOK, newV, newOK)
	if f == nil && held && codexAccepts(oldV) && !codexAccepts(newV) {
		return &finding{action: "leave " + path + " unreadable to Codex", why: "which skips a hooks.json with unknown keys or wrong types, runaway's hook with it"}
	}
	return f
}

// codexConfigEdit judges an edit to config.toml from its strings alone.
func codexConfigEdit(path, old, new string) *finding {
	flat := strings.Join(strings.Fields(new), "")
	flatOld := strings.Join(strings.Fields(old), "")
	if strings.Contains(flat, "hooks=false") || strings.Contains(flatOld, "hooks.state") {
		return &finding{action: "switch Codex's hooks off or change their trust in " + path}
	}
	return nil
}

// codexTOML reads config.toml for the commands it runs (notify, MCP
// servers).
func codexTOML(text string) (map[string]any, bool) {
	if configs.TooDeep([]byte(text)) >= 0 {
		return nil, false
	}
	var v map[string]any
	if _, err := toml.Decode(text, &v); err != nil {
		return nil, false
	}
	return v, true
}

// codexCmd: Codex started with its hooks off (`-c features.hooks=false`,
// attached or not, `--disable hooks`, a `-c hooks.state…` override turning
// a hook off), or `codex features disable hooks`, which writes that into
// its config.
func (sh *shell) codexCmd(args []string, _ map[string]string) {
	for _, v := range optionValues(args, "-c", "--config") {
		kv := strings.Join(strings.Fields(v), "")
		key, val, _ := strings.Cut(kv, "=")
		if key == "profile" && sh.t.codexProfileOff(strings.Trim(val, `"'`)) {
			sh.t.deny(&finding{action: "start Codex with profile " + val + ", whose features switch hooks off", why: "which switches runaway's hook off"})
			return
		}
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
	for _, name := range optionValues(args, "-p", "--profile") {
		if sh.t.codexProfileOff(name) {
			sh.t.deny(&finding{action: "start Codex with profile " + name + ", whose features switch hooks off", why: "which switches runaway's hook off"})
			return
		}
	}
	ops := operands(args, "cpmsaCi")
	if len(ops) >= 3 && ops[0] == "features" && ops[1] == "disable" && (ops[2] == "hooks" || ops[2] == "codex_hooks") {
		sh.t.deny(&finding{action: "switch Codex's hooks off (codex features disable " + ops[2] + ")", why: "which switches runaway's hook off"})
	}
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
	// A profile (codex --profile NAME, or profile = NAME at the top)
	// applies its own [profiles.NAME.features].
	profiles := func(m map[string]any) map[string]any { p, _ := m["profiles"].(map[string]any); return p }
	for name, pv := range profiles(newV) {
		np, _ := pv.(map[string]any)
		op, _ := profiles(oldV)[name].(map[string]any)
		for _, key := range []string{"hooks", "codex_hooks"} {
			if features(np)[key] == false && !(oldOK && features(op)[key] == false) {
				return &finding{action: "switch Codex's hooks off in profile " + name + " of " + path + " ([profiles." + name + ".features] " + key + " = false)", why: "which switches runaway's hook off when that profile is used"}
			}
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

// codexProfileOff reports a profile of the user's config.toml whose
// features switch hooks off.
func (t *checker) codexProfileOff(name string) bool {
	d := t.envDir(codexDirVar)
	if d == "" || !known(name) {
		return false
	}
	text, err := readSmall(filepath.Join(d, "config.toml"))
	if err != nil {
		return false
	}
	v, ok := codexTOML(text)
	if !ok {
		return false
	}
	profiles, _ := v["profiles"].(map[string]any)
	p, _ := profiles[name].(map[string]any)
	f, _ := p["features"].(map[string]any)
	return f["hooks"] == false || f["codex_hooks"] == false
}
