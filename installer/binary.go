package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
)

// BinaryStep installs the running runaway at the stable path the hook
// entries name ($XDG_BIN_HOME/runaway), never a `go run` temp path or a
// package manager's versioned folder.
type BinaryStep struct {
	From, To string
	// Skip: the file there is already this binary, byte for byte.
	Skip bool
	// Upgrade: a different runaway is there and gets replaced.
	Upgrade bool
}

// runningExecutable is the running program's real path.
func runningExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the running runaway: %w", err)
	}
	return filepath.EvalSymlinks(exe)
}

func planBinary(from, to string) (BinaryStep, error) {
	step := BinaryStep{From: from, To: to}
	if real, err := filepath.EvalSymlinks(to); err == nil && real == from {
		step.Skip = true
		return step, nil
	}
	have, err := os.ReadFile(to)
	if errors.Is(err, fs.ErrNotExist) {
		return step, nil
	}
	if err != nil {
		return step, err
	}
	want, err := os.ReadFile(from)
	if err != nil {
		return step, fmt.Errorf("reading the running runaway: %w", err)
	}
	step.Skip = bytes.Equal(have, want)
	step.Upgrade = !step.Skip
	return step, nil
}

// apply copies the binary into place through a temp file and a rename, so
// a hook starting at that moment runs either the old or the new binary,
// never half of one.
func (b BinaryStep) apply() error {
	if b.Skip {
		return nil
	}
	data, err := os.ReadFile(b.From)
	if err != nil {
		return fmt.Errorf("reading the running runaway: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(b.To), 0o755); err != nil {
		return fmt.Errorf("installing runaway: %w", err)
	}
	if err := installBinary(b.To, data, runtime.GOOS == "windows"); err != nil {
		return fmt.Errorf("installing runaway at %s: %w", b.To, err)
	}
	return nil
}

// installBinary puts data at path atomically. With moveAside (Windows,
// where a running program cannot be replaced or deleted, only renamed),
// the old binary is first renamed to path.old-<time>, which hooks still
// running keep using; the new one is then renamed into place. Asides of
// earlier upgrades are removed once nothing runs them.
func installBinary(path string, data []byte, moveAside bool) error {
	defer removeAsides(path)
	if !moveAside {
		return ownfiles.WriteFile(path, data, 0o755, ownfiles.Durable)
	}
	fresh := path + ".new"
	if err := ownfiles.WriteFile(fresh, data, 0o755, ownfiles.Durable); err != nil {
		return err
	}
	aside := fmt.Sprintf("%s.old-%d", path, time.Now().UnixNano())
	moved := os.Rename(path, aside) == nil
	if err := ownfiles.Replace(fresh, path); err != nil {
		if moved {
			_ = os.Rename(aside, path)
		}
		_ = os.Remove(fresh)
		return err
	}
	return nil
}

// removeAsides deletes the binaries earlier upgrades moved aside; one a
// hook still runs stays until the next setup.
func removeAsides(path string) {
	old, _ := filepath.Glob(path + ".old-*")
	for _, o := range old {
		_ = os.Remove(o)
	}
}
