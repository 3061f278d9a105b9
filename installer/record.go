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

	"github.com/runaway-guard/runaway/configs"
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
	Harness string `json:"harness"`
	Path    string `json:"path"`
	// Command is the hook command setup wrote.
	Command string `json:"command"`
	// SHA256 is the hash of the file's bytes right after setup wrote them.
	SHA256 string `json:"sha256"`
	// CreatedFile: the file did not exist before setup.
	CreatedFile bool `json:"created_file,omitempty"`
	// CreatedDirs are folders setup made for it, deepest first.
	CreatedDirs []string `json:"created_dirs,omitempty"`
	// Undo is what the insert created, so remove can give the bytes back.
	Undo configs.Undo `json:"undo"`
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

// File returns the record of the harness's file, or nil.
func (r *Installed) File(harness string) *InstalledFile {
	if r == nil {
		return nil
	}
	for i := range r.Files {
		if r.Files[i].Harness == harness {
			return &r.Files[i]
		}
	}
	return nil
}

// put replaces or adds the record of f's harness.
func (r *Installed) put(f InstalledFile) {
	if old := r.File(f.Harness); old != nil {
		*old = f
		return
	}
	r.Files = append(r.Files, f)
}

// drop removes the record of a harness's file.
func (r *Installed) drop(harness string) {
	for i := range r.Files {
		if r.Files[i].Harness == harness {
			r.Files = append(r.Files[:i], r.Files[i+1:]...)
			return
		}
	}
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
	return configs.AtomicWrite(path, append(b, '\n'), 0o600)
}
