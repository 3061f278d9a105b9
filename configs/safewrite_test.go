package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustWrite(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles fails when dir holds anything but names (no temp files left).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
}

func TestWriteThroughSymlinkKeepsModeAndBacksUpOnce(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "dotfiles")
	os.Mkdir(realDir, 0o755)
	real := filepath.Join(realDir, "settings.json")
	mustWrite(t, real, "{}\n", 0o640)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink("dotfiles/settings.json", link); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSnapshot(link)
	if err != nil || s.Real != real || !s.Exists || s.Mode != 0o640 {
		t.Fatalf("snapshot %+v, %v", s, err)
	}
	if err := WriteFile(s, []byte("{\"a\": 1}\n")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if got := readString(t, real); got != "{\"a\": 1}\n" {
		t.Fatalf("real file holds %q", got)
	}
	if info, _ := os.Stat(real); info.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", info.Mode())
	}
	if got := readString(t, real+BackupSuffix); got != "{}\n" {
		t.Fatalf("backup holds %q", got)
	}
	// A second write keeps the first backup.
	s2, _ := ReadSnapshot(link)
	if err := WriteFile(s2, []byte("{\"a\": 2}\n")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, real+BackupSuffix); got != "{}\n" {
		t.Fatalf("backup overwritten: %q", got)
	}
	onlyFiles(t, realDir, "settings.json", "settings.json"+BackupSuffix)
}

func TestWriteRefusesWhenFileChangedSinceRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.json")
	mustWrite(t, path, "{}", 0o600)
	s, _ := ReadSnapshot(path)
	mustWrite(t, path, "{\"theirs\": true}", 0o600)
	err := WriteFile(s, []byte("{\"ours\": true}"))
	if err == nil || !strings.Contains(err.Error(), "changed while runaway was editing it") {
		t.Fatalf("got %v", err)
	}
	if got := readString(t, path); got != "{\"theirs\": true}" {
		t.Fatalf("file now %q", got)
	}
}

func TestWriteRefusesReadOnly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	mustWrite(t, path, "{}", 0o444)
	s, _ := ReadSnapshot(path)
	if err := WriteFile(s, []byte("{\"x\":1}")); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only file: %v", err)
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	s, _ = ReadSnapshot(filepath.Join(ro, "settings.json"))
	if err := WriteFile(s, []byte("{}")); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only folder: %v", err)
	}
	onlyFiles(t, ro)
}

func TestWriteNewFileAndRemoveIt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.json")
	s, err := ReadSnapshot(path)
	if err != nil || s.Exists {
		t.Fatalf("%+v %v", s, err)
	}
	if err := WriteFile(s, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v", info.Mode())
	}
	onlyFiles(t, dir, "hooks.json") // no backup of a file that did not exist
	s2, _ := ReadSnapshot(path)
	if err := RemoveFile(s2); err != nil {
		t.Fatal(err)
	}
	onlyFiles(t, dir)
}
