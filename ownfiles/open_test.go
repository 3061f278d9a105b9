//go:build unix

package ownfiles

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRegularRefusesWhatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		dir: "open " + dir + ": not a regular file (a folder)",
		// Nobody writes to it: a blocking open would never return.
		fifo:        "open " + fifo + ": not a regular file (a named pipe)",
		"/dev/null": "open /dev/null: not a regular file (a device)",
	}
	for path, want := range cases {
		f, err := OpenRegular(path, os.O_RDONLY, 0)
		if f != nil || err == nil || err.Error() != want || !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, fi, err := OpenRegularInfo(file, os.O_RDONLY, 0)
	if err != nil || fi.Size() != 1 {
		t.Fatalf("regular file: %v %v", fi, err)
	}
	f.Close()
}
