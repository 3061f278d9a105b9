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

// GeminiHome is Gemini CLI's home, which holds its .gemini folder:
// $GEMINI_CLI_HOME (which replaces the home for all of Gemini CLI's files),
// else the home.
func GeminiHome() string { return filepath.Dir(agent.Of(agent.Gemini).ConfigDir(Env)) }

// ClaudeSettings is Claude Code's user settings file.
func ClaudeSettings() SettingsFile {
	return SettingsFile{Harness: "claude", Path: filepath.Join(ClaudeDir(), "settings.json"), Strict: true}
}

// CodexHooks is Codex's user hooks file.
func CodexHooks() SettingsFile {
	return SettingsFile{Harness: "codex", Path: filepath.Join(CodexDir(), "hooks.json"), Strict: true, OnlyHooksKey: true}
}

// GeminiSettings is Gemini CLI's user settings file. Gemini CLI reads
// comments in it (not trailing commas), so it is not strict: comments stay.
func GeminiSettings() SettingsFile {
	return SettingsFile{Harness: "gemini", Path: filepath.Join(GeminiHome(), ".gemini", "settings.json")}
}

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

// ClaudeProjectFile is a Claude Code project settings file at path.
func ClaudeProjectFile(path string) SettingsFile {
	return SettingsFile{Harness: "claude", Path: path, Strict: true}
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

// SettingsFor returns the settings file runaway edits for a harness, if any.
func SettingsFor(harness agent.ID) (SettingsFile, bool) {
	switch harness {
	case "claude":
		return ClaudeSettings(), true
	case "codex":
		return CodexHooks(), true
	case "gemini":
		return GeminiSettings(), true
	}
	return SettingsFile{}, false
}

// Spec is runaway's handler for this file, running the binary at bin.
//
// Gemini CLI's differs: its event is BeforeTool, its timeout is in
// milliseconds, the handler has a name (its messages and its
// hooksConfig.disabled list use it), and the command is guarded against a
// missing program instead of ending in `|| true`: Gemini CLI blocks every
// call when a hook exits 127, and `|| true` would keep its timeout from
// reaching runaway (see shared/reference/gemini-cli-observed.md §4).
func (f SettingsFile) Spec(bin string) HookSpec {
	spec := HandlerFor(f.Harness, bin, f.Platform)
	if f.Harness == "gemini" {
		spec.Event, spec.Name, spec.Timeout = GeminiEvent, "runaway", HookTimeout*1000
	}
	return spec
}

// GeminiEvent and GeminiModelEvent are Gemini CLI's events before a tool
// call and before a model request.
const (
	GeminiEvent      = "BeforeTool"
	GeminiModelEvent = "BeforeModel"
)

// TimeoutSeconds turns a handler's timeout as written in this file into
// seconds (Gemini CLI writes milliseconds).
func (f SettingsFile) TimeoutSeconds(t float64) float64 {
	if f.Harness == "gemini" {
		return t / 1000
	}
	return t
}

// Specs are runaway's handlers for this file, running the binary at bin:
// PreToolUse guards each tool call; in Claude Code's and Codex's files,
// UserPromptSubmit blocks a prompt of a session already over its cap before
// the agent sends it to the model (Claude Code, and Codex from 0.169, run it
// and honour decision "block"). The command is the same: the hook tells the
// event from its input.
func (f SettingsFile) Specs(bin string) []HookSpec {
	pre := f.Spec(bin)
	if f.Harness == "gemini" {
		// BeforeModel: a deny there aborts the turn before the request is
		// sent (a resumed session over its cap spends nothing more).
		model := pre
		model.Event = GeminiModelEvent
		return []HookSpec{pre, model}
	}
	if f.Harness != "claude" && f.Harness != "codex" {
		return []HookSpec{pre}
	}
	prompt := pre
	prompt.Event = "UserPromptSubmit"
	if f.Harness == "codex" {
		prompt.StatusMessage = CodexPromptName
	}
	return []HookSpec{pre, prompt}
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
