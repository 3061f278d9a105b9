package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// copilotHarness: runaway is a hooks file of its own in GitHub Copilot
// CLI's hooks folder (configs/copilot.go); the person's hooks and settings
// are never edited. Its ask is a deny where nobody answers, so runaway
// denies; a stop ends the turn at the call's permission request.
var copilotHarness = Harness{
	ID: agent.Copilot, Name: "GitHub Copilot CLI", Support: AllWiresDenyNotAsk,
	Why:       "runaway's own hooks file in Copilot CLI's hooks folder runs it before every tool call and at every permission request; where Claude Code would ask, runaway denies the call and tells the model to stop and ask you (Copilot CLI cannot ask in -p or autopilot), and a stop ends the turn at the next shell command or file write, reads being denied until then. Calls to your own key are priced from their tokens, calls Copilot bills are counted in its premium requests (not dollars, and no cap counts them), and a repository's disableAllHooks or the managed allowManagedHooksOnly switches runaway off there (doctor says so).",
	entryPath: configs.CopilotHooksPath,
	wire:      planCopilotSetup,
	unwire:    planCopilotRemove,
	doctor:    (*doctor).checkCopilot,
}

const copilotWhat = "runaway's Copilot CLI hooks file"

// planCopilotSetup plans runaway's hooks file. prior is an earlier setup's
// record for Copilot CLI.
func planCopilotSetup(bin string, prior *InstalledFile, p configs.Platform) (Edits, error) {
	path := configs.CopilotHooksPath()
	name := ownfiles.Tilde(path)
	snap, err := configs.ReadSnapshot(path)
	if err != nil {
		return nil, err
	}
	if snap.Exists && !configs.IsCopilotHooks(snap.Data) {
		return nil, fmt.Errorf("%s exists and is not runaway's hooks file; nothing was written (move it away, then run setup again)", name)
	}
	if err := snap.Writable(); err != nil {
		return nil, err
	}
	edit := &copilotHooksEdit{
		fileChange: fileChange{path: path, before: snap.Data, after: configs.CopilotHooks(bin, p), snap: snap, own: true},
		command:    bin + " hook copilot", createdFile: !snap.Exists,
	}
	if !snap.Exists {
		edit.createDirs = missingDirs(filepath.Dir(snap.Real))
	}
	if prior != nil && filepath.Clean(prior.Path) == filepath.Clean(path) {
		edit.createdFile = edit.createdFile || prior.CreatedFile
		edit.createDirs = mergeDirs(edit.createDirs, prior.CreatedDirs)
	}
	return Edits{edit}, nil
}

// planCopilotRemove deletes runaway's hooks file (where setup wrote it and
// where it is now), then the folders setup made, when empty.
func planCopilotRemove(prior *InstalledFile) (Edits, error) {
	edits, err := deleteOwnFile(configs.CopilotHooksPath(), prior, configs.IsCopilotHooks, "runaway's hooks file", copilotWhat)
	if err != nil {
		return nil, err
	}
	if len(edits) > 0 && prior != nil {
		// The folders go last, deepest first, and only when empty.
		edits[len(edits)-1].change().removeDirs = prior.CreatedDirs
	}
	return edits, nil
}

// copilotHooksEdit writes runaway's hooks file; deleteEdit is its inverse.
type copilotHooksEdit struct {
	fileChange
	createdFile bool
	command     string
}

func (e *copilotHooksEdit) Describe() string { return e.describeAs(copilotWhat) }

func (e *copilotHooksEdit) record(rec *Installed) {
	rec.put(InstalledFile{
		Harness: agent.Copilot, Path: e.path, Command: e.command, SHA256: HashBytes(e.after),
		CreatedFile: e.createdFile, CreatedDirs: e.createDirs,
	})
}

// checkCopilot checks runaway's hooks file and what switches Copilot CLI's
// user hooks off.
func (d *doctor) checkCopilot(h Harness) {
	path := configs.CopilotHooksPath()
	name := ownfiles.Tilde(path)
	prior := d.rec.File(h.ID)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.add(StatusFail, "copilot-hooks", "%v", err)
		return
	}
	if err != nil && prior == nil {
		if d.agents[h.ID].Found {
			d.add(StatusOK, string(h.ID), "found, not wired; run: runaway setup --harness copilot")
		} else {
			d.add(StatusOK, string(h.ID), "not installed")
		}
		return
	}
	fix := "run: runaway setup --harness copilot"
	bin := d.installedBinary()
	ok := false
	bins := configs.CopilotHooksBinaries(data)
	switch {
	case err != nil:
		d.add(StatusFail, "copilot-hooks", "%s is gone: Copilot CLI is not guarded; %s", name, fix)
	case len(bins) == 0:
		d.add(StatusFail, "copilot-hooks", "%s is not runaway's hooks file: Copilot CLI is not guarded; move it away, then %s", name, fix)
	case slices.ContainsFunc(bins, func(b string) bool { return filepath.Clean(b) != filepath.Clean(bin) }):
		d.add(StatusFail, "copilot-hooks", "%s runs %s, not the installed %s; %s", name, bins[0], ownfiles.Tilde(bin), fix)
	case string(data) != string(configs.CopilotHooks(bin, d.platform)):
		d.add(StatusWarn, "copilot-hooks", "%s is another version of runaway's hooks file (or was edited); %s", name, fix)
		ok = true
	default:
		d.add(StatusOK, "copilot-hooks", "%s runs %s hook copilot before every tool call and at every permission request, timeout %ds", name, ownfiles.Tilde(bin), configs.HookTimeout)
		ok = true
	}
	d.checkCopilotSwitches()
	if ok {
		d.liveTest(h, "copilot", configs.Entry{Command: configs.HookCommand(bin, agent.Copilot), Program: bin, Args: []string{"hook", string(agent.Copilot)}, Timeout: configs.HookTimeout, HasTimeout: true, OrTrue: true})
	}
}

