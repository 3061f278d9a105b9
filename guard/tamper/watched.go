package tamper

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
)

// The tripwire's side of the wire: the files whose change outside runaway
// switches it off, and what of each must stay as runaway left it. The wire
// above denies the ways it can read; the tripwire notices the rest (a
// Makefile target, a script the wire could not read) at the next call.

// Watched is one file the tripwire checks.
type Watched struct {
	Path string // as the hook's environment names it
	What string // for people: "runaway's own config"
	kind *fileKind
}

// WatchedFiles are runaway's config and program and the agents' settings
// files that hold runaway's entries. Codex's config.toml and OpenCode's
// config are left to the wire: people edit them often, and what in them
// keeps runaway on is judged there.
func WatchedFiles(g Guarded) []Watched {
	t := newChecker(g, "", time.Time{})
	var out []Watched
	add := func(p string, k *fileKind) {
		if filepath.IsAbs(p) {
			out = append(out, Watched{Path: filepath.Clean(p), What: k.noun(), kind: k})
		}
	}
	add(filepath.Join(g.ConfigDir, "config.json"), ownConfig)
	// The imported prices: zero prices would switch the spend cap off.
	add(filepath.Join(g.ConfigDir, ownfiles.PricesFileName), ownConfig)
	add(g.BinPath, ownBinary)
	for _, a := range agents {
		for _, f := range a.files {
			if d := t.envDir(f.dirEnv); d != "" && f.kind.watched {
				add(filepath.Join(d, f.name), f.kind)
			}
		}
	}
	return out
}

// Owned: runaway's own file, whose every byte is runaway's.
func (w Watched) Owned() bool { return w.kind.owned() }

// Digest is what of the file's content must stay as runaway left it: all
// of runaway's own files; of a settings file only what keeps runaway's
// hook on (its entries, disableAllHooks, runaway's variables in env), so
// that people's own edits (a permission, a model) do not trip it.
func (w Watched) Digest(data []byte) string {
	sum := func(parts ...string) string {
		h := sha256.New()
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s;", len(p), p)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	if w.kind.hooks {
		v, ok := parseSettingsJSON(string(data), w.kind.strict)
		if !ok {
			return "unreadable"
		}
		parts := runawayEntries(v, false)
		sort.Strings(parts)
		parts = append(parts, fmt.Sprint("disableAllHooks=", v["disableAllHooks"]))
		if env, ok := v["env"].(map[string]any); ok {
			var keys []string
			for k, x := range env {
				if guardVariable(k) {
					keys = append(keys, k+"="+fmt.Sprint(x))
				}
			}
			sort.Strings(keys)
			parts = append(parts, keys...)
		}
		return sum(parts...)
	}
	return sum(string(data))
}

// guardVariable: a variable that changes runaway's limits or moves its
// files when set for the agent.
func guardVariable(k string) bool {
	return strings.HasPrefix(k, "RUNAWAY_") || k == "XDG_CONFIG_HOME" || k == "XDG_STATE_HOME" || k == "XDG_BIN_HOME"
}
