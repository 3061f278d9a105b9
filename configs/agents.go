package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// HookTimeout is the timeout, in seconds, written into runaway's entries:
// the hook answers in milliseconds, and a stuck one must not hold the
// agent for Claude Code's or Codex's default of ten minutes.
const HookTimeout = 10

// SettingsFile is a harness's settings file that holds runaway's hook
// entry, and what that entry looks like there.
type SettingsFile struct {
	Harness agent.ID // also the argument after `hook`
	Path    string
	// Strict: the harness rejects comments and trailing commas.
	Strict bool
	// OnlyHooksKey: the file should hold nothing but "hooks" (some Codex
	// versions reject a hooks.json with any other top-level key).
	OnlyHooksKey bool
	// Platform decides the entry's form (see HandlerFor); zero is this
	// machine, with an exec-form-capable Claude Code not assumed.
	Platform Platform
}

// Env is the process's environment as the agents read it, with HOME
// falling back on the system's home folder.
func Env(name string) string {
	if name == "HOME" {
		return ownfiles.Home()
	}
	return os.Getenv(name)
}

// ClaudeDir is Claude Code's config folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeDir() string { return agent.Of(agent.Claude).ConfigDir(Env) }

// CodexDir is Codex's home: $CODEX_HOME, else ~/.codex.
func CodexDir() string { return agent.Of(agent.Codex).ConfigDir(Env) }

// ClaudeProjectSettings is Claude Code's local settings file for the
// project holding dir: .claude/settings.local.json at the git repository
// root (the folder holding .git, walking up from dir), where Claude Code
// keeps it, else in dir itself.
func ClaudeProjectSettings(dir string) (SettingsFile, error) {
	root, err := ProjectRoot(dir)
	if err != nil {
		return SettingsFile{}, err
	}
	return ClaudeProjectFile(filepath.Join(root, ".claude", "settings.local.json")), nil
}

// ProjectRoot is the git repository root holding dir, else dir; either
// absolute. dir must be an existing folder.
func ProjectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if info, err := os.Stat(abs); err != nil {
		return "", err
	} else if !info.IsDir() {
		return "", fmt.Errorf("%s is not a folder", abs)
	}
	for d := abs; ; {
		// .git is a folder in a clone and a file in a worktree or submodule.
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}

// SettingsFor returns the user settings file runaway edits for an agent,
// if it has one.
func SettingsFor(id agent.ID) (SettingsFile, bool) {
	s, ok := settingsOf(id)
	if !ok {
		return SettingsFile{}, false
	}
	return s.file(filepath.Join(agent.Of(id).ConfigDir(Env), s.Name)), true
}

// Spec is runaway's handler for this file, running the binary at bin.
func (f SettingsFile) Spec(bin string) HookSpec { return HandlerFor(f.Harness, bin, f.Platform) }

// TimeoutSeconds turns a handler's timeout as written in this file into
// seconds.
func (f SettingsFile) TimeoutSeconds(t float64) float64 {
	if s, ok := settingsOf(f.Harness); ok && s.TimeoutUnit != 0 {
		return t * s.TimeoutUnit.Seconds()
	}
	return t
}

// Specs are runaway's handlers for this file, running the binary at bin:
// the one before each tool call, then the agent's others (the command is
// the same: the hook tells the event from its input).
func (f SettingsFile) Specs(bin string) []HookSpec {
	pre := f.Spec(bin)
	out := []HookSpec{pre}
	if s, ok := settingsOf(f.Harness); ok {
		for _, more := range s.More {
			if more.On != nil && !more.On(f.Platform) {
				continue
			}
			spec := pre
			spec.Event = more.Event
			if more.StatusMessage != "" {
				spec.StatusMessage = more.StatusMessage
			}
			out = append(out, spec)
		}
	}
	return out
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

// Warnings says what about the file's content may trouble the agent.
func (f SettingsFile) Warnings(name string, d *Doc) []string {
	var out []string
	if s, ok := settingsOf(f.Harness); ok && s.warnings != nil {
		out = s.warnings(name, d)
	}
	if !f.OnlyHooksKey {
		return out
	}
	extra := slices.DeleteFunc(d.TopLevelKeys(), func(k string) bool { return k == "hooks" })
	if len(extra) > 0 {
		out = append(out, fmt.Sprintf("%s has top-level keys besides \"hooks\" (%s); runaway keeps them, but some %[3]s versions reject such a file: if %[3]s warns that it skipped it, remove them",
			name, strings.Join(extra, ", "), f.Harness.Name()))
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
