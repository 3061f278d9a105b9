package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordDemoSessions records the Claude Code sessions `runaway demo`
// replays (demo/sessions/): the real agent, guarded by runaway with its
// default limits, against the fake model. One session repeats a failing
// `npm test` until runaway ends it; in the other each response costs about
// $0.30 against a $1 session cap. It runs only when RUNAWAY_E2E_RECORD_DEMO
// names the folder to write them to:
//
//	RUNAWAY_E2E_RECORD_DEMO=$PWD/demo/sessions go test ./e2e -run TestRecordDemoSessions
func TestRecordDemoSessions(t *testing.T) {
	out := os.Getenv("RUNAWAY_E2E_RECORD_DEMO")
	if out == "" {
		t.Skip("records runaway demo's sessions only when RUNAWAY_E2E_RECORD_DEMO names a folder")
	}
	claudeAgent.require(t)
	record := func(t *testing.T, s *sandbox, r claudeRun, name string) {
		t.Helper()
		if r.Result.TerminalReason != "hook_stopped" {
			t.Fatalf("terminal_reason %q, want hook_stopped\nstdout: %s\nstderr: %s", r.Result.TerminalReason, truncate(r.Stdout, 2000), truncate(r.Stderr, 2000))
		}
		data := s.readFile(s.claudeTranscript(r.Result.SessionID))
		// The sandbox's folders as a person's would read.
		data = strings.ReplaceAll(data, s.proj, "/home/you/shop")
		data = strings.ReplaceAll(data, s.home, "/home/you")
		data = strings.ReplaceAll(data, s.root, "/tmp")
		if err := os.WriteFile(filepath.Join(out, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %s: Claude Code %s, %d lines", name, claudeAgent.version, len(nonEmptyLines(data)))
	}
	t.Run("loop", func(t *testing.T) {
		s := newSandbox(t)
		var turns []claudeTurn
		for range 30 {
			turns = append(turns, bash("npm test", claudeUsage{Input: 4000, CacheRead: 20000, Output: 120}))
		}
		srv := newAnthropicServer(t, claudeScript{Main: turns, End: claudeUsage{Input: 1000, Output: 20}})
		s.installRunaway()
		record(t, s, s.runClaude(srv, "fix the failing tests", claudeOpts{Model: "claude-sonnet-4-6"}), "claude-loop.jsonl")
	})
	t.Run("cap", func(t *testing.T) {
		s := newSandbox(t)
		steps := []string{"go test ./...", "go vet ./...", "git diff --stat", "go build ./...", "ls internal", "go test -run TestCart ./cart", "git status --short", "go test -race ./..."}
		var turns []claudeTurn
		for _, c := range steps {
			turns = append(turns, bash(c, claudeUsage{Input: 90_000, Output: 2_000}))
		}
		srv := newAnthropicServer(t, claudeScript{Main: turns})
		s.installRunaway()
		s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
		record(t, s, s.runClaude(srv, "make the cart tests pass", claudeOpts{Model: "claude-sonnet-4-6"}), "claude-cap.jsonl")
	})
}
