package installer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// codexHarness: Codex denies instead of asking, and the person trusts
// runaway's entries in /hooks once: doctor checks that trust, its config
// and how a stop ends the run, and its sandbox.
var codexHarness = Harness{
	ID: agent.Codex, Name: "Codex", Support: AllWiresDenyNotAsk,
	Why:    "Codex hooks cannot ask the person, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you; Codex cannot end a turn from a hook, so at the cap runaway interrupts the codex process that ran it (that one only).",
	Todo:   `start codex: it says "Hooks need review"; choose "Review hooks" (or type /hooks) and trust runaway's two entries, named "` + configs.CodexToolName + `" and "` + configs.CodexPromptName + `". Codex runs a new or changed hook only once you trust it.`,
	doctor: (*doctor).checkWired,
	settingsChecks: func(d *doctor, w *wiredChecks) {
		var trust []trustCheck
		if len(w.byEvent["PreToolUse"]) == 1 {
			trust = append(trust, trustCheck{"codex-trust", w.entry})
		}
		if w.promptOK {
			trust = append(trust, trustCheck{"codex-prompt-trust", w.prompt})
		}
		d.checkCodexConfig(w.sf.Path, trust)
		d.checkCodexStop()
	},
	besides:    func(path string) []string { return []string{configs.CodexConfig(path)} },
	wire:       wireCodex,
	unwire:     unwireCodex,
	protection: (*doctor).checkCodexSandbox,
	afterSetup: func(bin string) []string {
		return []string{
			"",
			"Codex runs a new or changed hook only once you trust it. Once, now:",
			"  1. start codex: it says \"Hooks need review\"",
			"  2. choose \"Review hooks\" (or type /hooks)",
			"  3. trust runaway's two entries, named \"" + configs.CodexToolName + "\" and \"" + configs.CodexPromptName + "\" (both run " + ownfiles.Tilde(bin) + " hook codex)",
			"runaway doctor tells whether it is trusted.",
		}
	},
}

// wireCodex writes runaway's entries into hooks.json and notes which trust
// records config.toml already had at their keys (setup never writes
// trust: the person gives it in /hooks, and Codex writes the records).
func wireCodex(bin string, prior *InstalledFile, p configs.Platform) (Edits, error) {
	edit, err := wireSettings(agent.Codex, bin, prior, p)
	if err != nil {
		return nil, err
	}
	before := codexTrustBefore(edit)
	if prior != nil && prior.CodexTrust != nil && filepath.Clean(prior.Path) == filepath.Clean(edit.path) {
		before = prior.CodexTrust // what the first setup found
	}
	if before != nil {
		edit.note = func(f *InstalledFile) { f.CodexTrust = before }
	}
	return Edits{edit}, nil
}

// codexTrustBefore reads config.toml beside the hooks file for the
// person's records at the keys of runaway's entries as the edit leaves
// them; nil when it does not parse (remove then takes out only records
// that trust runaway's entries as they are).
func codexTrustBefore(edit *hookEdit) *CodexTrustBefore {
	snap, err := configs.ReadSnapshot(configs.CodexConfig(edit.path))
	if err != nil {
		return nil
	}
	if !snap.Exists {
		return &CodexTrustBefore{NoFile: true}
	}
	have, err := configs.CodexTrustRecords(snap.Data)
	if err != nil {
		return nil
	}
	doc, err := configs.ParseDoc(ownfiles.Tilde(edit.path), edit.after, true)
	if err != nil {
		return nil
	}
	entries, err := doc.HookEntries()
	if err != nil {
		return nil
	}
	before := &CodexTrustBefore{}
	for _, k := range codexTrustKeys(edit.path, entries) {
		// A record that trusts runaway's entry as it is now is runaway's
		// own, left by an earlier setup: not the person's.
		if hash, ok := have[k.key]; ok && hash != k.hash {
			before.Keys = append(before.Keys, k.key)
		}
	}
	return before
}

type codexTrustKey struct{ key, hash string }

// codexTrustKeys are the keys and hashes Codex records trust under for
// runaway's entries in the hooks file at path.
func codexTrustKeys(path string, entries []configs.Entry) []codexTrustKey {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil
	}
	var out []codexTrustKey
	for _, e := range entries {
		key, hash := CodexTrust(abs, e)
		out = append(out, codexTrustKey{key, hash})
	}
	return out
}

