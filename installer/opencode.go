package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// OpenCode is wired with a plugin file, not a settings entry: setup writes
// runaway's plugin into OpenCode's global plugin folder and, when that
// folder has none, the package-lock.json and node_modules/ that keep
// OpenCode from waiting for an npm install of its plugin SDK at every
// start (about 70 s with no registry reachable; configs.OpenCodeInstallsAtStart).
// remove deletes exactly what setup created and nobody changed since.

// SupportFile is a file setup created beside a harness's entry (OpenCode's
// package-lock.json), with its hash right after setup wrote it: remove
// deletes it only while it still has that hash.
type SupportFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// planOpenCodeSetup plans the plugin and, when needed, the lock file and
// node_modules folder. prior is an earlier setup's record for OpenCode.
func planOpenCodeSetup(bin string, prior *InstalledFile, _ configs.Platform) (Edits, error) {
	path := configs.OpenCodePluginPath()
	name := ownfiles.Tilde(path)
	snap, err := configs.ReadSnapshot(path)
	if err != nil {
		return nil, err
	}
	if snap.Exists && !configs.IsOpenCodePlugin(snap.Data) {
		return nil, fmt.Errorf("%s exists and is not runaway's plugin; nothing was written (move it away, then run setup again)", name)
	}
	if err := snap.Writable(); err != nil {
		return nil, err
	}
	plugin := &pluginEdit{
		fileChange: fileChange{path: path, before: snap.Data, after: configs.OpenCodePlugin(bin), snap: snap, own: true},
		command:    bin + " hook opencode", createdFile: !snap.Exists,
	}
	if !snap.Exists {
		plugin.createDirs = missingDirs(filepath.Dir(snap.Real))
	}
	if prior != nil && filepath.Clean(prior.Path) == filepath.Clean(path) {
		plugin.createdFile = plugin.createdFile || prior.CreatedFile
		plugin.createDirs = mergeDirs(plugin.createDirs, prior.CreatedDirs)
		plugin.support = prior.Support
	}
	edits := Edits{plugin}

	dir := configs.OpenCodeDir()
	if stalls, _ := configs.OpenCodeInstallsAtStart(dir); !stalls {
		return edits, nil
	}
	lockPath := filepath.Join(dir, "package-lock.json")
	lock, err := configs.ReadSnapshot(lockPath)
	if err != nil {
		return nil, err
	}
	_, pkgErr := os.Stat(filepath.Join(dir, "package.json"))
	if lock.Exists || !errors.Is(pkgErr, fs.ErrNotExist) {
		// The person's (or OpenCode's) own npm files: left as they are.
		plugin.warnings = append(plugin.warnings, openCodeStallWarning(dir))
		return edits, nil
	}
	edit := &supportEdit{
		fileChange: fileChange{path: lockPath, after: configs.OpenCodeLock(), snap: lock, own: true},
		harness:    agent.OpenCode, what: "keeps OpenCode from npm-installing at start",
	}
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(modules); errors.Is(err, fs.ErrNotExist) {
		edit.extraDirs = []string{modules}
	}
	return append(edits, edit), nil
}

func openCodeStallWarning(dir string) string {
	_, why := configs.OpenCodeInstallsAtStart(dir)
	return fmt.Sprintf("OpenCode will npm-install %s into %s when it starts (%s): with no registry reachable it waits about 70 s first; when online, run: cd %s && npm install",
		configs.OpenCodeSDK, ownfiles.Tilde(dir), why, configs.ShellQuote(ownfiles.Tilde(dir)))
}

// mergeDirs adds the folders of b missing from a, keeping a's order.
func mergeDirs(a, b []string) []string {
	for _, d := range b {
		if !slices.Contains(a, d) {
			a = append(a, d)
		}
	}
	return a
}

// planOpenCodeRemove deletes runaway's plugin (wherever setup wrote it and
// where it is now), the files setup created beside it while they are as
// setup wrote them, and then the folders setup made, when empty.
func planOpenCodeRemove(prior *InstalledFile) (Edits, error) {
	edits, err := deleteOwnFile(configs.OpenCodePluginPath(), prior, configs.IsOpenCodePlugin, "runaway's plugin", "runaway's OpenCode plugin")
	if err != nil {
		return nil, err
	}
	if prior == nil {
		return edits, nil
	}
	for _, s := range prior.Support {
		snap, err := configs.ReadSnapshot(s.Path)
		if err != nil {
			return nil, err
		}
		if !snap.Exists {
			continue
		}
		edit := &deleteEdit{fileChange{path: s.Path, before: snap.Data, delete: true, snap: snap}, "setup created it; nothing else is in it"}
		if HashBytes(snap.Data) != s.SHA256 {
			// npm (or the person) made it theirs: it stays.
			edit.delete, edit.after = false, snap.Data
			edit.warnings = append(edit.warnings, fmt.Sprintf("%s changed since setup wrote it (an npm install?); it stays", ownfiles.Tilde(s.Path)))
		}
		edits = append(edits, edit)
	}
	if len(edits) == 0 {
		return nil, nil
	}
	// The folders go last, deepest first, and only when empty.
	edits[len(edits)-1].change().removeDirs = prior.CreatedDirs
	return edits, nil
}

