package installer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// A system install (`sudo runaway setup --system`) puts runaway where the
// agent's user cannot change it: the program root-owned and setgid to
// runaway's group, the config root-owned, the state in a folder only that
// group can write, and runaway's entries in the agents' managed settings.
// See DESIGN.md, "Tamper resistance: two modes".

// SystemOptions are what a system setup or remove needs.
type SystemOptions struct {
	// Setup carries the limits for the system config (and which agents'
	// managed files to write: empty is every one).
	Setup SetupOptions
	// Layout is sysmode.Real() except in tests.
	Layout sysmode.Layout
	// Executable is the program to install; "" is the running one.
	Executable string
	// ManagedOnly also turns off every hook that is not managed
	// (Claude Code's allowManagedHooksOnly, Codex's
	// allow_managed_hooks_only). Off by default: it drops the person's
	// other hooks too.
	ManagedOnly bool
	// Groups makes and deletes the state folder's group; nil is the OS's
	// own tools (groupadd, dseditgroup).
	Groups Groups
}

// Groups makes and deletes groups.
type Groups interface {
	// Ensure finds the group, making it when it is missing: its id, and
	// whether it was made now.
	Ensure(name string) (gid int, created bool, err error)
	Delete(name string) error
}

func (o SystemOptions) groups() Groups {
	if o.Groups == nil {
		return osGroups{}
	}
	return o.Groups
}

// SystemRecord is a system setup's record of what it made, for an exact
// remove. It lives beside the system config, root-owned.
type SystemRecord struct {
	Version      int             `json:"version"`
	Group        string          `json:"group"`
	GroupCreated bool            `json:"group_created,omitempty"`
	CreatedDirs  []string        `json:"created_dirs,omitempty"`
	ConfigBefore *string         `json:"config_before,omitempty"` // the config's bytes before setup; nil: there was none
	StateCreated bool            `json:"state_created,omitempty"`
	Managed      []InstalledFile `json:"managed,omitempty"`
}

// SystemPlan is a system setup: nothing is written until Apply.
type SystemPlan struct {
	Layout sysmode.Layout
	Config *configEdit
	// Managed are the agents' managed files (Codex's requirements.toml
	// block in Block), each a *hookEdit.
	Managed Edits

	opts  SystemOptions
	exe   string
	prior *SystemRecord
}

// ErrNotRoot: a system install is root's to make, change and remove.
var ErrNotRoot = errors.New("a system install needs root")

// PlanSystemSetup works out a system setup.
func PlanSystemSetup(o SystemOptions) (*SystemPlan, error) {
	if err := o.Setup.Validate(); err != nil {
		return nil, err
	}
	p := &SystemPlan{Layout: o.Layout, opts: o}
	var err error
	if p.exe = o.Executable; p.exe == "" {
		if p.exe, err = runningExecutable(); err != nil {
			return nil, err
		}
	}
	if p.prior, err = readSystemRecord(o.Layout.RecordFile()); err != nil {
		return nil, err
	}
	if p.Config, err = planConfig(o.Layout.ConfigFile(), o.Setup); err != nil {
		return nil, err
	}
	for _, mf := range o.managedFiles() {
		edit, err := p.planManaged(mf)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mf.Path, err)
		}
		p.Managed = append(p.Managed, edit)
	}
	return p, nil
}

func (o SystemOptions) managedFiles() []configs.ManagedFile {
	var out []configs.ManagedFile
	for _, mf := range configs.ManagedSettings(o.Layout) {
		if len(o.Setup.Harnesses) == 0 || slices.Contains(o.Setup.Harnesses, mf.Harness) {
			out = append(out, mf)
		}
	}
	return out
}

func (p *SystemPlan) priorFile(harness agent.ID) *InstalledFile {
	if p.prior == nil {
		return nil
	}
	for i := range p.prior.Managed {
		if p.prior.Managed[i].Harness == harness {
			return &p.prior.Managed[i]
		}
	}
	return nil
}

func (p *SystemPlan) planManaged(mf configs.ManagedFile) (*hookEdit, error) {
	if err := noLinks(p.Layout, mf.Path); err != nil {
		return nil, err
	}
	bin := p.Layout.Bin()
	if mf.CopilotPolicy {
		return planCopilotPolicy(mf, bin, p.priorFile(mf.Harness))
	}
	if !mf.TOML {
		mf.Platform = configs.Platform{OS: p.Layout.GOOS, ClaudeExecForm: true, NoShell: true}
		edit, err := planHookInsert(mf.SettingsFile, bin, p.priorFile(mf.Harness))
		if err == nil && p.opts.ManagedOnly && mf.Harness == "claude" && mf.Own {
			edit.after = withManagedOnly(edit.after)
		}
		return edit, err
	}
	snap, err := configs.ReadSnapshot(mf.Path)
	if err != nil {
		return nil, err
	}
	after, err := configs.AddTOMLBlock(snap.Data, configs.CodexRequirementsBlock(bin, p.opts.ManagedOnly))
	if err != nil {
		return nil, err
	}
	edit := &hookEdit{fileChange: fileChange{path: mf.Path, before: snap.Data, after: after, snap: snap},
		harness: mf.Harness, createdFile: !snap.Exists, what: "Codex's managed hooks"}
	if !snap.Exists {
		edit.createDirs = missingDirs(filepath.Dir(mf.Path))
	}
	if prior := p.priorFile(mf.Harness); prior != nil {
		edit.createdFile = prior.CreatedFile || edit.createdFile
		edit.createDirs = mergeDirs(prior.CreatedDirs, edit.createDirs)
	}
	return edit, nil
}

