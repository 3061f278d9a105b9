package testscripts

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/runaway-guard/runaway/testbin"
)

// Agents run the hooks of parallel tool calls in parallel: 16 hook
// processes started at once on one session must all be counted.
func TestParallelHooksLoseNoCount(t *testing.T) {
	testbin.TouchSources("..")
	const n = 16
	home := t.TempDir()
	state := filepath.Join(home, "state")
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_STATE_HOME="+state,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		// A loaded machine (CI runs the e2e agents alongside) must not turn
		// a slow lock into a lost count here: what is under test is that no
		// count is lost while the lock is had.
		"RUNAWAY_HOOK_DEADLINE=60s",
		"RUNAWAY_HOOK_LOCK_WAIT=50s",
	)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		// Different calls, so that the loop wire stays quiet and only the
		// counting is under test.
		input := fmt.Sprintf(`{"session_id":"par","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo %d"}}`, i)
		cmd := exec.Command(filepath.Join(binDir, "runaway"), "hook", "claude")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(input)
		wg.Go(func() {
			<-start
			if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
				errs <- fmt.Errorf("hook: %v: %q", err, out)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(filepath.Join(state, "runaway", "sessions", "claude-par.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sess struct {
		Calls int `json:"calls"`
	}
	if err := json.Unmarshal(data, &sess); err != nil {
		t.Fatal(err)
	}
	if sess.Calls != n {
		t.Fatalf("state counted %d calls, want %d", sess.Calls, n)
	}
	if log, err := os.ReadFile(filepath.Join(state, "runaway", "errors.log")); err == nil {
		t.Fatalf("error log written: %s", log)
	}
}