// pluginEdit writes runaway's OpenCode plugin; its record lists the files
// setup creates beside it (supportEdit).
type pluginEdit struct {
	fileChange
	createdFile bool
	command     string
	support     []SupportFile // an earlier setup's
}

func (e *pluginEdit) Describe() string { return e.describeAs("runaway's OpenCode plugin") }

func (e *pluginEdit) record(rec *Installed) {
	rec.put(InstalledFile{
		Harness: agent.OpenCode, Path: e.path, Command: e.command, SHA256: HashBytes(e.after),
		CreatedFile: e.createdFile, CreatedDirs: e.createDirs, Support: e.support,
	})
}

// supportEdit creates a file beside a harness's entry (OpenCode's
// package-lock.json), recorded in that entry's Support with its hash.
type supportEdit struct {
	fileChange
	harness agent.ID
	what    string
}

func (e *supportEdit) Describe() string { return e.describeAs(e.what) }

func (e *supportEdit) record(rec *Installed) {
	if entry := rec.File(e.harness); entry != nil {
		entry.Support = append(entry.Support, SupportFile{Path: e.path, SHA256: HashBytes(e.after)})
		entry.CreatedDirs = mergeDirs(entry.CreatedDirs, append(e.createDirs, e.extraDirs...))
	}
}

// deleteEdit deletes a file setup created (the inverse of pluginEdit and
// supportEdit), or keeps it when someone changed it since.
type deleteEdit struct {
	fileChange
	what string // why it goes
}

func (e *deleteEdit) Describe() string {
	if !e.delete {
		return "keep " + ownfiles.Tilde(e.path) + " (changed since setup created it)"
	}
	return "delete " + ownfiles.Tilde(e.path) + " (" + e.what + ")"
}

func (e *deleteEdit) record(*Installed) {}

// isOpenCodePluginOf reports whether data is runaway's plugin as this
// runaway writes it for bin.
func isOpenCodePluginOf(data []byte, bin string) bool {
	return bytes.Equal(data, configs.OpenCodePlugin(bin))
}

// checkOpenCode checks runaway's plugin, what keeps OpenCode from stalling
// at start, what turns plugins off, and OpenCode's own doom_loop guard.
func (d *doctor) checkOpenCode(h Harness) {
	path := configs.OpenCodePluginPath()
	name := ownfiles.Tilde(path)
	prior := d.rec.File(h.ID)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.add(StatusFail, "opencode-plugin", "%v", err)
		return
	}
	if err != nil && prior == nil {
		d.checkOpenCodeUnwired(h)
		return
	}
	fix := "run: runaway setup --harness opencode"
	bin := d.installedBinary()
	ok := false
	switch {
	case err != nil:
		d.add(StatusFail, "opencode-plugin", "%s is gone: OpenCode is not guarded; %s", name, fix)
	case !configs.IsOpenCodePlugin(data):
		d.add(StatusFail, "opencode-plugin", "%s is not runaway's plugin: OpenCode is not guarded; move it away, then %s", name, fix)
	case filepath.Clean(configs.OpenCodePluginBinary(data)) != filepath.Clean(bin):
		d.add(StatusFail, "opencode-plugin", "%s runs %s, not the installed %s; %s", name, configs.OpenCodePluginBinary(data), ownfiles.Tilde(bin), fix)
	case !isOpenCodePluginOf(data, bin):
		d.add(StatusWarn, "opencode-plugin", "%s is another version of runaway's plugin (or was edited); %s", name, fix)
		ok = true
	default:
		d.add(StatusOK, "opencode-plugin", "%s runs %s hook opencode before every tool call and model request, timeout %s", name, ownfiles.Tilde(bin), configs.OpenCodePluginTimeout)
		ok = true
	}
	dir := configs.OpenCodeDir()
	if stalls, _ := configs.OpenCodeInstallsAtStart(dir); stalls {
		d.add(StatusWarn, "opencode-startup", "%s", openCodeStallWarning(dir))
	} else {
		d.add(StatusOK, "opencode-startup", "OpenCode finds its plugin SDK settled in %s and starts without npm", ownfiles.Tilde(dir))
	}
	if v := os.Getenv("OPENCODE_PURE"); v != "" {
		d.add(StatusFail, "opencode-pure", "OPENCODE_PURE=%s is set here: OpenCode loads no plugins, runaway's included; unset it where it is set (your shell's startup files)", v)
	} else {
		d.add(StatusOK, "opencode-pure", "OPENCODE_PURE is not set (opencode --pure still runs without plugins, runaway's included)")
	}
	if allowed, _, err := d.openCodeDoomLoop(); err != nil {
		d.add(StatusWarn, "opencode-doom-loop", "%v", err)
	} else if len(allowed) > 0 {
		d.add(StatusOK, "opencode-doom-loop", "doom_loop is \"allow\" (%s); runaway's loop wire still stops repeated calls", strings.Join(allowed, ", "))
	} else {
		d.add(StatusOK, "opencode-doom-loop", "OpenCode asks after 3 identical calls in one response; runaway's loop wire stops repeats across steps, which doom_loop does not see")
	}
	if ok {
		d.liveTest(h, "opencode", configs.Entry{Command: configs.ShellQuote(bin) + " hook opencode", Timeout: configs.HookTimeout, HasTimeout: true})
	}
}