// withManagedOnly adds allowManagedHooksOnly to runaway's own drop-in
// (plain JSON that setup made from nothing).
func withManagedOnly(data []byte) []byte {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	m["allowManagedHooksOnly"] = true
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return data
	}
	return append(out, '\n')
}

// noLinks refuses a managed path with a link on it: the agents refuse a
// linked managed file, and root must not write through one.
func noLinks(l sysmode.Layout, path string) error {
	for p := path; p != filepath.Dir(p) && p != filepath.Clean(l.Root); p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a link; a managed file must not be reached through one", p)
		}
	}
	return nil
}

// Steps are the plan in lines for a person.
func (p *SystemPlan) Steps() []string {
	l := p.Layout
	out := []string{
		fmt.Sprintf("group %s (the state folder's; the program is setgid to it)", l.Group()),
		fmt.Sprintf("install %s (root-owned, setgid %s)", l.Bin(), l.Group()),
		p.Config.Describe(),
		fmt.Sprintf("state folder %s (root:%s, writable by that group only)", l.StateDir(), l.Group()),
	}
	for _, e := range p.Managed {
		out = append(out, e.Describe())
	}
	return append(out, "record "+l.RecordFile())
}

// Diff is the config's and the managed files' edits.
func (p *SystemPlan) Diff() string {
	return append(Edits{p.Config}, p.Managed...).Diff()
}

// Apply makes the system install. It stops at the first error; running
// it again finishes what is left.
func (p *SystemPlan) Apply() error {
	l := p.Layout
	rec := p.prior
	if rec == nil {
		rec = &SystemRecord{Version: 1}
	}
	rec.Group = l.Group()
	gid, created, err := p.opts.groups().Ensure(l.Group())
	if err != nil {
		return fmt.Errorf("making the group %s: %w", l.Group(), err)
	}
	rec.GroupCreated = rec.GroupCreated || created
	save := func() error { return writeSystemRecord(l.RecordFile(), rec) }

	for _, d := range slices.Backward(missingDirs(l.ConfigDir())) {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		rec.CreatedDirs = mergeDirs(rec.CreatedDirs, []string{d})
	}
	if err := save(); err != nil {
		return err
	}
	if p.prior == nil && p.Config.snap.Exists {
		before := string(p.Config.before)
		rec.ConfigBefore = &before
	}
	if err := ownfiles.WriteFile(l.ConfigFile(), p.Config.after, 0o644, ownfiles.Durable); err != nil {
		return fmt.Errorf("writing %s: %w", l.ConfigFile(), err)
	}
	if err := p.makeState(gid, rec); err != nil {
		return err
	}
	if err := save(); err != nil {
		return err
	}
	if err := p.installProgram(gid); err != nil {
		return err
	}
	for _, e := range p.Managed {
		f := e.(*hookEdit)
		if err := f.write(); err != nil {
			return err
		}
		// The agents run as their users: they must read the file and
		// its folders, and nobody but root write them.
		if err := os.Chmod(f.path, 0o644); err != nil {
			return err
		}
		for _, d := range f.createDirs {
			if err := os.Chmod(d, 0o755); err != nil {
				return err
			}
		}
		rec.putManaged(f.installed())
		if err := save(); err != nil {
			return err
		}
	}
	return nil
}

func (r *SystemRecord) putManaged(f InstalledFile) {
	r.Managed = slices.DeleteFunc(r.Managed, func(m InstalledFile) bool { return m.Harness == f.Harness })
	r.Managed = append(r.Managed, f)
}

// makeState makes the state folder and its subfolders root's, the
// group's, setgid (files made in it take the group) and closed to others.
func (p *SystemPlan) makeState(gid int, rec *SystemRecord) error {
	l := p.Layout
	dirs := []string{l.StateDir()}
	for _, d := range sysmode.StateSubdirs {
		dirs = append(dirs, filepath.Join(l.StateDir(), d))
	}
	for i, d := range dirs {
		if i == 0 {
			if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
				rec.StateCreated = true
			}
		}
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := lchownMode(d, l.Owner, gid, 0o770|fs.ModeSetgid); err != nil {
			return err
		}
	}
	return nil
}

// lchownMode sets the owner and then the mode (chown clears the setgid
// bit), refusing a link.
func lchownMode(path string, uid, gid int, mode fs.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a link", path)
	}
	if err := os.Lchown(path, uid, gid); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

