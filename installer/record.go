package installer

import (
	"crypto/sha256"
	"encoding/hex"
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
)

// Installed is setup's record of what it wrote, kept in
// $XDG_STATE_HOME/runaway/installed.json. remove uses it to undo setup
// exactly; doctor uses it to tell whether someone changed a file since.
type Installed struct {
	Version int `json:"version"`
	// Binary is the installed runaway that the hook entries run.
	Binary string `json:"binary"`
	// Config is runaway's config file.
	Config string          `json:"config,omitempty"`
	Files  []InstalledFile `json:"files"`
}

// InstalledFile is one settings file setup wrote runaway's entry into.
type InstalledFile struct {
	Harness agent.ID `json:"harness"`
	Path    string   `json:"path"`
	// Project: a project's settings file (setup --project), kept next to
	// the harness's user file rather than in its place.
	Project bool `json:"project,omitempty"`
	// Command is the hook command setup wrote.
	Command string `json:"command"`
	// SHA256 is the hash of the file's bytes right after setup wrote them.
	SHA256 string `json:"sha256"`
	// CreatedFile: the file did not exist before setup.
	CreatedFile bool `json:"created_file,omitempty"`
	// CreatedDirs are folders setup made for it, deepest first.
	CreatedDirs []string `json:"created_dirs,omitempty"`
	// Undos are what the inserts created (one per entry, in the order
	// made), so remove can give the bytes back.
	Undos []configs.Undo `json:"undos,omitempty"`
	// Undo is the one insert of records written before setup wrote a
	// UserPromptSubmit entry too; read only.
	Undo *configs.Undo `json:"undo,omitempty"`
	// Rules are the agent's own deny rules setup added to this file.
	Rules *configs.RulesUndo `json:"agent_rules,omitempty"`
	// Support are files setup created beside it (OpenCode's package-lock.json).
	Support []SupportFile `json:"support,omitempty"`
	// CodexTrust is what Codex's config.toml held when setup first wrote
	// this hooks file: remove takes out only the trust records Codex
	// added for runaway's entries since.
	CodexTrust *CodexTrustBefore `json:"codex_trust,omitempty"`
}

// CodexTrustBefore is Codex's config.toml before setup: whether there was
// one, and the trust records it already had at the keys runaway's entries
// took.
type CodexTrustBefore struct {
	NoFile bool     `json:"no_file,omitempty"`
	Keys   []string `json:"keys,omitempty"`
}

// AllUndos are the inserts' undo records, in the order made.
func (f *InstalledFile) AllUndos() []configs.Undo {
	if f == nil {
		return nil
	}
	if len(f.Undos) == 0 && f.Undo != nil {
		return []configs.Undo{*f.Undo}
	}
	return f.Undos
}

// undoFor is the earlier insert's undo record for an event, or nil.
func (f *InstalledFile) undoFor(event string) *configs.Undo {
	for _, u := range f.AllUndos() {
		if u.Event == event {
			return &u
		}
	}
	return nil
}

const recordVersion = 1

// HashBytes is the hash format of InstalledFile.SHA256.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ReadInstalled reads the record; a missing file is (nil, nil).
func ReadInstalled(path string) (*Installed, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Installed
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &r, nil
}

// File returns the record of the harness's user settings file, or nil.
func (r *Installed) File(harness agent.ID) *InstalledFile {
	return r.find(func(f InstalledFile) bool { return f.Harness == harness && !f.Project })
}

// ProjectFile returns the record of a project settings file, or nil.
func (r *Installed) ProjectFile(path string) *InstalledFile {
	return r.find(func(f InstalledFile) bool { return f.Project && filepath.Clean(f.Path) == filepath.Clean(path) })
}

// Projects lists the project settings files recorded.
func (r *Installed) Projects() []InstalledFile {
	if r == nil {
		return nil
	}
	var out []InstalledFile
	for _, f := range r.Files {
		if f.Project {
			out = append(out, f)
		}
	}
	return out
}

func (r *Installed) find(match func(InstalledFile) bool) *InstalledFile {
	if r == nil {
		return nil
	}
	for i := range r.Files {
		if match(r.Files[i]) {
			return &r.Files[i]
		}
	}
	return nil
}

// put replaces or adds the record of f's file.
func (r *Installed) put(f InstalledFile) {
	old := r.File(f.Harness)
	if f.Project {
		old = r.ProjectFile(f.Path)
	}
	if old != nil {
		*old = f
		return
	}
	r.Files = append(r.Files, f)
}

// drop removes the record of a harness's user settings file.
func (r *Installed) drop(harness agent.ID) {
	r.Files = slices.DeleteFunc(r.Files, func(f InstalledFile) bool { return f.Harness == harness && !f.Project })
}

// dropProject removes the record of a project settings file.
func (r *Installed) dropProject(path string) {
	r.Files = slices.DeleteFunc(r.Files, func(f InstalledFile) bool { return f.Project && filepath.Clean(f.Path) == filepath.Clean(path) })
}

// write saves the record (0600: the state folder is private).
func (r *Installed) write(path string) error {
	r.Version = recordVersion
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return ownfiles.WriteFile(path, append(b, '\n'), 0o600, ownfiles.Durable)
}
