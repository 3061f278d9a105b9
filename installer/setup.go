package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// Paths are the files runaway owns.
type Paths struct {
	Bin       string // the installed binary hook entries run
	Config    string // runaway's config.json
	State     string // runaway's state folder
	Installed string // setup's record, in the state folder
}

// DefaultPaths are runaway's own folders on this OS (ownfiles.UserDirs;
// tests set XDG_*).
func DefaultPaths() Paths {
	dirs := ownfiles.UserDirs()
	return Paths{
		Bin:       dirs.Bin,
		Config:    dirs.ConfigFile(),
		State:     dirs.State,
		Installed: dirs.InstalledFile(),
	}
}

// SetupOptions are the choices setup needs; the wizard collects them
// interactively, the flags of `runaway setup` non-interactively.
type SetupOptions struct {
	// Harnesses to wire, by id; empty means every supported one found.
	Harnesses []agent.ID
	// Limits are the config values to write, by knob key (configs.Knobs),
	// each of its knob's type; a key not in it is left alone.
	Limits map[string]any
	// Project, when set, also wires Claude Code into that project's
	// .claude/settings.local.json (at its git repository root).
	Project string
	// NoAgentRules leaves out the agents' own rules that keep runaway's
	// files out of their reach (and takes out ones an earlier setup added).
	NoAgentRules bool
	// Paths defaults to DefaultPaths; Executable to the running binary.
	Paths      *Paths
	Executable string
	// Platform decides the entries' form; nil is this machine and the
	// Claude Code found on it.
	Platform *configs.Platform
}

// FileEdit is one file a plan writes, with its bytes before and after.
type FileEdit struct {
	Harness agent.ID // "" for runaway's config
	Path    string
	Before  []byte
	After   []byte
	// Delete: remove the file instead of writing After (remove only).
	Delete bool
	// Warnings about the file that the person should read.
	Warnings []string

	snap        configs.Snapshot
	own         bool // runaway's own file: no backup
	project     bool // a project's settings file, not the harness's user file
	createDirs  []string
	createdFile bool
	undos       []configs.Undo
	rules       *configs.RulesUndo // Claude Code deny rules setup added
	command     string
	// what the file is for people, when not a settings file's hook entry.
	what string
	// supportFile: a file setup creates beside a harness's entry (OpenCode's
	// package-lock.json), recorded in that entry's Support; support is the
	// entry's earlier record of them.
	supportFile bool
	support     []SupportFile
	// extraDirs are folders setup makes beside the file (OpenCode's
	// node_modules); removeDirs are the folders remove takes away after the
	// file, when empty.
	extraDirs  []string
	removeDirs []string
}

// Changed reports whether applying the edit changes anything.
func (f FileEdit) Changed() bool {
	return f.Delete || !bytes.Equal(f.Before, f.After)
}

// Diff is the edit as a unified diff ("" when nothing changes).
func (f FileEdit) Diff() string {
	if !f.Changed() {
		return ""
	}
	name := ownfiles.Tilde(f.Path)
	from, to := name, name
	if !f.snap.Exists {
		from = "/dev/null"
	}
	after := f.After
	if f.Delete {
		to, after = "/dev/null", nil
	}
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: diffLines(f.Before), B: diffLines(after),
		FromFile: from, ToFile: to, Context: 3,
	})
	return text
}

func diffLines(b []byte) []string {
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		return lines[:len(lines)-1]
	}
	lines[len(lines)-1] += "\n\\ No newline at end of file\n"
	return lines
}

// SetupPlan is what setup will do; nothing is written until Apply.
type SetupPlan struct {
	Agents []Found
	// Wire lists the harnesses that get runaway's entry.
	Wire []Harness
	// NotWired lists harnesses found or asked for that runaway does not
	// wire into, with the reason in their Why.
	NotWired []Found
	Binary   BinaryStep
	Files    FileEdits // runaway's config first, then one per harness
	// Todo is what the person must still do afterwards.
	Todo []string
	// Project is the project settings file wired too ("" without --project).
	Project string

	paths Paths
	prior *Installed
}

// ErrNothingToWire: no supported harness was found and none was named.
var ErrNothingToWire = errors.New("no supported coding agent found (looked for " + WiredNames() + ")")

