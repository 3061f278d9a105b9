// Package tamper is the tamper wire: the agent must not switch its own guard off. Only
// Bash (Claude Code, Codex), Write, Edit, MultiEdit, NotebookEdit and
// apply_patch calls are looked at, OpenCode's bash, write, edit, multiedit
// and apply_patch, and Gemini CLI's run_shell_command, write_file and
// replace. Denied:
//
//   - writing, removing, moving or chmod-ing runaway's config folder, state
//     folder (and anything in them), its installed program or the running
//     one, or a folder that holds them (rm -rf ~/.local/state);
//   - Write/Edit/MultiEdit/apply_patch of a Claude Code settings file
//     ($CLAUDE_CONFIG_DIR/settings.json, any .claude/settings{,.local}.json)
//     or Codex's hooks.json that drops or changes runaway's entry (Codex: or
//     moves it, since the trust key names its position), leaves a file
//     holding it unparseable, or sets disableAllHooks; of Codex's
//     config.toml that sets [features] hooks/codex_hooks = false or changes
//     runaway's [hooks.state] record; of a Claude Code settings file whose
//     env sets RUNAWAY_*, HOME, XDG_{CONFIG,STATE,BIN}_HOME or
//     CLAUDE_CODE_SIMPLE. The edit is tried on the file on disk; when it
//     cannot be, its strings are judged;
//   - any shell write to those settings files (the command's effect on
//     their content is unknown): redirections, tee, cp/mv/install/ln/rsync
//     onto them, sed/perl/ruby -i, truncate, chmod, dd of=, curl -o,
//     tar -x -C, go build -o, flock, and the same inside bash -c, eval, $(…),
//     heredocs and pipes into sh, xargs and find -delete/-exec;
//   - python/perl/node/ruby… code that names a protected path and writes;
//   - any write to runaway's OpenCode plugin; a write to an opencode.json or
//     opencode.jsonc (global, project, .opencode/) that changes its
//     "plugin" list (a plugin runs inside OpenCode and can switch runaway's
//     off); `opencode --pure` or OPENCODE_PURE set for it (no plugins);
//   - a Gemini CLI settings file ($GEMINI_CLI_HOME/.gemini/settings.json,
//     any .gemini/settings.json) written so that runaway's entry goes, or
//     hooksConfig.enabled or tools.enableHooks becomes false, or
//     hooksConfig.disabled names runaway;
//   - `runaway allow|remove|setup` by any path or via go run/npx;
//     `claude --settings` with disableAllHooks; `codex -c features.hooks=false`,
//     `--disable hooks`, or a -c override of hooks.state turning a hook off;
//     `gemini` with another GEMINI_CLI_HOME (or HOME) than the agent's.
//
// Reading, and naming those paths in an echo, grep or commit message, pass.
// Paths are resolved (~, $HOME, $XDG_*, $CLAUDE_CONFIG_DIR, $CODEX_HOME,
// variables assigned earlier in the line, cd, relative to the call's cwd,
// .., symlinks of what exists) before they are matched.
package tamper

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/runaway-guard/runaway/configs"
)

// hint ends every tamper reason: what the model should do instead.
const hint = "If a limit is in the way, stop and tell the person: they can change runaway's settings with `runaway allow`, `runaway setup` or `runaway remove` in their own terminal."

// Guarded is what the wire guards: runaway's own files, and the
// environment the agents' settings files are found by.
type Guarded struct {
	ConfigDir string              // runaway's config folder
	StateDir  string              // runaway's state folder
	BinPath   string              // runaway's installed program
	Getenv    func(string) string // the hook's environment
}

// Call is one tool call as the wire sees it.
type Call struct {
	Tool  string
	Input json.RawMessage
	Cwd   string // the agent's folder for the call
}

// Check judges one tool call: "" when it passes, else the reason it is
// denied (for the model). It reads files only when the call writes a
// settings file runaway manages.
func Check(g Guarded, c Call) string {
	t := &checker{
		getenv:    g.Getenv,
		configDir: g.ConfigDir,
		stateDir:  g.StateDir,
		binPath:   g.BinPath,
		cwd:       c.Cwd,
	}
	if t.getenv == nil {
		t.getenv = os.Getenv
	}
	if f := t.call(c.Tool, c.Input); f != nil {
		return f.reason()
	}
	return ""
}

