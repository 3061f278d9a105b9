package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

func newTestHook(t *testing.T) *Hook {
	t.Helper()
	dir := t.TempDir()
	h := &Hook{
		StateDir:   filepath.Join(dir, "state"),
		ConfigPath: filepath.Join(dir, "config.json"),
		Getenv:     func(string) string { return "" },
		Now:        func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
		Stderr:     &bytes.Buffer{},
	}
	// A run past its deadline goes on writing state in the background: the
	// test's folder is removed only after it ends (cleanups run last first).
	t.Cleanup(h.running.Wait)
	return h
}

const bashCall = `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`

func errorLog(t *testing.T, h *Hook) string {
	t.Helper()
	data, _ := os.ReadFile(filepath.Join(h.StateDir, ownfiles.ErrorLogName))
	return string(data)
}

// A panic anywhere in the wires ends in no decision and a logged stack.
func TestHookRecoversFromPanic(t *testing.T) {
	h := newTestHook(t)
	h.extraWire = func(*Session) Verdict { panic("wire exploded") }
	var out bytes.Buffer
	h.Run(strings.NewReader(bashCall), &out, "claude")
	if out.Len() != 0 {
		t.Fatalf("stdout = %q, want nothing", out.String())
	}
	log := errorLog(t, h)
	if !strings.Contains(log, "panic: wire exploded") || strings.Count(log, "\n") != 1 {
		t.Fatalf("error log = %q, want one line with the panic", log)
	}
}

// A wire that never returns is cut off by the deadline.
func TestHookDeadline(t *testing.T) {
	h := newTestHook(t)
	h.Deadline = 50 * time.Millisecond
	block := make(chan struct{})
	defer h.running.Wait() // its files, before TempDir removes them
	defer close(block)
	h.extraWire = func(*Session) Verdict { <-block; return Verdict{} }
	var out bytes.Buffer
	start := time.Now()
	h.Run(strings.NewReader(bashCall), &out, "claude")
	if out.Len() != 0 {
		t.Fatalf("stdout = %q, want nothing", out.String())
	}
	if time.Since(start) > 2*time.Second {
		t.Fatal("the deadline did not cut the hook off")
	}
	if !strings.Contains(errorLog(t, h), "deadline") {
		t.Fatalf("error log = %q", errorLog(t, h))
	}
}

// When even the error log cannot be written, the error goes to stderr.
func TestHookErrorFallsBackToStderr(t *testing.T) {
	h := newTestHook(t)
	if err := os.WriteFile(h.StateDir, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h.Run(strings.NewReader(bashCall), &out, "claude")
	if out.Len() != 0 {
		t.Fatalf("stdout = %q", out.String())
	}
	if got := h.Stderr.(*bytes.Buffer).String(); !strings.HasPrefix(got, "runaway: ") {
		t.Fatalf("stderr = %q", got)
	}
}

// The decision is kept in the session's state and in the decision log,
// which holds no tool input beyond the short summary.
func TestHookRecordsDecisions(t *testing.T) {
	h := newTestHook(t)
	call := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"deploy --token=supersecretvalue","env":"TOPSECRET"}}`
	for range 5 {
		h.Run(strings.NewReader(call), &bytes.Buffer{}, "claude")
	}
	store := &Store{Dir: h.StateDir}
	sess, err := store.ReadSession(agent.Claude, "s1")
	if err != nil || sess == nil {
		t.Fatal(sess, err)
	}
	if sess.Calls != 5 || sess.Last == nil || sess.Last.Wire != "loop" || sess.Last.Decision != "ask" {
		t.Fatalf("state = %+v", sess)
	}
	for _, name := range []string{ownfiles.DecisionLogName, "sessions/claude-s1.json"} {
		data, err := os.ReadFile(filepath.Join(h.StateDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "supersecretvalue") || strings.Contains(string(data), "TOPSECRET") {
			t.Errorf("%s holds tool input: %s", name, data)
		}
	}
}

func TestFileBaseStaysInFolder(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "a/b", ".hidden", "", strings.Repeat("x", 500), "ok-id_1.2"} {
		b := fileBase(agent.Claude, id)
		if strings.ContainsAny(b, "/\\") || strings.HasPrefix(b, ".") {
			t.Errorf("fileBase(%q) = %q", id, b)
		}
	}
	if fileBase(agent.Claude, "ok-id_1.2") != "claude-ok-id_1.2" {
		t.Error("plain ids are kept readable")
	}
}
