package installer

import (
	"os"
	"path/filepath"
	"testing"
)

// The Windows way of replacing a running binary, run on any OS: the old one
// is renamed aside first, the new one takes its name, asides are removed.
func TestInstallBinaryMovesAside(t *testing.T) {
	for _, moveAside := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "runaway.exe")
		write(t, path, "v1")
		write(t, path+".old-123", "v0, left by an earlier upgrade")
		// A process holding the old binary open (as a running program does)
		// keeps reading the old bytes.
		running, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := installBinary(path, []byte("v2"), moveAside); err != nil {
			t.Fatal(err)
		}
		if got := read(t, path); got != "v2" {
			t.Errorf("moveAside %v: installed %q", moveAside, got)
		}
		if info, _ := os.Stat(path); info.Mode().Perm() != 0o755 {
			t.Errorf("mode %v", info.Mode())
		}
		old := make([]byte, 2)
		if _, err := running.ReadAt(old, 0); err != nil || string(old) != "v1" {
			t.Errorf("the running binary changed under it: %q %v", old, err)
		}
		running.Close()
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(left) != 1 {
			t.Errorf("moveAside %v: left %q", moveAside, left)
		}
	}
}

func TestInstallBinaryFreshPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runaway.exe")
	if err := installBinary(path, []byte("v1"), true); err != nil || read(t, path) != "v1" {
		t.Fatalf("%v", err)
	}
}
