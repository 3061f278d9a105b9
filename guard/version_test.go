package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// Issue 23, item 13: state written by another runaway version. Older state
// is read (a raise made with allow is kept); newer state is left as it is
// and the call is still answered from the transcripts.

func plantState(t *testing.T, h *Hook, id, data string) string {
	t.Helper()
	p := filepath.Join(h.StateDir, "sessions", fileBase(agent.Claude, id)+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// An upgrade: state of version 1 (before spend was kept) with an allowance
// is read, not moved aside; the $1 cap raised by $5 still holds at $3.
func TestOlderStateIsRead(t *testing.T) {
	s := newClaudeSession(t, "old", map[string]string{"RUNAWAY_SESSION_CAP_USD": "1"})
	plantState(t, s.h, "old", `{"version":1,"harness":"claude","session_id":"old","calls":4,"spend":{"allowed_usd":5}}`)
	if got := s.respond(3, ""); got != "" {
		t.Fatalf("$3 of a $6 cap: %q", got)
	}
	sess, err := (&Store{Dir: s.h.StateDir}).ReadSession(agent.Claude, "old")
	if err != nil || sess == nil || sess.Calls != 5 || sess.Spend.Allowed != 5 || sess.Version != stateVersion {
		t.Fatalf("state after the call: %+v %v", sess, err)
	}
	if log := errorLog(t, s.h); log != "" {
		t.Errorf("error log: %s", log)
	}
}

// A downgrade: state of a newer version is left byte for byte; the hook
// still stops a session over its cap, says why in the error log, and allow
// refuses rather than overwrite it.
func TestNewerStateIsLeftAlone(t *testing.T) {
	s := newClaudeSession(t, "new", map[string]string{"RUNAWAY_SESSION_CAP_USD": "1"})
	newer := `{"version":99,"harness":"claude","session_id":"new","calls":4,"spend":{"allowed_usd":50},"brand_new":{"x":1}}`
	p := plantState(t, s.h, "new", newer)
	if got := s.respond(3, ""); !strings.Contains(got, `"continue":false`) {
		t.Fatalf("$3 of a $1 cap, state of a newer runaway: %q, want the stop", got)
	}
	if data, _ := os.ReadFile(p); string(data) != newer {
		t.Errorf("the newer state was changed: %s", data)
	}
	if log := errorLog(t, s.h); !strings.Contains(log, "newer runaway") {
		t.Errorf("error log = %q, want that a newer runaway wrote the state", log)
	}
	if _, err := (&Store{Dir: s.h.StateDir}).Allow(t.Context(), agent.Claude, "new", 5, false); err == nil || !strings.Contains(err.Error(), "newer runaway") {
		t.Errorf("allow on a newer state: %v", err)
	}
	if data, _ := os.ReadFile(p); !bytes.Equal(data, []byte(newer)) {
		t.Errorf("allow changed the newer state: %s", data)
	}
}