// installProgram puts the program in place through a temp file made
// root's, the group's and setgid before the rename: a hook never runs a
// copy without the bit.
func (p *SystemPlan) installProgram(gid int) error {
	l := p.Layout
	data, err := os.ReadFile(p.exe)
	if err != nil {
		return fmt.Errorf("reading the running runaway: %w", err)
	}
	dir := filepath.Dir(l.Bin())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".runaway.new*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(data)
	if err := f.Sync(); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = lchownMode(tmp, l.Owner, gid, 0o755|fs.ModeSetgid)
	}
	if werr == nil {
		werr = ownfiles.Replace(tmp, l.Bin())
	}
	if werr != nil {
		return fmt.Errorf("installing %s: %w", l.Bin(), werr)
	}
	return nil
}

func readSystemRecord(path string) (*SystemRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r SystemRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s does not parse: %w", path, err)
	}
	return &r, nil
}

func writeSystemRecord(path string, r *SystemRecord) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return ownfiles.WriteFile(path, append(b, '\n'), 0o644, ownfiles.Durable)
}

// SystemRemovePlan is the exact inverse of a system setup.
type SystemRemovePlan struct {
	Layout  sysmode.Layout
	Managed Edits
	rec     *SystemRecord
	opts    SystemOptions
}

// ErrNoSystemInstall: remove --system found nothing to remove.
var ErrNoSystemInstall = errors.New("runaway is not installed system-wide (no record of a system setup)")

// PlanSystemRemove works out how to undo the system setup its record
// describes.
func PlanSystemRemove(o SystemOptions) (*SystemRemovePlan, error) {
	rec, err := readSystemRecord(o.Layout.RecordFile())
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, ErrNoSystemInstall
	}
	p := &SystemRemovePlan{Layout: o.Layout, rec: rec, opts: o}
	for _, mf := range configs.ManagedSettings(o.Layout) {
		var prior *InstalledFile
		for i := range rec.Managed {
			if rec.Managed[i].Harness == mf.Harness {
				prior = &rec.Managed[i]
			}
		}
		if prior == nil {
			continue
		}
		edit, err := planManagedRemove(mf, prior)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mf.Path, err)
		}
		if edit != nil {
			p.Managed = append(p.Managed, edit)
		}
	}
	return p, nil
}

func planManagedRemove(mf configs.ManagedFile, prior *InstalledFile) (*unhookEdit, error) {
	if mf.CopilotPolicy {
		return planCopilotPolicyRemove(mf, prior)
	}
	if !mf.TOML {
		return planHookRemove(mf.SettingsFile, prior)
	}
	snap, err := configs.ReadSnapshot(mf.Path)
	if err != nil || !snap.Exists {
		return nil, err
	}
	after, _, err := configs.CutTOMLBlock(snap.Data)
	if err != nil {
		return nil, err
	}
	edit := &unhookEdit{fileChange{path: mf.Path, before: snap.Data, after: after, snap: snap}}
	if len(after) == 0 && prior.CreatedFile {
		edit.delete, edit.removeDirs = true, prior.CreatedDirs
	}
	return edit, nil
}

// Steps are the plan in lines for a person.
func (p *SystemRemovePlan) Steps() []string {
	l := p.Layout
	var out []string
	for _, e := range p.Managed {
		out = append(out, e.Describe())
	}
	out = append(out, "delete "+l.Bin())
	if p.rec.StateCreated {
		out = append(out, "delete the state folder "+l.StateDir()+" (spend counted, stops, allowances)")
	}
	if p.rec.ConfigBefore != nil {
		out = append(out, "restore "+l.ConfigFile()+" as it was before setup")
	} else {
		out = append(out, "delete "+l.ConfigFile())
	}
	if p.rec.GroupCreated {
		out = append(out, "delete the group "+l.Group())
	}
	return out
}

// Diff is the managed files' edits.
func (p *SystemRemovePlan) Diff() string { return p.Managed.Diff() }

// Apply undoes the system setup; the record goes last, so that a remove
// stopped half way can be run again.
func (p *SystemRemovePlan) Apply() error {
	l := p.Layout
	if err := writeRemoval(p.Managed); err != nil {
		return err
	}
	if err := os.Remove(l.Bin()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if p.rec.StateCreated {
		if err := os.RemoveAll(l.StateDir()); err != nil {
			return err
		}
	}
	if p.rec.ConfigBefore != nil {
		if err := ownfiles.WriteFile(l.ConfigFile(), []byte(*p.rec.ConfigBefore), 0o644, ownfiles.Durable); err != nil {
			return err
		}
	} else if err := os.Remove(l.ConfigFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if p.rec.GroupCreated {
		if err := p.opts.groups().Delete(l.Group()); err != nil {
			return fmt.Errorf("deleting the group %s: %w", l.Group(), err)
		}
	}
	if err := os.Remove(l.RecordFile()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	removeEmptyDirs(p.rec.CreatedDirs)
	return nil
}