// checkCopilotSwitches: a repository's settings with disableAllHooks, or
// the managed allowManagedHooksOnly, keep Copilot CLI from running user
// hooks, runaway's included; only hooks in its policy folder survive them
// (a system install).
func (d *doctor) checkCopilotSwitches() {
	var on []string
	files := []string{filepath.Join(agent.Of(agent.Copilot).ConfigDir(configs.Env), "settings.json")}
	if d.opts.Dir != "" {
		root := gitRoot(d.opts.Dir)
		files = append(files,
			filepath.Join(root, ".github", "copilot", "settings.json"),
			filepath.Join(root, ".github", "copilot", "settings.local.json"),
			filepath.Join(root, ".claude", "settings.json"),
			filepath.Join(root, ".claude", "settings.local.json"))
	}
	for _, path := range files {
		set, err := copilotSwitch(path, "disableAllHooks")
		if err != nil {
			d.add(StatusWarn, "copilot-hooks-off", "%v", err)
		}
		if set {
			on = append(on, ownfiles.Tilde(path))
		}
	}
	if len(on) > 0 {
		d.add(StatusFail, "copilot-hooks-off", "disableAllHooks is true in %s: Copilot CLI runs no user hooks there, runaway's included; remove it (only a system install, sudo runaway setup --system, survives it)", strings.Join(on, ", "))
	} else {
		d.add(StatusOK, "copilot-hooks-off", "disableAllHooks is not set")
	}
	managed := CopilotManagedSettings(sysmode.Real())
	if set, err := copilotSwitch(managed, "allowManagedHooksOnly"); err != nil {
		d.add(StatusWarn, "copilot-managed-only", "%v", err)
	} else if set {
		d.add(StatusFail, "copilot-managed-only", "allowManagedHooksOnly is true in %s: Copilot CLI loads only enterprise-managed hooks, not runaway's user hooks file; ask the administrator for a system install (sudo runaway setup --system)", managed)
	} else {
		d.add(StatusOK, "copilot-managed-only", "allowManagedHooksOnly is not set")
	}
}

// CopilotManagedSettings is Copilot CLI's managed settings file on l's OS.
func CopilotManagedSettings(l sysmode.Layout) string {
	switch l.GOOS {
	case "darwin":
		return l.Path("Library", "Application Support", "GitHubCopilot", "managed-settings.json")
	case "windows":
		return l.Path("Program Files", "GitHubCopilot", "managed-settings.json")
	}
	return l.Path("etc", "github-copilot", "managed-settings.json")
}

// copilotSwitch reports whether the settings file at path sets key to true
// at its top level; a missing file sets nothing.
func copilotSwitch(path, key string) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	doc, err := configs.ParseDoc(ownfiles.Tilde(path), b, false)
	if err != nil {
		return false, err
	}
	var top map[string]any
	if doc.Value(&top) != nil {
		return false, nil
	}
	v, _ := top[key].(bool)
	return v, nil
}

// gitRoot is the repository root of dir (the folder holding .git), else
// dir itself.
func gitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// planCopilotPolicy plans a system install's policy hooks file, runaway's
// own (configs.CopilotPolicyHooks).
func planCopilotPolicy(mf configs.ManagedFile, bin string, prior *InstalledFile) (*hookEdit, error) {
	snap, err := configs.ReadSnapshot(mf.Path)
	if err != nil {
		return nil, err
	}
	if snap.Exists && !configs.IsCopilotHooks(snap.Data) {
		return nil, fmt.Errorf("%s exists and is not runaway's; nothing was written (move it away, then run setup again)", mf.Path)
	}
	edit := &hookEdit{
		fileChange: fileChange{path: mf.Path, before: snap.Data, after: configs.CopilotPolicyHooks(bin), snap: snap, own: true},
		harness:    agent.Copilot, command: bin + " hook copilot", createdFile: !snap.Exists, what: "Copilot CLI's policy hooks",
	}
	if !snap.Exists {
		edit.createDirs = missingDirs(filepath.Dir(mf.Path))
	}
	if prior != nil {
		edit.createdFile = prior.CreatedFile || edit.createdFile
		edit.createDirs = mergeDirs(prior.CreatedDirs, edit.createDirs)
	}
	return edit, nil
}

// planCopilotPolicyRemove deletes the policy hooks file while it is
// runaway's, and the folders setup made for it, when empty.
func planCopilotPolicyRemove(mf configs.ManagedFile, prior *InstalledFile) (*unhookEdit, error) {
	snap, err := configs.ReadSnapshot(mf.Path)
	if err != nil || !snap.Exists {
		return nil, err
	}
	if !configs.IsCopilotHooks(snap.Data) {
		return nil, fmt.Errorf("%s is not runaway's any more; nothing was removed (delete it yourself if it is not yours)", mf.Path)
	}
	return &unhookEdit{fileChange{path: mf.Path, before: snap.Data, delete: true, snap: snap, removeDirs: prior.CreatedDirs}}, nil
}
