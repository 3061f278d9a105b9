package ownfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesWithMode(t *testing.T) {
	for _, d := range []Durability{Durable, Fast} {
		dir := t.TempDir()
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(path, []byte("new"), 0o600, d); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(path)
		if b, _ := os.ReadFile(path); string(b) != "new" || fi.Mode().Perm() != 0o600 {
			t.Errorf("durability %d: %q %v", d, b, fi.Mode())
		}
		if err := WriteFile(path, []byte("bin"), 0o755, d); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o755 {
			t.Errorf("durability %d: mode %v, want 0755", d, fi.Mode())
		}
		// No temp file is left behind.
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("durability %d: %d files in the folder", d, len(ents))
		}
	}
}

func TestWriteFileRefusesAFolder(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(dir, []byte("x"), 0o600, Durable)
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("writing over a folder: %v", err)
	}
}