// finding is what the tamper wire matched: an action on a path, or a
// command.
type finding struct {
	action string // "change runaway's own config", "run `runaway allow`", …
	path   string // the path it matched, if any
	why    string // why this switches the guard off, when not obvious
}

func (f *finding) reason() string {
	s := "runaway: this call would " + f.action
	if f.path != "" {
		s += " (" + f.path + ")"
	}
	if f.why != "" {
		s += ", " + f.why
	}
	return s + "; the agent may not switch its guard off. " + hint
}

// protectedPath is one path the wire guards, lexically and as resolved.
type protectedPath struct {
	path, real string
	kind       fileKind
	dir        bool // a folder: everything under it is protected too
	project    bool // the call's project's own settings
	exists     bool // (project settings) the file is there
}

// checker holds what one call is checked against; the protected paths
// are worked out only when a call names a path it writes.
type checker struct {
	getenv    func(string) string
	configDir string
	stateDir  string
	binPath   string
	cwd       string

	home      string
	resolved  bool
	protected []protectedPath
	reals     map[string]string // realPath's answers
	checked   int               // path arguments checked so far
	needles   []string          // path fragments that name protected files in code
}

func (t *checker) homeDir() string {
	if t.home == "" && t.getenv != nil {
		t.home = filepath.Clean(t.getenv("HOME"))
		if !filepath.IsAbs(t.home) {
			t.home = ""
		}
	}
	return t.home
}

// envDir is $name, or its default under HOME.
func (t *checker) envDir(name string) string {
	if v := t.getenv(name); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	if h := t.homeDir(); h != "" {
		return filepath.Join(h, envDefaults[name])
	}
	return ""
}

// resolve works out the protected paths, once per call.
func (t *checker) resolve() {
	if t.resolved {
		return
	}
	t.resolved = true
	add := func(p string, kind fileKind, dir bool) {
		if !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		t.protected = append(t.protected, protectedPath{path: p, real: t.realPath(p), kind: kind, dir: dir})
	}
	add(t.configDir, ownConfig, true)
	add(t.stateDir, ownState, true)
	add(t.binPath, ownBinary, false)
	if exe, err := os.Executable(); err == nil {
		add(exe, ownBinary, false)
	}
	for _, f := range settingsFiles {
		if d := t.envDir(f.dirEnv); d != "" {
			add(filepath.Join(d, f.name), f.kind, false)
		}
	}
	// The project's own settings count when it has them (rm -rf .claude).
	if d := abs(t.cwd, "/"); d != "" {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			q := filepath.Join(d, ".claude", name)
			_, err := os.Lstat(q)
			t.protected = append(t.protected, protectedPath{path: q, real: t.realPath(q), kind: claudeSettings, project: true, exists: err == nil})
		}
	}
	home := t.homeDir()
	seen := map[string]bool{}
	for _, p := range t.protected {
		for _, s := range []string{p.path, p.real} {
			if home != "" && strings.HasPrefix(s, home+"/") {
				s = s[len(home)+1:]
			}
			if !seen[s] {
				seen[s] = true
				t.needles = append(t.needles, s)
			}
		}
	}
	t.needles = append(t.needles, ".claude/settings.json", ".claude/settings.local.json")
}

// realPath resolves the symlinks of p as far as it exists: its folder's
// (remembered for the call, so a command naming many files in one folder
// costs one lstat each) and its own.
func (t *checker) realPath(p string) string {
	if r, ok := t.reals[p]; ok {
		return r
	}
	if t.reals == nil {
		t.reals = map[string]string{}
	}
	r := p
	if dir := filepath.Dir(p); dir != p {
		r = filepath.Join(t.realPath(dir), filepath.Base(p))
		if fi, err := os.Lstat(r); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if e, err := filepath.EvalSymlinks(r); err == nil {
				r = e
			} else if l, err := os.Readlink(r); err == nil {
				r = abs(l, filepath.Dir(r)) // dangling: where it points
			}
		}
	}
	t.reals[p] = r
	return r
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/") || dir == "/"
}

