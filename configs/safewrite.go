package configs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runaway-guard/runaway/ownfiles"
)

// BackupSuffix names the one-time copy of a file kept before runaway first
// writes to it: settings.json → settings.json.runaway-backup.
const BackupSuffix = ".runaway-backup"

// Snapshot is a file as it was read before an edit: the write that follows
// refuses to go ahead if the file changed in between.
type Snapshot struct {
	Path   string // as given (maybe a symlink)
	Real   string // the file the symlinks lead to; writes go here
	Data   []byte
	Exists bool
	Mode   fs.FileMode
}

// ReadSnapshot reads path, following symlinks. A missing file is an empty
// snapshot, not an error.
func ReadSnapshot(path string) (Snapshot, error) {
	s := Snapshot{Path: path, Real: path, Mode: 0o600}
	real, err := resolve(path)
	if err != nil {
		return s, err
	}
	s.Real = real
	info, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	if !info.Mode().IsRegular() {
		return s, fmt.Errorf("%s is not a regular file", path)
	}
	s.Data, err = os.ReadFile(real)
	if err != nil {
		return s, err
	}
	s.Exists, s.Mode = true, info.Mode().Perm()
	return s, nil
}

// resolve follows symlinks to the real file, also when the last link's
// target does not exist yet (the write then creates the target).
func resolve(path string) (string, error) {
	for range 40 {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return path, err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return path, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// Writable reports why the snapshot's file cannot be written, or nil. The
// mode bits are checked too, so a file or folder someone made read-only
// (a home-manager link into a read-only store, chmod a-w) is respected
// even by root.
func (s Snapshot) Writable() error {
	dir := filepath.Dir(s.Real)
	if s.Exists {
		if s.Mode&0o222 == 0 {
			return fmt.Errorf("%s is read-only", s.Real)
		}
	}
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // created on write
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if info.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("folder %s is read-only", dir)
	}
	return nil
}

// Changed reports whether the file on disk is no longer what was read.
func (s Snapshot) Changed() (bool, error) {
	now, err := ReadSnapshot(s.Path)
	if err != nil {
		return false, err
	}
	return now.Exists != s.Exists || !bytes.Equal(now.Data, s.Data), nil
}

// WriteFile replaces the snapshot's file with data: through symlinks to the
// real file, with the same mode, via a temp file in the same folder and a
// rename, so a reader never sees half a file. Before the first write to an
// existing file a backup is kept next to it. It refuses when the file
// changed since the snapshot was read.
func WriteFile(s Snapshot, data []byte) error { return writeFile(s, data, true) }

// WriteOwnFile is WriteFile without the backup, for runaway's own files.
func WriteOwnFile(s Snapshot, data []byte) error { return writeFile(s, data, false) }

func writeFile(s Snapshot, data []byte, backup bool) error {
	if err := s.Writable(); err != nil {
		return err
	}
	changed, err := s.Changed()
	if err != nil {
		return err
	}
	if changed {
		return fmt.Errorf("%s changed while runaway was editing it; nothing was written", s.Path)
	}
	if s.Exists && backup {
		backup := s.Real + BackupSuffix
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			if err := ownfiles.WriteFile(backup, s.Data, s.Mode, ownfiles.Durable); err != nil {
				return fmt.Errorf("backing up %s: %w", s.Path, err)
			}
		}
	}
	return ownfiles.WriteFile(s.Real, data, s.Mode, ownfiles.Durable)
}

// RemoveFile deletes the snapshot's file (the real one, and the link to it),
// unless it changed since it was read.
func RemoveFile(s Snapshot) error {
	changed, err := s.Changed()
	if err != nil {
		return err
	}
	if changed {
		return fmt.Errorf("%s changed while runaway was editing it; nothing was removed", s.Path)
	}
	if err := os.Remove(s.Real); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if s.Real != s.Path {
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
