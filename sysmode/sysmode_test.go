package sysmode

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRealLayoutIsFixed(t *testing.T) {
	// Nothing in the environment moves the real install.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	l := Real()
	if l.Root != "/" || l.Owner != 0 {
		t.Fatalf("Real() = %+v", l)
	}
	want := map[string][3]string{
		"linux":  {"/etc/runaway/config.json", "/var/lib/runaway", "/usr/local/bin/runaway"},
		"darwin": {"/Library/Application Support/runaway/config.json", "/Library/Application Support/runaway/state", "/usr/local/bin/runaway"},
	}
	for goos, w := range want {
		l := Layout{Root: "/", GOOS: goos}
		if got := [3]string{l.ConfigFile(), l.StateDir(), l.Bin()}; got != w {
			t.Errorf("%s: %v, want %v", goos, got, w)
		}
	}
}

func TestCheck(t *testing.T) {
	root := t.TempDir()
	l := Layout{Root: root, GOOS: "linux", Owner: os.Getuid()}
	gid := os.Getgid()
	os.MkdirAll(l.StateDir(), 0o700)
	os.Chmod(l.StateDir(), 0o770|fs.ModeSetgid)
	w := Want{Path: l.StateDir(), Dir: true, Mode: 0o770 | fs.ModeSetgid, Gid: gid}
	if err := l.Check(w); err != nil {
		t.Fatalf("a good state folder: %v", err)
	}
	os.Chmod(l.StateDir(), 0o777|fs.ModeSetgid)
	if err := l.Check(w); err == nil || !strings.Contains(err.Error(), "mode 2777, want 2770") {
		t.Errorf("others can write: %v", err)
	}
	os.Chmod(l.StateDir(), 0o770|fs.ModeSetgid)
	// A folder above it that others can write.
	os.Chmod(filepath.Join(root, "var"), 0o777)
	if err := l.Check(w); err == nil || !strings.Contains(err.Error(), "can be written by others") {
		t.Errorf("an open parent: %v", err)
	}
	os.Chmod(filepath.Join(root, "var"), 0o755)
	// A link in the state folder's place.
	os.Rename(l.StateDir(), l.StateDir()+".real")
	os.Symlink(l.StateDir()+".real", l.StateDir())
	if err := l.Check(w); err == nil || !strings.Contains(err.Error(), "is a link") {
		t.Errorf("a link: %v", err)
	}
	// Another owner.
	other := Layout{Root: root, GOOS: "linux", Owner: os.Getuid() + 1}
	if err := other.Check(Want{Path: filepath.Join(root, "var"), Dir: true, Mode: 0o755, Gid: -1}); err == nil || !strings.Contains(err.Error(), "owned by uid") {
		t.Errorf("another owner: %v", err)
	}
}

func TestInstalled(t *testing.T) {
	l := Layout{Root: t.TempDir(), GOOS: "linux"}
	if l.Installed() {
		t.Fatal("installed with no config")
	}
	os.MkdirAll(l.ConfigDir(), 0o755)
	os.WriteFile(l.ConfigFile(), nil, 0o644)
	if !l.Installed() {
		t.Fatal("not installed with a config")
	}
}
