package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HookTimeout is the timeout, in seconds, written into runaway's entries:
// the hook answers in milliseconds, and a stuck one must not hold the
// agent for Claude Code's or Codex's default of ten minutes.
const HookTimeout = 10

// SettingsFile is a harness's settings file that holds runaway's hook
// entry, and what that entry looks like there.
type SettingsFile struct {
	Harness string // "claude" or "codex": also the argument after `hook`
	Path    string
	// Strict: the harness rejects comments and trailing commas.
	Strict bool
	// OnlyHooksKey: the file should hold nothing but "hooks" (some Codex
	// versions reject a hooks.json with any other top-level key).
	OnlyHooksKey bool
}

// ClaudeDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(homeDir(), ".claude")
}

// CodexDir is Codex's home: $CODEX_HOME, else ~/.codex.
func CodexDir() string {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	return filepath.Join(homeDir(), ".codex")
}

func homeDir() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// ClaudeSettings is Claude Code's user settings file.
func ClaudeSettings() SettingsFile {
	return SettingsFile{Harness: "claude", Path: filepath.Join(ClaudeDir(), "settings.json"), Strict: true}
}

// CodexHooks is Codex's user hooks file.
func CodexHooks() SettingsFile {
	return SettingsFile{Harness: "codex", Path: filepath.Join(CodexDir(), "hooks.json"), Strict: true, OnlyHooksKey: true}
}

// SettingsFor returns the settings file runaway edits for a harness, if any.
func SettingsFor(harness string) (SettingsFile, bool) {
	switch harness {
	case "claude":
		return ClaudeSettings(), true
	case "codex":
		return CodexHooks(), true
	}
	return SettingsFile{}, false
}

// Spec is runaway's handler for this file, running the binary at bin.
func (f SettingsFile) Spec(bin string) HookSpec {
	return HookSpec{Event: "PreToolUse", Command: HookCommand(bin, f.Harness), Timeout: HookTimeout}
}

// Read reads and parses the file (missing counts as `{}`); name is how
// errors call it.
func (f SettingsFile) Read(name string) (*Doc, Snapshot, error) {
	s, err := ReadSnapshot(f.Path)
	if err != nil {
		return nil, s, err
	}
	d, err := ParseDoc(name, s.Data, f.Strict)
	return d, s, err
}

// Warnings says what about the file's content may trouble the harness.
func (f SettingsFile) Warnings(name string, d *Doc) []string {
	var out []string
	var v struct {
		DisableAllHooks bool `json:"disableAllHooks"`
	}
	if f.Harness == "claude" && d.Value(&v) == nil && v.DisableAllHooks {
		out = append(out, name+" sets disableAllHooks: Claude Code runs none of its hooks, runaway's included")
	}
	if !f.OnlyHooksKey {
		return out
	}
	extra := slices.DeleteFunc(d.TopLevelKeys(), func(k string) bool { return k == "hooks" })
	if len(extra) > 0 {
		out = append(out, fmt.Sprintf("%s has top-level keys besides \"hooks\" (%s); runaway keeps them, but some Codex versions reject such a file: if Codex warns that it skipped it, remove them",
			name, strings.Join(extra, ", ")))
	}
	return out
}

// ReadSettings reads a settings file and lists runaway's entries in it;
// doctor uses it. A missing file has no entries.
func ReadSettings(f SettingsFile, name string) ([]Entry, *Doc, error) {
	d, _, err := f.Read(name)
	if err != nil {
		return nil, nil, err
	}
	es, err := d.HookEntries()
	return es, d, err
}
