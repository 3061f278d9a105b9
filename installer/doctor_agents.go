package installer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// codexTrustStep is how the person trusts runaway's entries: Codex offers
// its review at startup, and /hooks lists them by their names.
const codexTrustStep = `start codex, choose "Review hooks" where it says "Hooks need review" (or type /hooks), and trust the entries named "runaway: …"`

// checkCodexConfig reads $CODEX_HOME/config.toml: hooks switched off, and
// whether the person trusted runaway's entry. Read-only: runaway never
// writes the trust itself.
func (d *doctor) checkCodexConfig(hooksPath string, entries []trustCheck) {
	path := filepath.Join(configs.CodexDir(), "config.toml")
	name := ownfiles.Tilde(path)
	cfg := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		d.add(StatusFail, "codex-config", "%v", err)
		return
	default:
		if err := toml.Unmarshal(b, &cfg); err != nil {
			d.add(StatusFail, "codex-config", "%s does not parse (%v): Codex will not start; fix it", name, err)
			return
		}
	}
	features, _ := cfg["features"].(map[string]any)
	var off []string
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := features[k].(bool); ok && !v {
			off = append(off, k+" = false")
		}
	}
	if len(off) > 0 {
		d.add(StatusFail, "codex-hooks-off", "[features] %s in %s: Codex runs no hooks, runaway included; remove it", strings.Join(off, ", "), name)
	} else {
		d.add(StatusOK, "codex-hooks-off", "hooks are on (no [features] hooks = false)")
	}
	if len(entries) == 0 {
		return
	}
	abs, err := filepath.Abs(hooksPath)
	if err != nil {
		d.add(StatusFail, "codex-trust", "%v", err)
		return
	}
	hooks, _ := cfg["hooks"].(map[string]any)
	states, _ := hooks["state"].(map[string]any)
	for _, t := range entries {
		// Each entry has its own key and hash: Codex asks for each in /hooks.
		key, want := CodexTrust(abs, t.entry)
		state, found := states[key].(map[string]any)
		have, _ := state["trusted_hash"].(string)
		which := "runaway's " + t.entry.Event + " entry"
		switch {
		case !found || have == "":
			d.add(StatusWarn, t.check, "%s is not trusted yet, and Codex skips it silently until it is: %s", which, codexTrustStep)
		case state["enabled"] == false:
			d.add(StatusFail, t.check, "%s is switched off in Codex's /hooks: start codex, type /hooks, and switch it on", which)
		case have != want:
			d.add(StatusWarn, t.check, "%s changed since it was trusted (trusted %s, now %s), and Codex skips it until it is trusted again: %s", which, shortHash(have), shortHash(want), codexTrustStep)
		default:
			d.add(StatusOK, t.check, "%s is trusted (%s)", which, key)
		}
	}
}

// trustCheck is one of runaway's Codex entries whose trust doctor checks,
// and the check's name.
type trustCheck struct {
	check string
	entry configs.Entry
}

func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

// codexHandlerIdentity is a command handler as Codex normalizes it before
// hashing: timeout always present, commandWindows dropped. Field order is
// the sorted key order Codex hashes.
type codexHandlerIdentity struct {
	Async         bool   `json:"async"`
	Command       string `json:"command"`
	StatusMessage string `json:"statusMessage,omitempty"`
	Timeout       int64  `json:"timeout"`
	Type          string `json:"type"`
}

type codexHookIdentity struct {
	EventName string                 `json:"event_name"`
	Hooks     []codexHandlerIdentity `json:"hooks"`
	Matcher   *string                `json:"matcher,omitempty"`
}

// codexDefaultTimeout is what Codex fills in for a handler without one.
const codexDefaultTimeout = 600