// abs makes p absolute against dir and cleans it ("" when it cannot).
func abs(p, dir string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		if !filepath.IsAbs(dir) {
			return ""
		}
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// classify tells what p (absolute, clean) is to runaway: the kind of the
// protected path it is or lies in.
func (t *checker) classify(p string) fileKind {
	if p == "" {
		return notProtected
	}
	t.resolve()
	if k := t.match(p); k != notProtected {
		return k
	}
	if real := t.realPath(p); real != p {
		return t.match(real)
	}
	return notProtected
}

// openCodeFileTool checks OpenCode's file tools by their Claude Code
// counterparts: write, edit and multiedit name the file filePath (or path,
// in OpenCode's newer tools) and the strings in camel case.
func (t *checker) openCodeFileTool(tool string, input json.RawMessage) *finding {
	type edit struct {
		FilePath   string `json:"filePath"`
		OldString  string `json:"oldString"`
		NewString  string `json:"newString"`
		ReplaceAll bool   `json:"replaceAll"`
	}
	var in struct {
		edit
		Path    string `json:"path"`
		Content string `json:"content"`
		Edits   []edit `json:"edits"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	type claudeEdit struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	out := struct {
		FilePath string `json:"file_path"`
		Content  string `json:"content,omitempty"`
		claudeEdit
		Edits []claudeEdit `json:"edits,omitempty"`
	}{FilePath: in.FilePath, Content: in.Content, claudeEdit: claudeEdit{in.OldString, in.NewString, in.ReplaceAll}}
	if out.FilePath == "" {
		out.FilePath = in.Path
	}
	for _, e := range in.Edits {
		out.Edits = append(out.Edits, claudeEdit{e.OldString, e.NewString, e.ReplaceAll})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return t.fileTool(map[string]string{"write": "Write", "edit": "Edit", "multiedit": "MultiEdit"}[tool], b)
}

func (t *checker) match(p string) fileKind {
	for _, pp := range t.protected {
		for _, q := range []string{pp.path, pp.real} {
			if p == q || pp.dir && under(p, q) {
				return pp.kind
			}
		}
	}
	if isProjectSettings(p) {
		return claudeSettings
	}
	if b := filepath.Base(p); b == "opencode.json" || b == "opencode.jsonc" {
		// A project's (or .opencode/'s) config loads plugins too.
		return openCodeConfig
	}
	if filepath.Base(p) == "settings.json" && filepath.Base(filepath.Dir(p)) == ".gemini" {
		return geminiSettings // a project's, or another home's
	}
	return notProtected
}

// isProjectSettings: a project's .claude/settings.json or settings.local.json.
func isProjectSettings(p string) bool {
	b := filepath.Base(p)
	return (b == "settings.json" || b == "settings.local.json") && filepath.Base(filepath.Dir(p)) == ".claude"
}

// ancestorOf reports a protected path that lies inside p (a folder being
// removed or moved away), as its kind and path.
func (t *checker) ancestorOf(p string) (fileKind, string) {
	if in := t.inside(p); len(in) > 0 {
		return in[0].kind, in[0].path
	}
	return notProtected, ""
}

// inside lists the protected paths that lie inside p, with the project's
// own settings files when it has them.
func (t *checker) inside(p string) []protectedPath {
	t.resolve()
	real := t.realPath(p)
	var out []protectedPath
	for _, pp := range t.protected {
		if pp.project && !pp.exists {
			continue
		}
		for _, q := range []string{pp.path, pp.real} {
			if under(q, p) || under(q, real) {
				out = append(out, pp)
				break
			}
		}
	}
	return out
}

// call checks one tool call by its tool's input.
func (t *checker) call(tool string, input json.RawMessage) *finding {
	switch tool {
	case "Bash", "Shell", "exec_command", "shell", "local_shell", "bash", "run_shell_command":
		return t.shellInput(input)
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return t.fileTool(tool, input)
	case "write", "edit", "multiedit":
		return t.openCodeFileTool(tool, input)
	case "write_file": // Gemini CLI's, with Write's fields
		return t.fileTool("Write", input)
	case "replace": // Gemini CLI's, with Edit's fields
		return t.fileTool("Edit", input)
	case "apply_patch":
		var in struct {
			Command   string `json:"command"`
			Input     string `json:"input"`
			PatchText string `json:"patchText"` // OpenCode
		}
		if json.Unmarshal(input, &in) != nil {
			return nil
		}
		return t.patch(in.Command+in.Input+in.PatchText, t.cwd)
	}
	return nil
}

// shellInput reads a shell call's command: a string (Claude Code, Codex
// Bash) or an argv (Codex's older shell tool).
func (t *checker) shellInput(input json.RawMessage) *finding {
	var in struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
		Workdir string          `json:"workdir"`
		DirPath string          `json:"dir_path"` // Gemini CLI's
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	raw := in.Command
	if len(raw) == 0 {
		raw = in.Cmd
	}
	cwd := t.cwd
	if in.Workdir != "" {
		cwd = abs(in.Workdir, t.cwd)
	} else if in.DirPath != "" {
		cwd = abs(in.DirPath, t.cwd)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return t.shell(s, cwd, 0)
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		var q []string
		for _, a := range argv {
			q = append(q, configs.ShellQuote(a))
		}
		return t.shell(strings.Join(q, " "), cwd, 0)
	}
	return nil
}

// fileTool checks Claude Code's file tools.
func (t *checker) fileTool(tool string, input json.RawMessage) *finding {
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Content      string `json:"content"`
		OldString    string `json:"old_string"`
		NewString    string `json:"new_string"`
		ReplaceAll   bool   `json:"replace_all"`
		Edits        []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	p := abs(in.FilePath, t.cwd)
	if tool == "NotebookEdit" {
		p = abs(in.NotebookPath, t.cwd)
	}
	if p == "" {
		return nil
	}
	if tool == "NotebookEdit" {
		if kind := t.classify(p); kind != notProtected {
			return &finding{action: kind.action(opWrite), path: p}
		}
		return nil
	}
	if tool == "Write" {
		return t.writeFile(p, func(string, bool) (string, bool) { return in.Content, true }, nil)
	}
	edits := []textEdit{{in.OldString, in.NewString, in.ReplaceAll}}
	if tool == "MultiEdit" {
		edits = edits[:0]
		for _, e := range in.Edits {
			edits = append(edits, textEdit{e.OldString, e.NewString, e.ReplaceAll})
		}
	}
	apply := func(old string, exists bool) (string, bool) {
		if !exists {
			return "", false
		}
		return applyEdits(old, edits)
	}
	// When the edit cannot be tried on the file, judge its strings alone.
	fallback := func(kind fileKind, path string) *finding {
		for _, e := range edits {
			if f := editTouchesHooks(kind, path, e.old, e.new); f != nil {
				return f
			}
		}
		return nil
	}
	return t.writeFile(p, apply, fallback)
}

// textEdit is one old → new replacement of Edit or MultiEdit.
type textEdit struct {
	old, new string
	all      bool
}

func applyEdits(s string, edits []textEdit) (string, bool) {
	for _, e := range edits {
		if e.old == "" || !strings.Contains(s, e.old) {
			return "", false
		}
		if e.all {
			s = strings.ReplaceAll(s, e.old, e.new)
		} else {
			s = strings.Replace(s, e.old, e.new, 1)
		}
	}
	return s, true
}

// maxSettingsRead bounds what the wire reads of a settings file.
const maxSettingsRead = 4 << 20

// readSmall reads a settings file a call names. Anything but a regular file
// is refused: opening a FIFO blocks until a writer comes, and a device such
// as /dev/tty waits for the person.
func readSmall(p string) (string, error) {
	f, err := openRegular(p, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsRead+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxSettingsRead {
		return "", fmt.Errorf("%s is larger than %d bytes", p, maxSettingsRead)
	}
	return string(data), nil
}

// openRegular opens a file without blocking in open(2), as it would on a
// FIFO put in the file's place, and refuses anything but a regular file.
func openRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", path)
		}
		return nil, err
	}
	return f, nil
}