// PlanSetup works out setup's edits without writing anything. A settings
// file that does not parse stops the plan with a *configs.SyntaxError.
func PlanSetup(opts SetupOptions) (*SetupPlan, error) {
	paths := DefaultPaths()
	if opts.Paths != nil {
		paths = *opts.Paths
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	p := &SetupPlan{Agents: Detect(), paths: paths}
	want, err := chooseHarnesses(p.Agents, opts.Harnesses)
	if err != nil {
		return nil, err
	}
	for _, f := range p.Agents {
		if f.Support == NotSupported && (f.Found || slices.Contains(want, f.ID)) {
			p.NotWired = append(p.NotWired, f)
		}
		if f.Support != NotSupported && slices.Contains(want, f.ID) {
			p.Wire = append(p.Wire, f.Harness)
		}
	}
	if len(p.Wire) == 0 && opts.Project == "" {
		return nil, ErrNothingToWire
	}
	exe := opts.Executable
	if exe == "" {
		if exe, err = runningExecutable(); err != nil {
			return nil, err
		}
	}
	if p.Binary, err = planBinary(exe, paths.Bin); err != nil {
		return nil, err
	}
	if p.prior, err = ReadInstalled(paths.Installed); err != nil {
		return nil, err
	}
	cfg, err := planConfig(paths.Config, opts)
	if err != nil {
		return nil, err
	}
	p.Files = append(p.Files, cfg)
	var platform configs.Platform
	if opts.Platform != nil {
		platform = *opts.Platform
	} else {
		platform = thisPlatform(p.Agents)
	}
	for _, h := range p.Wire {
		edits, err := planWire(h, paths.Bin, p.prior.File(h.ID), platform)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, edits...)
		if h.Todo != "" && edits.Diff() != "" {
			p.Todo = append(p.Todo, h.Name+": "+h.Todo)
		}
	}
	if dir := filepath.Dir(paths.Bin); len(p.Wire) > 0 && !onPath(dir, os.Getenv("PATH")) {
		p.Todo = append(p.Todo, fmt.Sprintf("put %s on your PATH: a stop tells you to run `runaway allow`, and your shell finds runaway there (for example, in your shell's startup file: export PATH=\"%s:$PATH\")", ownfiles.Tilde(dir), dir))
	}
	if opts.Project != "" {
		sf, err := configs.ClaudeProjectSettings(opts.Project)
		if err != nil {
			return nil, &OptionError{fmt.Sprintf("--project %s: %v", opts.Project, err)}
		}
		sf.Platform = platform
		edit, err := planHookInsert(sf, paths.Bin, p.prior.ProjectFile(sf.Path))
		if err != nil {
			return nil, err
		}
		edit.project = true
		p.Files = append(p.Files, edit)
		p.Project = sf.Path
	}
	if err := p.planAgentRules(!opts.NoAgentRules); err != nil {
		return nil, err
	}
	return p, nil
}

// planWire plans the files that wire one harness: its settings file's hook
// entry, or OpenCode's plugin.
func planWire(h Harness, bin string, prior *InstalledFile, platform configs.Platform) (FileEdits, error) {
	if h.ID == "opencode" {
		return planOpenCodeSetup(bin, prior)
	}
	sf, _ := configs.SettingsFor(h.ID)
	sf.Platform = platform
	edit, err := planHookInsert(sf, bin, prior)
	return FileEdits{edit}, err
}

// OptionError is a limit that makes no sense; the hook would ignore it.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

// Validate checks the limits with the rules of their knobs, which the
// hook's policy uses too.
func (o SetupOptions) Validate() error {
	for _, k := range configs.Knobs {
		if v, ok := o.Limits[k.Key]; ok {
			if err := k.Check(v); err != nil {
				return &OptionError{fmt.Sprintf("%s %s: %v", k.Key, configs.FormatValue(v), err)}
			}
		}
	}
	for key := range o.Limits {
		if _, ok := configs.KnobByKey(key); !ok {
			return &OptionError{fmt.Sprintf("%s: not one of runaway's settings", key)}
		}
	}
	return nil
}

// chooseHarnesses resolves the requested ids, or every supported harness
// found when none were requested.
func chooseHarnesses(agents []Found, ids []agent.ID) ([]agent.ID, error) {
	if len(ids) == 0 {
		var out []agent.ID
		for _, f := range agents {
			if f.Found && f.Support != NotSupported {
				out = append(out, f.ID)
			}
		}
		return out, nil
	}
	for _, id := range ids {
		if _, ok := HarnessByID(id); !ok {
			return nil, &OptionError{fmt.Sprintf("unknown harness %q (known: %s)", id, knownIDs())}
		}
	}
	return ids, nil
}

func knownIDs() string {
	var ids []string
	for _, h := range Harnesses {
		ids = append(ids, string(h.ID))
	}
	return strings.Join(ids, ", ")
}

// configSettings are the values opts sets, in the knobs' order, each with
// its knob's comment.
func configSettings(opts SetupOptions) []configs.ConfigSetting {
	var out []configs.ConfigSetting
	for _, k := range configs.Knobs {
		if v, ok := opts.Limits[k.Key]; ok {
			out = append(out, configs.ConfigSetting{Key: k.Key, Value: v, Comment: k.Comment})
		}
	}
	return out
}