// unwireCodex takes runaway's entries out of hooks.json and, from
// config.toml beside it, the trust records Codex wrote for them.
func unwireCodex(prior *InstalledFile) (Edits, error) {
	sf := configs.CodexHooks()
	paths := []string{sf.Path}
	if prior != nil && filepath.Clean(prior.Path) != filepath.Clean(sf.Path) {
		paths = append([]string{prior.Path}, paths...)
	}
	// The keys are the entries' places, so they are read before the
	// entries come out.
	var trust Edits
	for _, path := range paths {
		rec := prior
		if prior != nil && filepath.Clean(prior.Path) != filepath.Clean(path) {
			rec = nil
		}
		if e := planTrustRemove(sf, path, rec); e != nil {
			trust = append(trust, e)
		}
	}
	edits, err := unwireSettings(agent.Codex)(prior)
	if err != nil {
		return nil, err
	}
	return append(edits, trust...), nil
}

// planTrustRemove plans taking the trust records of runaway's entries in
// the hooks file at path out of config.toml beside it: the records at
// their keys that were not there before setup (by prior's note), or,
// without a note, those that trust runaway's entries as they are. nil when
// there are none.
func planTrustRemove(sf configs.SettingsFile, path string, prior *InstalledFile) Edit {
	sf.Path = path
	entries, _, err := configs.ReadSettings(sf, ownfiles.Tilde(path))
	if err != nil || len(entries) == 0 {
		return nil // the hooks file's own edit says what is wrong with it
	}
	config := configs.CodexConfig(path)
	snap, err := configs.ReadSnapshot(config)
	if err != nil || !snap.Exists {
		return nil
	}
	keep := func(err error) Edit {
		e := &trustEdit{fileChange: fileChange{path: config, before: snap.Data, after: snap.Data, snap: snap}}
		e.warnings = []string{fmt.Sprintf("%s: %v; Codex's trust records of runaway's entries stay in it", ownfiles.Tilde(config), err)}
		return e
	}
	have, err := configs.CodexTrustRecords(snap.Data)
	if err != nil {
		return keep(fmt.Errorf("it does not parse (%v)", err))
	}
	var before *CodexTrustBefore
	if prior != nil {
		before = prior.CodexTrust
	}
	var want []string
	for _, k := range codexTrustKeys(path, entries) {
		hash, ok := have[k.key]
		switch {
		case !ok:
		case before != nil && !slices.Contains(before.Keys, k.key), before == nil && hash == k.hash:
			want = append(want, k.key)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if err := snap.Writable(); err != nil {
		return keep(err)
	}
	after, cut, err := configs.CutCodexTrust(snap.Data, want)
	if err != nil {
		return keep(err)
	}
	if len(cut) == 0 {
		return nil
	}
	e := &trustEdit{fileChange: fileChange{path: config, before: snap.Data, after: after, snap: snap}, records: len(cut)}
	e.delete = len(after) == 0 && before != nil && before.NoFile
	return e
}

// trustEdit takes Codex's trust records of runaway's entries out of its
// config.toml (the inverse of the person's trust, which setup asked for).
type trustEdit struct {
	fileChange
	records int
}

func (e *trustEdit) Describe() string {
	name := ownfiles.Tilde(e.path)
	switch {
	case e.delete:
		return "delete " + name + " (only Codex's trust records of runaway's entries were in it)"
	case !e.Changed():
		return "keep " + name + " (Codex's trust records of runaway's entries stay)"
	case e.records == 1:
		return "edit " + name + " (take out Codex's trust record of runaway's entry)"
	}
	return fmt.Sprintf("edit %s (take out Codex's trust records of runaway's %d entries)", name, e.records)
}

func (e *trustEdit) record(*Installed) {}

// codexTrustStep is how the person trusts runaway's entries: Codex offers
// its review at startup, and /hooks lists them by their names.
const codexTrustStep = `start codex, choose "Review hooks" where it says "Hooks need review" (or type /hooks), and trust the entries named "runaway: …"`

// checkCodexConfig reads $CODEX_HOME/config.toml: hooks switched off, and
// whether the person trusted runaway's entry. Read-only: runaway never
// writes the trust itself.
func (d *doctor) checkCodexConfig(hooksPath string, entries []trustCheck) {
	path := filepath.Join(configs.CodexDir(), "config.toml")
	name := ownfiles.Tilde(path)
	cfg := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		d.add(StatusFail, "codex-config", "%v", err)
		return
	default:
		if err := toml.Unmarshal(b, &cfg); err != nil {
			d.add(StatusFail, "codex-config", "%s does not parse (%v): Codex will not start; fix it", name, err)
			return
		}
	}
	features, _ := cfg["features"].(map[string]any)
	var off []string
	for _, k := range []string{"hooks", "codex_hooks"} {
		if v, ok := features[k].(bool); ok && !v {
			off = append(off, k+" = false")
		}
	}
	if len(off) > 0 {
		d.add(StatusFail, "codex-hooks-off", "[features] %s in %s: Codex runs no hooks, runaway included; remove it", strings.Join(off, ", "), name)
	} else {
		d.add(StatusOK, "codex-hooks-off", "hooks are on (no [features] hooks = false)")
	}
	if len(entries) == 0 {
		return
	}
	abs, err := filepath.Abs(hooksPath)
	if err != nil {
		d.add(StatusFail, "codex-trust", "%v", err)
		return
	}
	hooks, _ := cfg["hooks"].(map[string]any)
	states, _ := hooks["state"].(map[string]any)
	for _, t := range entries {
		// Each entry has its own key and hash: Codex asks for each in /hooks.
		key, want := CodexTrust(abs, t.entry)
		state, found := states[key].(map[string]any)
		have, _ := state["trusted_hash"].(string)
		which := "runaway's " + t.entry.Event + " entry"
		switch {
		case !found || have == "":
			d.add(StatusWarn, t.check, "%s is not trusted yet, and Codex skips it silently until it is: %s", which, codexTrustStep)
		case state["enabled"] == false:
			d.add(StatusFail, t.check, "%s is switched off in Codex's /hooks: start codex, type /hooks, and switch it on", which)
		case have != want:
			d.add(StatusWarn, t.check, "%s changed since it was trusted (trusted %s, now %s), and Codex skips it until it is trusted again: %s", which, shortHash(have), shortHash(want), codexTrustStep)
		default:
			d.add(StatusOK, t.check, "%s is trusted (%s)", which, key)
		}
	}
}

// trustCheck is one of runaway's Codex entries whose trust doctor checks,
// and the check's name.
type trustCheck struct {
	check string
	entry configs.Entry
}

func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

// codexHandlerIdentity is a command handler as Codex normalizes it before
// hashing: timeout always present, commandWindows dropped. Field order is
// the sorted key order Codex hashes.
type codexHandlerIdentity struct {
	Async         bool   `json:"async"`
	Command       string `json:"command"`
	StatusMessage string `json:"statusMessage,omitempty"`
	Timeout       int64  `json:"timeout"`
	Type          string `json:"type"`
}

type codexHookIdentity struct {
	EventName string                 `json:"event_name"`
	Hooks     []codexHandlerIdentity `json:"hooks"`
	Matcher   *string                `json:"matcher,omitempty"`
}

// codexDefaultTimeout is what Codex fills in for a handler without one.
const codexDefaultTimeout = 600

// CodexTrust is the key under [hooks.state] in Codex's config.toml and the
// trusted_hash Codex stores there for the entry e of the hooks.json at
// absPath (reference/codex.md §1 "Trust"; codex-observed.md §3).
func CodexTrust(absPath string, e configs.Entry) (key, hash string) {
	label := snakeCase(e.Event)
	key = fmt.Sprintf("%s:%s:%d:%d", absPath, label, e.Group, e.Handler)
	timeout := int64(codexDefaultTimeout)
	if e.HasTimeout {
		timeout = int64(e.Timeout)
	}
	id := codexHookIdentity{
		EventName: label,
		Hooks:     []codexHandlerIdentity{{Command: e.Command, StatusMessage: e.StatusMessage, Timeout: timeout, Type: "command"}},
	}
	if e.HasMatcher {
		m := e.Matcher
		id.Matcher = &m
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// serde_json writes <, > and & as they are.
	enc.SetEscapeHTML(false)
	_ = enc.Encode(id)
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return key, "sha256:" + hex.EncodeToString(sum[:])
}

// snakeCase turns an event name into Codex's key label: PreToolUse →
// pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// checkCodexStop says what happens at a stop in Codex (the cap, a loop or
// failure stop), whose hooks cannot end a running turn: runaway interrupts
// the codex process that ran the hook (guard's stop_process.go), unless
// end_agent is off or it cannot find that process, and then every call is
// denied while Codex goes on.
func (d *doctor) checkCodexStop() {
	d.checkProcessStop("codex-stop", "Codex", "codex",
		"exec ends its turn, the TUI exits and runaway repairs its terminal; under codex app-server (IDEs) every call is denied instead")
}

// checkCodexSandbox reads Codex's sandbox_mode: Codex's own sandbox keeps
// its commands from writing outside their writable roots.
func (d *doctor) checkCodexSandbox(f InstalledFile) {
	const check = "codex-protection"
	var cfg struct {
		SandboxMode string `toml:"sandbox_mode"`
		Workspace   struct {
			WritableRoots       []string `toml:"writable_roots"`
			ExcludeSlashTmp     bool     `toml:"exclude_slash_tmp"`
			ExcludeTmpdirEnvVar bool     `toml:"exclude_tmpdir_env_var"`
		} `toml:"sandbox_workspace_write"`
	}
	path := filepath.Join(filepath.Dir(f.Path), "config.toml")
	if b, err := os.ReadFile(path); err == nil {
		if _, err := toml.Decode(string(b), &cfg); err != nil {
			return // checkCodexConfig has said it does not parse
		}
	}
	bypass := "; a run with --dangerously-bypass-approvals-and-sandbox or --sandbox danger-full-access is held by the tamper wire only"
	switch cfg.SandboxMode {
	case "danger-full-access":
		d.add(StatusWarn, check, "guard rail only: sandbox_mode = \"danger-full-access\" in %s lets Codex's commands write anywhere, runaway's files included; only runaway's tamper wire reads them", ownfiles.Tilde(path))
	case "read-only":
		d.add(StatusOK, check, "enforced by Codex: sandbox_mode = \"read-only\" keeps its commands from writing anywhere%s", bypass)
	case "workspace-write", "":
		dirs, files := protectedPaths(d.paths, d.recordedSettings())
		// Besides the workspace and writable_roots, Codex lets commands
		// write /tmp and $TMPDIR unless told not to.
		roots := slices.Clone(cfg.Workspace.WritableRoots)
		if !cfg.Workspace.ExcludeSlashTmp && runtime.GOOS != "windows" {
			roots = append(roots, "/tmp")
		}
		if tmp := os.Getenv("TMPDIR"); tmp != "" && !cfg.Workspace.ExcludeTmpdirEnvVar {
			roots = append(roots, tmp)
		}
		for _, root := range roots {
			for _, p := range append(dirs, files...) {
				if within(p, root) {
					d.add(StatusWarn, check, "guard rail only for %s: it is inside %s, which Codex's commands may write under workspace-write (writable_roots, or /tmp and $TMPDIR unless [sandbox_workspace_write] exclude_slash_tmp and exclude_tmpdir_env_var are set in %s)", ownfiles.Tilde(p), root, ownfiles.Tilde(path))
					return
				}
			}
		}
		mode := "sandbox_mode = \"workspace-write\" keeps its commands"
		if cfg.SandboxMode == "" {
			mode = "no sandbox_mode is set: codex exec runs read-only, and workspace-write keeps commands"
		}
		d.add(StatusOK, check, "enforced by Codex: %s to the workspace, /tmp and its writable roots, which hold none of runaway's files, unless codex starts in a folder that holds them (such as your home)%s", mode, bypass)
	default:
		d.add(StatusWarn, check, "sandbox_mode = %q in %s is not one runaway knows: runaway's files are held by the tamper wire only", cfg.SandboxMode, ownfiles.Tilde(path))
	}
}

// within reports whether path is root or inside it.
func within(path, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
