package ownfiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLogsAreBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.log")
	line := []byte(strings.Repeat("x", 99) + "\n")
	for range 100 {
		if err := appendBounded(path, line, 1000); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > 1000 {
			t.Fatalf("%s: %v %v", p, fi, err)
		}
	}
}

// Doctor shows each error once: the mark survives a rotation and lines of
// the same second are told apart by their count.
func TestUnreadErrorsAfterMark(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, ErrorLogName)
	os.WriteFile(log+".1", []byte("2026-01-01T00:00:00Z a\n2026-01-01T00:00:01Z b\n"), 0o600)
	os.WriteFile(log, []byte("2026-01-01T00:00:01Z c\n"), 0o600)
	fresh, mark := UnreadErrors(dir)
	if strings.Join(fresh, "|") != "2026-01-01T00:00:00Z a|2026-01-01T00:00:01Z b|2026-01-01T00:00:01Z c" || mark.Count != 2 {
		t.Fatalf("unread %q, mark %+v", fresh, mark)
	}
	if err := MarkErrorsRead(dir, mark); err != nil {
		t.Fatal(err)
	}
	if fresh, _ := UnreadErrors(dir); len(fresh) != 0 {
		t.Fatalf("after the mark: %q", fresh)
	}
	os.WriteFile(log, []byte("2026-01-01T00:00:01Z c\n2026-01-01T00:00:01Z d\n"), 0o600)
	if fresh, _ := UnreadErrors(dir); strings.Join(fresh, "|") != "2026-01-01T00:00:01Z d" {
		t.Fatalf("a new line of the same second: %q", fresh)
	}
}
