package tamper

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// Claude Code (shared/reference/claude-code.md): its settings files hold
// runaway's entry, in $CLAUDE_CONFIG_DIR (else ~/.claude) and in every
// project's .claude/; their env reaches the hooks; `claude --bare`,
// `--safe-mode`, `--setting-sources` and `--settings` can start it without
// them.

// claudeSettings is $CLAUDE_CONFIG_DIR/settings.json, or any
// .claude/settings{,.local}.json.
var claudeSettings = &fileKind{
	what:  "a Claude Code settings file, where its hooks live",
	hooks: true, strict: true, canAsk: true, watched: true,
	change: claudeChange,
	edit:   hooksEdit,
	parse:  looseJSON,
}

var claudeRules = agentRules{
	id:    agent.Claude,
	files: []agentFile{{kind: claudeSettings, dirEnv: claudeDirVar, name: "settings.json"}},
	anywhere: []agentFile{
		{kind: claudeSettings, name: ".claude/settings.json", inProject: true},
		{kind: claudeSettings, name: ".claude/settings.local.json", inProject: true},
	},
	// CLAUDE_CODE_SIMPLE skips every hook.
	homeVars: []string{"CLAUDE_CONFIG_DIR", "CLAUDE_CODE_SIMPLE"},
	start:    (*shell).claudeCmd,
}

const claudeDirVar = "CLAUDE_CONFIG_DIR"

// claudeUserSettings is the user's settings file ("" when HOME is unknown).
func (t *checker) claudeUserSettings() string {
	if d := t.envDir(claudeDirVar); d != "" {
		return filepath.Join(d, "settings.json")
	}
	return ""
}

// claudeChange: disableAllHooks set, runaway's variables set in env, or
// runaway's entries dropped. Claude Code rejects comments and trailing
// commas: a file with them loses its hooks.
func claudeChange(_ *checker, path string, w fileWrite) *finding {
	oldV, oldOK := parseSettingsJSON(w.old, false)
	newV, newOK := parseSettingsJSON(w.next, true)
	if newOK && newV["disableAllHooks"] == true && !(oldOK && oldV["disableAllHooks"] == true) {
		return &finding{action: "set disableAllHooks in " + path, why: "which switches every hook off, runaway's too"}
	}
	if newOK {
		if f := envChange(path, oldV, newV, claudeEnvVar); f != nil {
			return f
		}
	}
	f, _ := hooksChange(false, path, w, oldV, oldOK, newV, newOK)
	return f
}

// claudeEnvVar: a variable guardEnv names, or CLAUDE_CODE_SIMPLE, which
// skips hooks.
func claudeEnvVar(name string) bool { return guardEnv(name) || name == "CLAUDE_CODE_SIMPLE" }

// claudeCmd: Claude Code started with its hooks skipped: --bare,
// --safe-mode, --setting-sources without a file holding runaway's entry,
// --settings with disableAllHooks (inline or a file).
func (sh *shell) claudeCmd(args []string, _ map[string]string) {
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

// sourcesHoldEntry reports whether one of the setting sources (user,
// project, local) holds runaway's entry, or none holds it anywhere.
func (t *checker) sourcesHoldEntry(sources []string, cwd string) bool {
	files := map[string]string{"user": t.claudeUserSettings()}
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
