package tamper

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/configs"
)

// How the tamper wire judges a change to a settings file runaway manages:
// it compares the file on disk with what the call would leave there. Other
// parts of those files (permissions, env, model…) stay the agent's to edit.

// settingsChange judges writing next over old (exists: whether each is a
// file; a missing or empty file is `{}`).
func (t *checker) settingsChange(kind *fileKind, path, old string, oldExists bool, next string, nextExists bool) *finding {
	if f := t.settingsSwitches(kind, path, old, oldExists, next, nextExists); f != nil {
		return f
	}
	if nextExists {
		return t.laterCommands(kind, path, old, next)
	}
	return nil
}

// settingsSwitches judges what switches runaway's hook off or moves its
// files, by the kind's own rules (see agents).
func (t *checker) settingsSwitches(kind *fileKind, path, old string, oldExists bool, next string, nextExists bool) *finding {
	if !oldExists {
		old = ""
	}
	if !nextExists {
		next = ""
	}
	if kind != nil && kind.env {
		return t.startupChange(path, old, next)
	}
	if kind == nil || kind.change == nil {
		return nil
	}
	return kind.change(t, path, fileWrite{old: old, next: next, oldExists: oldExists, nextExists: nextExists})
}

// laterCommands: commands a settings file runs outside tool calls (other
// hooks, statusLine, apiKeyHelper, Codex notify…). A new one is checked
// like a Bash call; one that passes is still the person's to allow.
func (t *checker) laterCommands(kind *fileKind, path, old, next string) *finding {
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
		if !kind.canAsk {
			continue // its agent cannot ask the person
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
func settingsCommands(kind *fileKind, text string) []string {
	if kind == nil || kind.parse == nil {
		return nil
	}
	v, ok := kind.parse(text)
	if !ok {
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

// envChange: the new file's env sets or changes a variable guard names.
func envChange(path string, oldV, newV map[string]any, guard func(string) bool) *finding {
	oldEnv, _ := oldV["env"].(map[string]any)
	newEnv, _ := newV["env"].(map[string]any)
	for k, v := range newEnv {
		if guard(k) && !reflect.DeepEqual(oldEnv[k], v) {
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

// editTouchesHooks judges an edit from its strings alone, when it cannot be
// tried on the file: it touches runaway's entry (names runaway and hook),
// or what the kind's own rules name (disableAllHooks, hooks switched off…).
func editTouchesHooks(kind *fileKind, path, old, new string) *finding {
	both := strings.ToLower(old + "\n" + new)
	if strings.Contains(both, "runaway") && strings.Contains(both, "hook") {
		return &finding{action: "edit runaway's hook entry in " + path}
	}
	if kind != nil && kind.edit != nil {
		return kind.edit(path, old, new)
	}
	return nil
}

// writeFile judges writing a file: content makes the new text from the old
// one (ok false: it cannot tell), and fallback judges the change when it
// cannot.
func (t *checker) writeFile(p string, content func(old string, exists bool) (string, bool), fallback func(*fileKind, string) *finding) *finding {
	kind := t.classify(p)
	switch {
	case kind == notProtected:
		if t.laterKind(p) == "" {
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
