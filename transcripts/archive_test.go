package transcripts

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// withSystemUnzstd reads .zst files as replay does, for one test.
func withSystemUnzstd(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("zstd is not installed: archived rollouts are read through it")
	}
	Unzstd = SystemUnzstd
	t.Cleanup(func() { Unzstd = nil })
}

func compress(t *testing.T, data []byte, level kzstd.EncoderLevel) []byte {
	t.Helper()
	var z bytes.Buffer
	w, err := kzstd.NewWriter(&z, kzstd.WithEncoderLevel(level))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return z.Bytes()
}

// The system's zstd gives back every real rollout as klauspost's encoder
// compressed it, at the level Codex archives with (3) and at the best.
func TestSystemUnzstdReadsRealRollouts(t *testing.T) {
	withSystemUnzstd(t)
	files := jsonlFiles(t, filepath.Join(realFixtures(t), "codex"))
	if len(files) == 0 {
		t.Fatal("no Codex fixtures")
	}
	dir := t.TempDir()
	for _, level := range []kzstd.EncoderLevel{kzstd.SpeedDefault, kzstd.SpeedBestCompression} {
		for _, p := range files {
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			zst := filepath.Join(dir, "rollout.jsonl.zst")
			if err := os.WriteFile(zst, compress(t, want, level), 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := SystemUnzstd(zst)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s (level %v): %d bytes back of %d, err %v", p, level, len(got), len(want), err)
			}
		}
	}
}

// A corrupt archive is an error with zstd's own words, not a short read.
func TestSystemUnzstdCorruptArchive(t *testing.T) {
	withSystemUnzstd(t)
	zst := filepath.Join(t.TempDir(), "rollout.jsonl.zst")
	data := compress(t, bytes.Repeat([]byte(`{"type":"x"}`+"\n"), 1000), kzstd.SpeedDefault)
	if err := os.WriteFile(zst, data[:len(data)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := SystemUnzstd(zst)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadAll(r); err == nil {
		t.Fatal("half an archive read without error")
	}
}

// The hook reads no archive: a .zst is an error saying so, and is not
// opened through any decompressor; without zstd, replay says that instead.
func TestCompressedNotReadableInTheHook(t *testing.T) {
	zst := filepath.Join(t.TempDir(), "rollout-x.jsonl.zst")
	if err := os.WriteFile(zst, compress(t, []byte(`{"type":"session_meta","payload":{}}`+"\n"), kzstd.SpeedDefault), 0o600); err != nil {
		t.Fatal(err)
	}
	var ce *CompressedError
	var pos Position
	_, err := ReadCodex(context.Background(), zst, &pos, Sink{})
	if !errors.As(err, &ce) || ce.Path != zst || err.Error() != "reading "+zst+": a compressed archived rollout (the hook reads no archives)" {
		t.Fatalf("hook read of a .zst: %v", err)
	}
	if _, err := Detect(zst); !errors.As(err, &ce) {
		t.Fatalf("Detect of a .zst: %v", err)
	}

	Unzstd = SystemUnzstd
	t.Cleanup(func() { Unzstd = nil })
	t.Setenv("PATH", t.TempDir())
	if _, err := Detect(zst); !errors.As(err, &ce) || ce.Why != "zstd is not installed" {
		t.Fatalf("Detect without zstd: %v", err)
	}
}
