package ownfiles

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Durability says what a write survives.
type Durability int

const (
	// Durable survives a crash or power loss: the file and its folder are
	// synced. For the files a person keeps: settings, config, the binary,
	// setup's record.
	Durable Durability = iota
	// Fast is atomic but not synced: a crash may lose it (never half of
	// it). For the hook's per-call state, written on every tool call,
	// where an fsync would cost more than the call, and a lost file is
	// only recounted from the transcripts.
	Fast
)

// WriteFile replaces path with data atomically: a reader sees the old file
// or the new one, never half of one. It writes a temp file in the same
// folder with mode perm and renames it over path. A symlink at path is
// replaced (callers that mean to write through one resolve it first);
// folders, devices and pipes are refused.
func WriteFile(path string, data []byte, perm fs.FileMode, d Durability) (err error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
		return &fs.PathError{Op: "write", Path: path, Err: notRegular{info.Mode()}}
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// CreateTemp made it 0600, which Fast's callers want.
	if perm != 0o600 {
		if err = f.Chmod(perm); err != nil {
			return err
		}
	}
	if d == Durable {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = Replace(f.Name(), path); err != nil {
		return err
	}
	if d == Durable {
		if folder, err := os.Open(dir); err == nil {
			folder.Sync()
			folder.Close()
		}
	}
	return nil
}
