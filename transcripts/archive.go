package transcripts

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Codex compresses a rollout with zstd only when it archives it
// (archived_sessions/, after 7 days), and decompresses it again when the
// session is resumed: a live session, which is all the hook reads, is
// plain .jsonl. runaway links no zstd decoder (a library's init would run
// on every tool call, and the project carries no copied code): the hook
// treats a .zst as not readable here, and `runaway replay` reads one
// through the system's zstd.

// Unzstd opens the decompressed content of a .zst session file. It is nil
// in the hook, where a .zst gives a *CompressedError; replay sets it to
// SystemUnzstd.
var Unzstd func(path string) (io.ReadCloser, error)

// CompressedError: a .zst session file that cannot be read here. Its
// message leaves the path to the caller, which names it already.
type CompressedError struct {
	Path string
	Why  string // "the hook reads no archives", "zstd is not installed"
}

func (e *CompressedError) Error() string {
	return "a compressed archived rollout (" + e.Why + ")"
}

func isCompressed(path string) bool { return strings.HasSuffix(path, ".zst") }

// openCompressed opens path's decompressed content through Unzstd.
func openCompressed(path string) (io.ReadCloser, error) {
	if Unzstd == nil {
		return nil, &CompressedError{Path: path, Why: "the hook reads no archives"}
	}
	return Unzstd(path)
}

// SystemUnzstd decompresses path with the system's `zstd -dc`. A corrupt
// archive ends its output in an error that carries zstd's own words.
func SystemUnzstd(path string) (io.ReadCloser, error) {
	prog, err := exec.LookPath("zstd")
	if err != nil {
		return nil, &CompressedError{Path: path, Why: "zstd is not installed"}
	}
	cmd := exec.Command(prog, "-dc", "--", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	z := &zstdOutput{cmd: cmd, out: out}
	cmd.Stderr = &z.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("decompressing %s: %w", path, err)
	}
	return z, nil
}

// zstdOutput reads a running zstd's output; at its end it waits for zstd
// and gives its failure as the read's error.
type zstdOutput struct {
	cmd    *exec.Cmd
	out    io.ReadCloser
	stderr bytes.Buffer
	done   bool
	err    error
}

func (z *zstdOutput) Read(p []byte) (int, error) {
	n, err := z.out.Read(p)
	if errors.Is(err, io.EOF) {
		if werr := z.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (z *zstdOutput) wait() error {
	if !z.done {
		z.done = true
		if err := z.cmd.Wait(); err != nil {
			msg := strings.TrimSpace(z.stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			z.err = fmt.Errorf("zstd -dc %s: %s", z.cmd.Args[len(z.cmd.Args)-1], msg)
		}
	}
	return z.err
}

// Close stops zstd if the reader stopped before the end.
func (z *zstdOutput) Close() error {
	if !z.done && z.cmd.Process != nil {
		_ = z.cmd.Process.Kill()
	}
	z.out.Close()
	z.wait()
	return nil
}
