package guard

import (
	"github.com/runaway-guard/runaway/agent"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHoldTranscript(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	write := func(s string) { os.WriteFile(path, []byte(s), 0o600) }
	for _, tc := range []struct {
		name   string
		attack func()
		want   string
	}{
		{"appended: fine", func() { f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0); f.WriteString("more\n"); f.Close() }, ""},
		{"shrank", func() { os.Truncate(path, 3) }, "shrank"},
		{"replaced by another file", func() {
			os.WriteFile(path+".new", []byte("line one\nline two\n"), 0o600)
			os.Rename(path+".new", path)
		}, "replaced by another file"},
		{"a link", func() { os.Remove(path); os.Symlink(filepath.Join(dir, "elsewhere"), path) }, "replaced by a link"},
		{"a folder", func() { os.Remove(path); os.Mkdir(path, 0o700) }, "not a regular file"},
		{"removed", func() { os.Remove(path) }, "was removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(path)
			write("line one\nline two\n")
			s := &Session{SessionID: "s1"}
			if got := s.holdTranscript(agent.Claude, path); got != "" {
				t.Fatalf("first look: %q", got)
			}
			tc.attack()
			got := s.holdTranscript(agent.Claude, path)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.want == "" {
				return
			}
			// It holds until allowed, whatever the file does next.
			os.RemoveAll(path)
			write("line one\nline two\nline three\n")
			if s.holdTranscript(agent.Claude, path) == "" || s.tamperedVerdict().Kind != Stop {
				t.Fatal("the stop did not hold")
			}
			if v := s.tamperedVerdict(); !strings.Contains(v.Reason, "runaway allow s1 --add 1") {
				t.Errorf("reason %q", v.Reason)
			}
		})
	}
	// Gemini CLI rewrites its session file whole: not held.
	s := &Session{}
	write("a\n")
	s.holdTranscript(agent.Gemini, path)
	os.Truncate(path, 0)
	if got := s.holdTranscript(agent.Gemini, path); got != "" {
		t.Errorf("gemini: %q", got)
	}
}