// checkOpenCodeUnwired: OpenCode without runaway's plugin keeps only its
// own doom_loop guard; warn when that is off.
func (d *doctor) checkOpenCodeUnwired(h Harness) {
	allowed, seen, err := d.openCodeDoomLoop()
	switch {
	case err != nil:
		d.add(StatusWarn, "opencode-doom-loop", "%v", err)
	case !d.agents[h.ID].Found && !seen:
		d.add(StatusOK, string(h.ID), "not installed")
	default:
		d.add(StatusOK, string(h.ID), "found, not wired; run: runaway setup --harness opencode")
		if len(allowed) > 0 {
			d.add(StatusWarn, "opencode-doom-loop", "doom_loop is \"allow\" (%s): OpenCode no longer asks after 3 identical calls, and runaway is not wired into OpenCode; set it to \"ask\", or run: runaway setup --harness opencode", strings.Join(allowed, ", "))
		} else {
			d.add(StatusOK, "opencode-doom-loop", "OpenCode asks after 3 identical calls in one response (doom_loop is not \"allow\")")
		}
	}
}

// OpenCodeConfigs are OpenCode's global config files and those of dir.
func OpenCodeConfigs(dir string) []string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		base = filepath.Join(ownfiles.Home(), ".config")
	}
	var out []string
	for _, d := range []string{filepath.Join(base, "opencode"), dir} {
		if d == "" {
			continue
		}
		out = append(out, filepath.Join(d, "opencode.json"), filepath.Join(d, "opencode.jsonc"))
	}
	if p := os.Getenv("OPENCODE_CONFIG"); p != "" {
		out = append(out, p)
	}
	return out
}

// openCodeDoomLoop lists where OpenCode's doom_loop permission is set to
// allow (globally or for an agent), and whether any config was found.
func (d *doctor) openCodeDoomLoop() (allowed []string, seen bool, err error) {
	for _, path := range OpenCodeConfigs(d.opts.Dir) {
		m, err := readJSONC(path)
		if err != nil {
			return nil, seen, err
		}
		if m == nil {
			continue
		}
		seen = true
		if action, key := doomLoop(m); action == "allow" {
			allowed = append(allowed, ownfiles.Tilde(path)+": "+key)
		}
		agents, _ := m["agent"].(map[string]any)
		names := make([]string, 0, len(agents))
		for n := range agents {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if a, ok := agents[n].(map[string]any); ok {
				if action, key := doomLoop(a); action == "allow" {
					allowed = append(allowed, ownfiles.Tilde(path)+": agent."+n+"."+key)
				}
			}
		}
	}
	return allowed, seen, nil
}

// doomLoop is the action m's permission gives doom_loop, and the key that
// gives it: OpenCode reads "permission": "allow" as {"*": "allow"}, and a
// "*" rule covers doom_loop too.
func doomLoop(m map[string]any) (action, key string) {
	switch p := m["permission"].(type) {
	case string:
		return p, "permission"
	case map[string]any:
		if s, ok := p["doom_loop"].(string); ok {
			return s, "permission.doom_loop"
		}
		if s, ok := p["*"].(string); ok {
			return s, "permission.*"
		}
	}
	return "", ""
}

// deleteOwnFile deletes a file of runaway's own (wherever setup wrote it,
// from prior, and where it is now) while ours says it still is runaway's;
// noun names it in the error, what in the plan.
func deleteOwnFile(path string, prior *InstalledFile, ours func([]byte) bool, noun, what string) (Edits, error) {
	paths := []string{path}
	if prior != nil && filepath.Clean(prior.Path) != filepath.Clean(path) {
		paths = append([]string{prior.Path}, paths...)
	}
	var edits Edits
	for _, path := range paths {
		snap, err := configs.ReadSnapshot(path)
		if err != nil {
			return nil, err
		}
		if !snap.Exists {
			continue
		}
		if !ours(snap.Data) {
			return nil, fmt.Errorf("%s is not %s any more; nothing was removed (delete it yourself if it is not yours)", ownfiles.Tilde(path), noun)
		}
		if err := snap.Writable(); err != nil {
			return nil, err
		}
		edits = append(edits, &deleteEdit{fileChange{path: path, before: snap.Data, delete: true, snap: snap}, what})
	}
	return edits, nil
}
