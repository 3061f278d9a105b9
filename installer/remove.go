package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// RemoveOptions are the choices of `runaway remove`.
type RemoveOptions struct {
	// Harnesses to unwire, by id; empty means all.
	Harnesses []agent.ID
	// Project, when set, takes runaway's entry out of that project's
	// .claude/settings.local.json; without Harnesses, only out of it.
	// Without either, every project file setup recorded is cleaned too.
	Project string
	// Purge also deletes the binary, the config and the state folder.
	Purge bool
	Paths *Paths
}

// RemovePlan is what remove will do; nothing is written until Apply.
type RemovePlan struct {
	Files Edits
	// PurgePaths are deleted too (with --purge), in this order.
	PurgePaths []string

	paths     Paths
	rec       *Installed
	harnesses []agent.ID
	projects  []string // project settings files whose record goes
}

// PlanRemove finds runaway's entries (every copy, from any version or
// binary path) in the settings files setup wrote and in the harnesses'
// current ones, and plans to remove only those. With setup's record a
// file nobody else changed comes back byte for byte.
func PlanRemove(opts RemoveOptions) (*RemovePlan, error) {
	paths := DefaultPaths()
	if opts.Paths != nil {
		paths = *opts.Paths
	}
	if opts.Purge && len(opts.Harnesses) > 0 {
		return nil, &OptionError{"--purge removes runaway entirely; it cannot be combined with --harness"}
	}
	if opts.Purge && opts.Project != "" {
		return nil, &OptionError{"--purge removes runaway entirely; it cannot be combined with --project"}
	}
	rec, err := ReadInstalled(paths.Installed)
	if err != nil {
		return nil, err
	}
	p := &RemovePlan{paths: paths, rec: rec, harnesses: opts.Harnesses}
	if opts.Project != "" {
		sf, err := configs.ClaudeProjectSettings(opts.Project)
		if err != nil {
			return nil, &OptionError{fmt.Sprintf("--project %s: %v", opts.Project, err)}
		}
		p.projects = []string{sf.Path}
	} else if len(p.harnesses) == 0 {
		for _, f := range rec.Projects() {
			p.projects = append(p.projects, f.Path)
		}
	}
	if len(p.harnesses) == 0 && opts.Project == "" {
		for _, h := range Wired() {
			p.harnesses = append(p.harnesses, h.ID)
		}
	}
	for _, id := range p.harnesses {
		h, ok := HarnessByID(id)
		if !ok {
			return nil, &OptionError{fmt.Sprintf("unknown harness %q (known: %s)", id, knownIDs())}
		}
		unwire := h.unwire
		if unwire == nil {
			unwire = unwireSettings(id)
		}
		edits, err := unwire(rec.File(id))
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, edits...)
	}
	for _, path := range p.projects {
		sf := configs.ClaudeProjectFile(path)
		edit, err := planHookRemove(sf, rec.ProjectFile(path))
		if err != nil {
			return nil, err
		}
		if edit != nil && edit.Changed() {
			p.Files = append(p.Files, edit)
		}
	}
	if opts.Purge {
		p.PurgePaths = []string{purgedBinary(paths.Bin, rec), paths.Config, paths.State}
	}
	return p, nil
}

// purgedBinary is the binary --purge deletes: the one setup installed, as
// its record says (the default path may have moved since: another
// XDG_BIN_HOME), else the default path. A recorded path that does not name
// a runaway program is not trusted.
func purgedBinary(def string, rec *Installed) string {
	if rec == nil || rec.Binary == "" || !filepath.IsAbs(rec.Binary) {
		return def
	}
	if name := strings.TrimSuffix(filepath.Base(rec.Binary), ".exe"); name != "runaway" {
		return def
	}
	return rec.Binary
}

// unwireSettings is the inverse of the hook entries setup wrote into a
// harness's settings file: runaway's entries come out of the file setup
// recorded and of the harness's current one, when they differ (its
// config folder moved). A harness without a settings file has none.
func unwireSettings(id agent.ID) func(prior *InstalledFile) (Edits, error) {
	return func(prior *InstalledFile) (Edits, error) {
		sf, ok := configs.SettingsFor(id)
		if !ok {
			return nil, nil
		}
		files := []configs.SettingsFile{sf}
		if prior != nil && filepath.Clean(prior.Path) != filepath.Clean(sf.Path) {
			old := sf
			old.Path = prior.Path
			files = append([]configs.SettingsFile{old}, files...)
		}
		var out Edits
		for _, f := range files {
			var undo *InstalledFile
			if prior != nil && filepath.Clean(prior.Path) == filepath.Clean(f.Path) {
				undo = prior
			}
			edit, err := planHookRemove(f, undo)
			if err != nil {
				return nil, err
			}
			if edit != nil && edit.Changed() {
				out = append(out, edit)
			}
		}
		return out, nil
	}
}

