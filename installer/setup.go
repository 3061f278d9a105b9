package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// SetupPlan is what setup will do; nothing is written until Apply.
type SetupPlan struct {
	Agents []Found
	// Wire lists the harnesses that get runaway's entry.
	Wire []Harness
	// NotWired lists harnesses found or asked for that runaway does not
	// wire into, with the reason in their Why.
	NotWired []Found
	Binary   BinaryStep
	Files    Edits // runaway's config first, then each harness's files
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

// planWire plans the files that wire one harness: the hook entry in its
// settings file, unless the harness wires itself another way (its wire).
func planWire(h Harness, bin string, prior *InstalledFile, platform configs.Platform) (Edits, error) {
	if h.wire != nil {
		return h.wire(bin, prior, platform)
	}
	edit, err := wireSettings(h.ID, bin, prior, platform)
	if err != nil {
		return nil, err
	}
	return Edits{edit}, nil
}

// wireSettings puts runaway's entries into a harness's settings file.
func wireSettings(id agent.ID, bin string, prior *InstalledFile, platform configs.Platform) (*hookEdit, error) {
	sf, _ := configs.SettingsFor(id)
	sf.Platform = platform
	return planHookInsert(sf, bin, prior)
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
func planConfig(path string, opts SetupOptions) (*configEdit, error) {
	snap, err := configs.ReadSnapshot(path)
	if err != nil {
		return nil, err
	}
	edit := &configEdit{fileChange{path: path, before: snap.Data, after: snap.Data, snap: snap, own: true}}
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
		edit.after = configs.NewConfig(settings)
		edit.createDirs = missingDirs(filepath.Dir(path))
		return edit, nil
	}
	configs.SetConfig(doc, settings)
	edit.after = doc.Pack()
	return edit, nil
}

// planHookInsert puts runaway's entry into one harness's settings file.
func planHookInsert(sf configs.SettingsFile, bin string, prior *InstalledFile) (*hookEdit, error) {
	name := ownfiles.Tilde(sf.Path)
	doc, snap, err := sf.Read(name)
	if err != nil {
		return nil, err
	}
	if err := snap.Writable(); err != nil {
		return nil, err
	}
	var undos []configs.Undo
	var command string
	for _, spec := range sf.Specs(bin) {
		u, err := doc.SetHook(spec)
		if err != nil {
			return nil, err
		}
		undos = append(undos, u)
		command = spec.Command
	}
	edit := &hookEdit{
		fileChange: fileChange{path: sf.Path, before: snap.Data, after: doc.Pack(), snap: snap, warnings: sf.Warnings(name, doc)},
		harness:    sf.Harness, command: command, createdFile: !snap.Exists,
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

// Diff is every file edit as one unified diff.
func (p *SetupPlan) Diff() string { return p.Files.Diff() }

// Empty reports whether the plan changes nothing: runaway is set up as asked.
func (p *SetupPlan) Empty() bool { return p.Binary.Skip && p.Diff() == "" }

// Apply carries the plan out: the binary first (entries never name a
// missing program), then runaway's config, then each settings file, and
// last the record of what was written. A file that changed since the plan
// read it is not written.
func (p *SetupPlan) Apply() error {
	if err := p.Files.check(); err != nil {
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
	for _, e := range p.Files {
		if err := e.change().write(); err != nil {
			firstErr = err
			break
		}
		e.record(rec)
	}
	if err := rec.write(p.paths.Installed); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("recording the setup in %s: %w", ownfiles.Tilde(p.paths.Installed), err)
	}
	return firstErr
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

// onPath reports whether dir is one of the folders of path (a PATH value).
func onPath(dir, path string) bool {
	for _, d := range filepath.SplitList(path) {
		if d != "" && filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}
