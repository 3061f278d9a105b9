package installer

import (
	"fmt"
	"path/filepath"
	"slices"

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