// CodexTrust is the key under [hooks.state] in Codex's config.toml and the
// trusted_hash Codex stores there for the entry e of the hooks.json at
// absPath (reference/codex.md §1 "Trust"; codex-observed.md §3).
func CodexTrust(absPath string, e configs.Entry) (key, hash string) {
	label := snakeCase(e.Event)
	key = fmt.Sprintf("%s:%s:%d:%d", absPath, label, e.Group, e.Handler)
	timeout := int64(codexDefaultTimeout)
	if e.HasTimeout {
		timeout = int64(e.Timeout)
	}
	id := codexHookIdentity{
		EventName: label,
		Hooks:     []codexHandlerIdentity{{Command: e.Command, StatusMessage: e.StatusMessage, Timeout: timeout, Type: "command"}},
	}
	if e.HasMatcher {
		m := e.Matcher
		id.Matcher = &m
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// serde_json writes <, > and & as they are.
	enc.SetEscapeHTML(false)
	_ = enc.Encode(id)
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return key, "sha256:" + hex.EncodeToString(sum[:])
}

// snakeCase turns an event name into Codex's key label: PreToolUse →
// pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// readJSONC reads a JSON-with-comments file into a map; a missing file is
// (nil, nil).
func readJSONC(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := configs.ParseDoc(ownfiles.Tilde(path), b, false)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := doc.Value(&m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", ownfiles.Tilde(path), err)
	}
	return m, nil
}

// checkGemini checks Gemini CLI's own loop detection: it stays on beside
// runaway's loop wire (it catches the same call five times in a row before
// the hook even runs).
func (d *doctor) checkGemini(h Harness) {
	check := "gemini-loop-detection"
	path := configs.GeminiSettings().Path
	m, err := readJSONC(path)
	if err != nil {
		d.add(StatusWarn, check, "%v", err)
		return
	}
	if !d.agents[h.ID].Found && m == nil {
		return // checkWired said "not installed"
	}
	model, _ := m["model"].(map[string]any)
	for _, v := range []struct {
		key string
		val any
	}{{"model.disableLoopDetection", model["disableLoopDetection"]}, {"disableLoopDetection", m["disableLoopDetection"]}} {
		if v.val == true {
			d.add(StatusWarn, check, "%s is true in %s: Gemini CLI's own loop detection is off; set it to false, it works beside runaway's", v.key, ownfiles.Tilde(path))
			return
		}
	}
	d.add(StatusOK, check, "Gemini CLI's own loop detection is on")
}

// checkGeminiHooks checks Gemini CLI's switches for hooks in the settings
// file that holds runaway's entry: hooksConfig.enabled (0.26 and later),
// tools.enableHooks (earlier versions) and hooksConfig.disabled.
func (d *doctor) checkGeminiHooks(doc *configs.Doc) {
	var s struct {
		HooksConfig struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
		Tools struct {
			EnableHooks *bool `json:"enableHooks"`
		} `json:"tools"`
	}
	name := ownfiles.Tilde(configs.GeminiSettings().Path)
	if doc == nil || doc.Value(&s) != nil {
		return
	}
	switch {
	case s.HooksConfig.Enabled != nil && !*s.HooksConfig.Enabled:
		d.add(StatusFail, "gemini-hooks-off", "hooksConfig.enabled is false in %s: Gemini CLI runs no hooks, runaway included; remove it", name)
	case s.Tools.EnableHooks != nil && !*s.Tools.EnableHooks:
		d.add(StatusFail, "gemini-hooks-off", "tools.enableHooks is false in %s: Gemini CLI runs no hooks, runaway included; remove it", name)
	case slices.ContainsFunc(s.HooksConfig.Disabled, func(n string) bool { return strings.EqualFold(strings.TrimSpace(n), "runaway") }):
		d.add(StatusFail, "gemini-hooks-off", "hooksConfig.disabled names runaway in %s: Gemini CLI skips its hook; take it out of the list", name)
	default:
		d.add(StatusOK, "gemini-hooks-off", "Gemini CLI's hooks are on")
	}
}

// OpenCodeConfigs are OpenCode's global config files and those of dir.
func OpenCodeConfigs(dir string) []string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(ownfiles.Home(), ".config")
	}
	var out []string
	for _, d := range []string{filepath.Join(base, "opencode"), dir} {
		if d == "" {
			continue
		}
		out = append(out, filepath.Join(d, "opencode.json"), filepath.Join(d, "opencode.jsonc"))
	}
	if p := os.Getenv("OPENCODE_CONFIG"); p != "" {
		out = append(out, p)
	}
	return out
}

// openCodeDoomLoop lists where OpenCode's doom_loop permission is set to
// allow (globally or for an agent), and whether any config was found.
func (d *doctor) openCodeDoomLoop() (allowed []string, seen bool, err error) {
	for _, path := range OpenCodeConfigs(d.opts.Dir) {
		m, err := readJSONC(path)
		if err != nil {
			return nil, seen, err
		}
		if m == nil {
			continue
		}
		seen = true
		if action, key := doomLoop(m); action == "allow" {
			allowed = append(allowed, ownfiles.Tilde(path)+": "+key)
		}
		agents, _ := m["agent"].(map[string]any)
		names := make([]string, 0, len(agents))
		for n := range agents {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if a, ok := agents[n].(map[string]any); ok {
				if action, key := doomLoop(a); action == "allow" {
					allowed = append(allowed, ownfiles.Tilde(path)+": agent."+n+"."+key)
				}
			}
		}
	}
	return allowed, seen, nil
}

// doomLoop is the action m's permission gives doom_loop, and the key that
// gives it: OpenCode reads "permission": "allow" as {"*": "allow"}, and a
// "*" rule covers doom_loop too.
func doomLoop(m map[string]any) (action, key string) {
	switch p := m["permission"].(type) {
	case string:
		return p, "permission"
	case map[string]any:
		if s, ok := p["doom_loop"].(string); ok {
			return s, "permission.doom_loop"
		}
		if s, ok := p["*"].(string); ok {
			return s, "permission.*"
		}
	}
	return "", ""
}

// checkCodexStop says what happens at the cap in Codex, whose hooks cannot
// end a running turn: runaway interrupts the codex process that ran the
// hook (guard's stop_codex.go), unless end_agent is off or it cannot find
// that process, and then every call is denied while Codex goes on.
func (d *doctor) checkCodexStop() {
	p, _ := configs.LoadPolicy(d.paths.Config, os.Getenv)
	switch {
	case !p.EndAgent:
		d.add(StatusOK, "codex-stop", "end_agent is off: at the cap every call is denied, and Codex goes on asking the model after each deny")
	case runtime.GOOS != "linux":
		d.add(StatusWarn, "codex-stop", "runaway finds the codex process that ran its hook through /proc, which %s lacks: at the cap every call is denied, and Codex goes on asking the model after each deny", runtime.GOOS)
	default:
		d.add(StatusOK, "codex-stop", "at the cap runaway interrupts the codex process that ran the hook (SIGINT to that process only, never one found by name): exec ends its turn, the TUI exits and runaway repairs its terminal; under codex app-server (IDEs) every call is denied instead")
	}
}
