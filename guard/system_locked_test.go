package guard

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// A session stopped at its cap stays stopped while someone holds its lock
// (in system mode the agent's user can, by running the setgid hook); in
// user mode a locked state is still no decision.
func TestStopHoldsWhileLocked(t *testing.T) {
	for _, system := range []bool{true, false} {
		h := newTestHook(t)
		h.System, h.LockWait = system, 50*time.Millisecond
		store := &Store{Dir: h.StateDir}
		l, err := store.Open(t.Context(), agent.Claude, "s1")
		if err != nil {
			t.Fatal(err)
		}
		l.Session.Spend.Stopped = true
		if err := l.Save(); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		h.Run(strings.NewReader(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo hi"}}`), &out, "claude")
		l.Close()
		stopped := strings.Contains(out.String(), `"continue":false`)
		if stopped != system {
			t.Errorf("system mode %v: answer %q", system, out.String())
		}
	}
}