// planConfig writes the given limits into runaway's config: a new file
// from the commented template (the cap always in it), or only the given
// fields of an existing one, with the same byte-preserving editor.
func planConfig(path string, opts SetupOptions) (FileEdit, error) {
	snap, err := configs.ReadSnapshot(path)
	if err != nil {
		return FileEdit{}, err
	}
	edit := FileEdit{Path: path, Before: snap.Data, After: snap.Data, snap: snap, own: true}
	settings := configSettings(opts)
	doc, err := configs.ParseDoc(ownfiles.Tilde(path), snap.Data, false)
	if err != nil {
		return edit, err
	}
	if doc.Blank() {
		if _, ok := opts.Limits["session_cap_usd"]; !ok {
			opts.Limits = maps.Clone(opts.Limits)
			if opts.Limits == nil {
				opts.Limits = map[string]any{}
			}
			opts.Limits["session_cap_usd"] = float64(configs.DefaultSessionCapUSD)
			settings = configSettings(opts)
		}
		edit.After = configs.NewConfig(settings)
		edit.createDirs = missingDirs(filepath.Dir(path))
		return edit, nil
	}
	configs.SetConfig(doc, settings)
	edit.After = doc.Pack()
	return edit, nil
}

// planHookInsert puts runaway's entry into one harness's settings file.
func planHookInsert(sf configs.SettingsFile, bin string, prior *InstalledFile) (FileEdit, error) {
	name := ownfiles.Tilde(sf.Path)
	doc, snap, err := sf.Read(name)
	if err != nil {
		return FileEdit{}, err
	}
	if err := snap.Writable(); err != nil {
		return FileEdit{}, err
	}
	var undos []configs.Undo
	var command string
	for _, spec := range sf.Specs(bin) {
		u, err := doc.SetHook(spec)
		if err != nil {
			return FileEdit{}, err
		}
		undos = append(undos, u)
		command = spec.Command
	}
	edit := FileEdit{
		Harness: sf.Harness, Path: sf.Path, Before: snap.Data, After: doc.Pack(),
		Warnings: sf.Warnings(name, doc), snap: snap, command: command,
		createdFile: !snap.Exists,
	}
	if !snap.Exists {
		edit.createDirs = missingDirs(filepath.Dir(snap.Real))
	}
	if prior != nil && filepath.Clean(prior.Path) != filepath.Clean(sf.Path) {
		prior = nil
	}
	if prior != nil {
		// What an earlier setup created stays setup's to remove.
		edit.createdFile = prior.CreatedFile || edit.createdFile
		for _, d := range prior.CreatedDirs {
			if !slices.Contains(edit.createDirs, d) {
				edit.createDirs = append(edit.createDirs, d)
			}
		}
	}
	edit.undos = mergeUndos(undos, prior)
	return edit, nil
}

// mergeUndos keeps, for each entry this setup only updated in place, what
// an earlier setup's insert created. An entry the earlier setup created
// keeps its place in the order: its undo runs after those of later ones.
func mergeUndos(now []configs.Undo, prior *InstalledFile) []configs.Undo {
	var out []configs.Undo
	for _, u := range prior.AllUndos() {
		if i := slices.IndexFunc(now, func(n configs.Undo) bool { return n.Event == u.Event }); i >= 0 {
			out = append(out, now[i].Merge(&u))
		}
	}
	for _, u := range now {
		if prior.undoFor(u.Event) == nil {
			out = append(out, u)
		}
	}
	return out
}

// missingDirs lists dir and its missing parents, deepest first.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// FileEdits are a plan's file edits, in the order they are applied.
type FileEdits []FileEdit

// Diff is every edit as one unified diff ("" when nothing changes).
func (fs FileEdits) Diff() string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Diff())
	}
	return b.String()
}

// warningLines are the edits' warnings, for a plan's summary.
func (fs FileEdits) warningLines() []string {
	var out []string
	for _, f := range fs {
		for _, w := range f.Warnings {
			out = append(out, "warning: "+w)
		}
	}
	return out
}

// Diff is every file edit as one unified diff.
func (p *SetupPlan) Diff() string { return p.Files.Diff() }

// Empty reports whether the plan changes nothing: runaway is set up as asked.
func (p *SetupPlan) Empty() bool { return p.Binary.Skip && p.Diff() == "" }

