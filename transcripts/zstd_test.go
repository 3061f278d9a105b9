package transcripts

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"

	"github.com/runaway-guard/runaway/transcripts/zstd"
)

// The zstd decoder runaway links (a copy of Go's internal/zstd) gives back
// every real rollout as klauspost's encoder compressed it, at the level
// Codex archives with (3) and at the best.
func TestZstdDecodesRealRollouts(t *testing.T) {
	files := jsonlFiles(t, filepath.Join(realFixtures(t), "codex"))
	if len(files) == 0 {
		t.Fatal("no Codex fixtures")
	}
	for _, level := range []kzstd.EncoderLevel{kzstd.SpeedDefault, kzstd.SpeedBestCompression} {
		for _, p := range files {
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var z bytes.Buffer
			w, _ := kzstd.NewWriter(&z, kzstd.WithEncoderLevel(level))
			w.Write(want)
			w.Close()
			got, err := io.ReadAll(zstd.NewReader(&z))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s (level %v): %d bytes back of %d, err %v", p, level, len(got), len(want), err)
			}
		}
	}
}
