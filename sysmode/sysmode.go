// Package sysmode is runaway's system install: where its root-owned files
// live on each OS, whether a system install is in force, and the few
// privilege operations the setgid hook needs. It is security code: it reads
// no environment variable and follows no link. Every layer may import it;
// it imports nothing of ours.
package sysmode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Layout is where a system install keeps its files. The real install is
// Real(); tests make one under a temp folder. Nothing reads it from the
// environment: an agent's user must not be able to move it.
type Layout struct {
	Root  string // "/" for the real install
	GOOS  string
	Owner int // the uid that owns the install: 0 (root)
}

// Real is the system install on this machine.
func Real() Layout { return Layout{Root: "/", GOOS: runtime.GOOS, Owner: 0} }

// Path is a path under the layout's root.
func (l Layout) Path(parts ...string) string { return l.join(parts...) }

func (l Layout) join(parts ...string) string {
	return filepath.Join(append([]string{l.Root}, parts...)...)
}

// ConfigDir is the root-owned folder of config.json and setup's record:
//
//   - Linux: /etc/runaway
//   - macOS: /Library/Application Support/runaway (where the agents keep
//     their own managed settings; /etc is a link to /private/etc there)
//   - Windows (design only): %ProgramData%\runaway with an ACL that lets
//     only Administrators and SYSTEM write.
func (l Layout) ConfigDir() string {
	switch l.GOOS {
	case "darwin":
		return l.join("Library", "Application Support", "runaway")
	case "windows":
		return l.join("ProgramData", "runaway")
	}
	return l.join("etc", "runaway")
}

// ConfigFile is the system config: the limits every session obeys.
func (l Layout) ConfigFile() string { return filepath.Join(l.ConfigDir(), "config.json") }

// RecordFile is setup's record of what it wrote, for an exact remove.
func (l Layout) RecordFile() string { return filepath.Join(l.ConfigDir(), "installed.json") }

// StateDir is the folder of spend counted, stops, allowances and the daily
// ledger: root-owned, writable by the Group only (which the hook holds
// through the program's setgid bit).
//
//   - Linux: /var/lib/runaway
//   - macOS: /Library/Application Support/runaway/state (/var is a link to
//     /private/var there)
//   - Windows (design only): %ProgramData%\runaway\state, written by a
//     service on a named pipe, as Windows has no setgid.
func (l Layout) StateDir() string {
	switch l.GOOS {
	case "darwin", "windows":
		return filepath.Join(l.ConfigDir(), "state")
	}
	return l.join("var", "lib", "runaway")
}

// Bin is the root-owned program the agents' managed hook entries run.
func (l Layout) Bin() string {
	if l.GOOS == "windows" {
		return l.join("Program Files", "runaway", "runaway.exe")
	}
	return l.join("usr", "local", "bin", "runaway")
}

// Group owns the state folder; the program is setgid to it. macOS names
// system groups with a leading underscore.
func (l Layout) Group() string {
	if l.GOOS == "darwin" {
		return "_runaway"
	}
	return "runaway"
}

// StateSubdirs are the folders under StateDir that setup makes (so that no
// hook makes one owned by its user).
var StateSubdirs = []string{"sessions", "daily"}

// Installed reports whether a system install is in force: its config file
// is there. Any answer but "it is not there" counts as installed, so that
// an error never turns system mode off.
func (l Layout) Installed() bool {
	_, err := os.Lstat(l.ConfigFile())
	return !errors.Is(err, fs.ErrNotExist)
}

// Want is what one of the install's paths must be.
type Want struct {
	Path string
	Dir  bool
	// Mode is the permission bits, setgid and sticky bits included.
	Mode fs.FileMode
	// Group, when set, is the gid that must own it (-1: any).
	Gid int
}

// Wants lists every path of the install with the mode it must have; gid is
// the Group's id.
func (l Layout) Wants(gid int) []Want {
	w := []Want{
		{Path: l.ConfigDir(), Dir: true, Mode: 0o755, Gid: -1},
		{Path: l.ConfigFile(), Mode: 0o644, Gid: -1},
		{Path: l.Bin(), Mode: 0o755 | fs.ModeSetgid, Gid: gid},
		{Path: l.StateDir(), Dir: true, Mode: 0o770 | fs.ModeSetgid, Gid: gid},
	}
	for _, d := range StateSubdirs {
		w = append(w, Want{Path: filepath.Join(l.StateDir(), d), Dir: true, Mode: 0o770 | fs.ModeSetgid, Gid: gid})
	}
	return w
}

// Check says what is wrong with one path of the install: not there, a
// link, the wrong kind, another owner, the wrong mode or group; and every
// folder above it must be the owner's and writable by nobody else.
func (l Layout) Check(w Want) error {
	fi, err := os.Lstat(w.Path)
	if err != nil {
		return err
	}
	if err := l.owned(w.Path, fi, w.Gid); err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a link", w.Path)
	case w.Dir != fi.IsDir() || !w.Dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a %s", w.Path, map[bool]string{true: "folder", false: "regular file"}[w.Dir])
	}
	if got := fi.Mode() & (fs.ModePerm | fs.ModeSetgid | fs.ModeSetuid | fs.ModeSticky); got != w.Mode {
		return fmt.Errorf("%s has mode %s, want %s", w.Path, modeString(got), modeString(w.Mode))
	}
	return l.parentsSafe(filepath.Dir(w.Path), w.Gid)
}

// parentsSafe checks every folder from dir up to the root: a folder
// another user can write lets that user swap what is below it. The
// install's own group (gid) may write the state folder above its
// subfolders.
func (l Layout) parentsSafe(dir string, gid int) error {
	for {
		fi, err := os.Lstat(dir)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a link", dir)
		}
		if err := l.owned(dir, fi, -1); err != nil {
			return err
		}
		// A sticky folder (/tmp, for tests) lets others write but not
		// replace what is not theirs.
		writable := fi.Mode() & 0o022
		if gid >= 0 && l.owned(dir, fi, gid) == nil {
			writable &^= 0o020
		}
		if writable != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("%s can be written by others (mode %s)", dir, modeString(fi.Mode()&fs.ModePerm))
		}
		up := filepath.Dir(dir)
		if up == dir || dir == filepath.Clean(l.Root) {
			return nil
		}
		dir = up
	}
}

func modeString(m fs.FileMode) string {
	s := fmt.Sprintf("%04o", uint32(m&fs.ModePerm))
	if m&fs.ModeSetgid != 0 {
		s = fmt.Sprintf("%04o", uint32(m&fs.ModePerm)|0o2000)
	}
	return s
}
