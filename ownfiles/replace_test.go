package ownfiles

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWindowsSharingError(t *testing.T) {
	for errno, want := range map[syscall.Errno]bool{5: true, 32: true, 2: false, 3: false} {
		err := &os.LinkError{Op: "rename", Old: "a", New: "b", Err: errno}
		if got := windowsSharingError(err); got != want {
			t.Errorf("errno %d: %v, want %v", errno, got, want)
		}
	}
}

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "new"), filepath.Join(dir, "state.json")
	os.WriteFile(from, []byte("new"), 0o600)
	os.WriteFile(to, []byte("old"), 0o600)
	// A reader holding the old file open does not stop the replace.
	r, err := os.Open(to)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Replace(from, to); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(to); string(b) != "new" {
		t.Fatalf("got %q", b)
	}
	// A missing source is no transient error: it fails at once.
	if err := Replace(filepath.Join(dir, "missing"), to); err == nil {
		t.Fatal("renamed a missing file")
	}
}