// Apply carries the plan out: the binary first (entries never name a
// missing program), then runaway's config, then each settings file, and
// last the record of what was written. A file that changed since the plan
// read it is not written.
func (p *SetupPlan) Apply() error {
	if err := preflight(p.Files); err != nil {
		return err
	}
	if err := p.Binary.apply(); err != nil {
		return err
	}
	rec := p.prior
	if rec == nil {
		rec = &Installed{}
	}
	rec.Binary, rec.Config = p.paths.Bin, p.paths.Config
	var firstErr error
	for _, f := range p.Files {
		if err := f.write(); err != nil {
			firstErr = err
			break
		}
		switch {
		case f.supportFile:
			if entry := rec.File(f.Harness); entry != nil {
				entry.Support = append(entry.Support, SupportFile{Path: f.Path, SHA256: HashBytes(f.After)})
				entry.CreatedDirs = mergeDirs(entry.CreatedDirs, append(f.createDirs, f.extraDirs...))
			}
		case f.Harness != "":
			rec.put(InstalledFile{
				Harness: f.Harness, Path: f.Path, Project: f.project, Command: f.command, SHA256: HashBytes(f.After),
				CreatedFile: f.createdFile, CreatedDirs: f.createDirs, Undos: f.undos, Rules: f.rules, Support: f.support,
			})
		}
	}
	if err := rec.write(p.paths.Installed); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("recording the setup in %s: %w", ownfiles.Tilde(p.paths.Installed), err)
	}
	return firstErr
}

// preflight checks, before anything is written, that every file to change
// can be written and is still what the plan read.
func preflight(files FileEdits) error {
	for _, f := range files {
		if !f.Changed() {
			continue
		}
		if err := f.snap.Writable(); err != nil {
			return err
		}
		if changed, err := f.snap.Changed(); err != nil {
			return err
		} else if changed {
			return fmt.Errorf("%s changed since the plan was made; nothing was written", ownfiles.Tilde(f.Path))
		}
	}
	return nil
}

// write applies one edit.
func (f FileEdit) write() error {
	if !f.Changed() {
		removeEmptyDirs(f.removeDirs)
		return nil
	}
	if f.Delete {
		if err := configs.RemoveFile(f.snap); err != nil {
			return fmt.Errorf("removing %s: %w", ownfiles.Tilde(f.Path), err)
		}
		removeEmptyDirs(append(f.createDirs, f.removeDirs...))
		return nil
	}
	for _, d := range slices.Backward(f.createDirs) {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating %s: %w", ownfiles.Tilde(d), err)
		}
	}
	write := configs.WriteFile
	if f.own {
		write = configs.WriteOwnFile
	}
	if err := write(f.snap, f.After); err != nil {
		return fmt.Errorf("writing %s: %w", ownfiles.Tilde(f.Path), err)
	}
	for _, d := range f.extraDirs {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating %s: %w", ownfiles.Tilde(d), err)
		}
	}
	return nil
}

// removeEmptyDirs removes the folders, deepest first, each only when empty:
// a folder someone put something in stays.
func removeEmptyDirs(dirs []string) {
	dirs = slices.Clone(dirs)
	slices.SortStableFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range dirs {
		os.Remove(d)
	}
}

// Summary describes the plan in lines for a person: the agents found, the
// ones not wired and why, and each step.
func (p *SetupPlan) Summary() []string {
	var out []string
	out = append(out, "agents:")
	for _, f := range p.Agents {
		where := "not found"
		if f.Found {
			where = "found: " + ownfiles.Tilde(f.Where[0])
			if f.Version != "" {
				where += " (" + f.Version + ")"
			}
		}
		out = append(out, fmt.Sprintf("  %-12s %-40s %s", f.Name, where, f.Support))
	}
	for _, f := range p.NotWired {
		out = append(out, fmt.Sprintf("not wired: %s: %s", f.Name, f.Why))
	}
	out = append(out, "plan:")
	for _, l := range p.Steps() {
		out = append(out, "  "+l)
	}
	return append(out, p.Files.warningLines()...)
}

func (f FileEdit) describe() string {
	name := ownfiles.Tilde(f.Path)
	what := "runaway's config"
	if f.Harness != "" {
		h, _ := HarnessByID(f.Harness)
		what = h.Name + "'s hook entry"
		if f.rules != nil {
			what += fmt.Sprintf(" and %d deny rules for runaway's files", len(f.rules.Rules))
		}
	}
	if f.what != "" {
		what = f.what
	}
	switch {
	case f.Delete:
		return "delete " + name + " (setup created it)"
	case !f.Changed():
		return name + ": unchanged"
	case !f.snap.Exists:
		return "create " + name + " (" + what + ")"
	}
	return "edit " + name + " (" + what + ")"
}

// onPath reports whether dir is one of the folders of path (a PATH value).
func onPath(dir, path string) bool {
	for _, d := range filepath.SplitList(path) {
		if d != "" && filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}
