package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runaway-guard/runaway/configs"
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
	if err := configs.AtomicWrite(b.To, data, 0o755); err != nil {
		return fmt.Errorf("installing runaway at %s: %w", b.To, err)
	}
	return nil
}
