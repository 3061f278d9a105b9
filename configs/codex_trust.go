package configs

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex keeps the person's trust of each hook in its user config.toml, one
// table per hook (reference/codex.md §1 "Trust"): when the person trusts
// runaway's entries in /hooks, Codex 0.171 appends, for each,
//
//	<blank line>
//	[hooks.state."<abs path of hooks.json>:<event>:<group>:<handler>"]
//	trusted_hash = "sha256:…"
//
// (codex-observed.md). remove takes those tables out again, each with the
// blank line before it, and leaves every other byte.

// CodexConfig is the config.toml beside a Codex hooks.json.
func CodexConfig(hooksPath string) string {
	return filepath.Join(filepath.Dir(hooksPath), "config.toml")
}

// CodexTrustRecords are the [hooks.state] tables of a Codex config.toml:
// each key with its trusted_hash ("" when it has none).
func CodexTrustRecords(data []byte) (map[string]string, error) {
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(cfg.Hooks.State))
	for k, v := range cfg.Hooks.State {
		out[k] = v.TrustedHash
	}
	return out, nil
}

// CutCodexTrust takes the [hooks.state."<key>"] tables of the given keys
// out of a Codex config.toml: each table's header and its trusted_hash and
// enabled lines, with one blank line before it. It returns the keys it
// took out. A table holding anything else, or a key written another way
// (a dotted key, an inline table), stays as it is. A file that does not
// parse is an error.
func CutCodexTrust(data []byte, keys []string) ([]byte, []string, error) {
	var before map[string]any
	if _, err := toml.Decode(string(data), &before); err != nil {
		return nil, nil, err
	}
	lines := strings.SplitAfter(string(data), "\n")
	drop := make([]bool, len(lines))
	var cut []string
	for i, line := range lines {
		key, ok := trustHeader(line)
		if !ok || !slices.Contains(keys, key) || slices.Contains(cut, key) {
			continue
		}
		end, ok := trustBody(lines, i+1)
		if !ok {
			continue
		}
		start := i
		if i > 0 && blankLine(lines[i-1]) && !drop[i-1] {
			start = i - 1
		}
		for j := start; j < end; j++ {
			drop[j] = true
		}
		cut = append(cut, key)
	}
	if len(cut) == 0 {
		return data, nil, nil
	}
	var b strings.Builder
	for i, line := range lines {
		if !drop[i] {
			b.WriteString(line)
		}
	}
	out := []byte(b.String())
	// What is left must be the file without those tables, and nothing else.
	var after map[string]any
	if _, err := toml.Decode(string(out), &after); err != nil {
		return nil, nil, fmt.Errorf("taking out the trust records left a file that does not parse: %w", err)
	}
	if !reflect.DeepEqual(withoutTrust(before, cut), withoutTrust(after, nil)) {
		return nil, nil, fmt.Errorf("taking out the trust records would change more than them")
	}
	return out, cut, nil
}

// trustHeader reads a [hooks.state."<key>"] header line.
func trustHeader(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[hooks") || strings.HasPrefix(t, "[[") {
		return "", false
	}
	var m map[string]map[string]map[string]map[string]any
	if _, err := toml.Decode(t, &m); err != nil || len(m) != 1 || len(m["hooks"]) != 1 || len(m["hooks"]["state"]) != 1 {
		return "", false
	}
	for k, v := range m["hooks"]["state"] {
		return k, len(v) == 0
	}
	return "", false
}

// trustBody is where a trust table's own lines end: its trusted_hash and
// enabled lines, up to a blank line, a comment or the next header. ok is
// false when the table holds anything else before the next header.
func trustBody(lines []string, from int) (end int, ok bool) {
	end = from
	for end < len(lines) && trustLine(lines[end]) {
		end++
	}
	for _, l := range lines[end:] {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			break
		}
		if t != "" && !strings.HasPrefix(t, "#") {
			return 0, false
		}
	}
	return end, end > from
}

func trustLine(line string) bool {
	var m map[string]any
	if _, err := toml.Decode(strings.TrimSpace(line), &m); err != nil || len(m) != 1 {
		return false
	}
	_, hash := m["trusted_hash"].(string)
	_, enabled := m["enabled"].(bool)
	return hash || enabled
}

func blankLine(line string) bool { return strings.TrimSpace(line) == "" }

// withoutTrust is a decoded config.toml without the given trust tables and
// without the hooks and hooks.state tables they leave empty.
func withoutTrust(cfg map[string]any, keys []string) map[string]any {
	out := make(map[string]any, len(cfg))
	for k, v := range cfg {
		out[k] = v
	}
	hooks, _ := out["hooks"].(map[string]any)
	if hooks == nil {
		return out
	}
	h := make(map[string]any, len(hooks))
	for k, v := range hooks {
		h[k] = v
	}
	if state, ok := h["state"].(map[string]any); ok {
		s := make(map[string]any, len(state))
		for k, v := range state {
			if !slices.Contains(keys, k) {
				s[k] = v
			}
		}
		if len(s) == 0 {
			delete(h, "state")
		} else {
			h["state"] = s
		}
	}
	if len(h) == 0 {
		delete(out, "hooks")
	} else {
		out["hooks"] = h
	}
	return out
}