// planHookRemove takes runaway's entries out of one settings file: nil
// when the file is not there.
func planHookRemove(sf configs.SettingsFile, prior *InstalledFile) (*unhookEdit, error) {
	name := ownfiles.Tilde(sf.Path)
	doc, snap, err := sf.Read(name)
	if err != nil || !snap.Exists {
		return nil, err
	}
	// The deny rules go first: setup added them after the entry.
	rules := 0
	if prior != nil && prior.Rules != nil {
		if rules, err = doc.RemoveDenyRules(*prior.Rules); err != nil {
			return nil, err
		}
	}
	n, err := doc.RemoveHooks(prior.AllUndos())
	if err != nil {
		return nil, err
	}
	edit := &unhookEdit{fileChange{path: sf.Path, before: snap.Data, after: snap.Data, snap: snap}}
	if n == 0 && rules == 0 {
		return edit, nil
	}
	if err := snap.Writable(); err != nil {
		return nil, err
	}
	edit.after = doc.Pack()
	if prior != nil {
		if prior.SHA256 != HashBytes(snap.Data) {
			edit.warnings = append(edit.warnings, fmt.Sprintf("%s changed since setup; only runaway's entries were taken out", name))
		}
		if len(edit.after) == 0 && prior.CreatedFile {
			edit.delete = true
			edit.removeDirs = prior.CreatedDirs
		}
	}
	return edit, nil
}

// Diff is every file edit as one unified diff.
func (p *RemovePlan) Diff() string { return p.Files.Diff() }

// Empty reports whether the plan changes nothing: no entry to take out,
// nothing to purge, and no record of a setup left to delete.
func (p *RemovePlan) Empty() bool { return len(p.Files) == 0 && len(p.PurgePaths) == 0 && p.rec == nil }

// Apply removes the entries, then updates or deletes setup's record, then
// (with --purge) deletes the binary, the config and the state folder.
func (p *RemovePlan) Apply() error {
	if err := p.Files.check(); err != nil {
		return err
	}
	if err := writeRemoval(p.Files); err != nil {
		return err
	}
	if p.rec != nil {
		for _, id := range p.harnesses {
			p.rec.drop(id)
		}
		for _, path := range p.projects {
			p.rec.dropProject(path)
		}
		var err error
		if len(p.rec.Files) == 0 {
			err = os.Remove(p.paths.Installed)
		} else {
			err = p.rec.write(p.paths.Installed)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("updating %s: %w", ownfiles.Tilde(p.paths.Installed), err)
		}
	}
	for _, path := range p.PurgePaths {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("removing %s: %w", ownfiles.Tilde(path), err)
		}
		if path == p.paths.Config {
			os.Remove(filepath.Dir(path)) // only when empty
		}
	}
	return nil
}

// writeRemoval writes remove's edits; a file given back its bytes from
// before setup loses setup's backup of them.
func writeRemoval(edits Edits) error {
	for _, e := range edits {
		c := e.change()
		if err := c.write(); err != nil {
			return err
		}
		if !c.delete {
			dropBackupIfSame(c.snap.Real, c.after)
		}
	}
	return nil
}

// dropBackupIfSame deletes setup's one-time backup once the file is back
// to the same bytes: it then holds nothing the file does not.
func dropBackupIfSame(real string, now []byte) {
	backup := real + configs.BackupSuffix
	if b, err := os.ReadFile(backup); err == nil && bytes.Equal(b, now) {
		os.Remove(backup)
	}
}

// Done is the line that tells a person what the applied plan did.
func (p *RemovePlan) Done() string {
	done := "done: runaway's hook entries are out"
	if len(p.PurgePaths) == 0 {
		return done
	}
	paths := make([]string, len(p.PurgePaths))
	for i, path := range p.PurgePaths {
		paths[i] = ownfiles.Tilde(path)
	}
	return done + "; its binary, config and state are deleted (" + strings.Join(paths, ", ") + ")"
}

// Summary describes the plan in lines for a person.
func (p *RemovePlan) Summary() []string {
	out := []string{"plan:"}
	if len(p.Files) == 0 {
		out = append(out, "  no runaway entries found in the agents' settings files")
	}
	for _, e := range p.Files {
		out = append(out, "  "+e.Describe())
	}
	for _, path := range p.PurgePaths {
		out = append(out, "  delete "+ownfiles.Tilde(path))
	}
	return append(out, p.Files.warningLines()...)
}
