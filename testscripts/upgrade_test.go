package testscripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/testbin"
)

// An upgrade (`runaway setup` run from a newer build) replaces the installed
// binary while the agents' hooks keep starting it: every hook started
// during the upgrades runs a whole binary, old or new, answers, and exits 0.
func TestUpgradeWhileHooksRun(t *testing.T) {
	testbin.TouchSources("..")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := isolatedEnv(home)
	// Two builds that differ: the second carries extra bytes at its end.
	self, err := os.ReadFile(filepath.Join(binDir, "runaway"))
	if err != nil {
		t.Fatal(err)
	}
	builds := []string{filepath.Join(home, "v1", "runaway"), filepath.Join(home, "v2", "runaway")}
	for i, b := range builds {
		os.MkdirAll(filepath.Dir(b), 0o755)
		if err := os.WriteFile(b, append(bytes.Clone(self), bytes.Repeat([]byte{0}, i*4096)...), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	setup := func(build string) {
		t.Helper()
		cmd := exec.Command(build, "setup", "--yes", "--harness", "claude")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup from %s: %v\n%s", build, err, out)
		}
	}
	setup(builds[0])
	installed := filepath.Join(home, ".local", "bin", "runaway")

	var hooks atomic.Int64
	var failures []string
	var mu sync.Mutex
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				in := fmt.Sprintf(`{"session_id":"upgrade-%d","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo %d"},"tool_use_id":"t%d"}`, w, i, i)
				cmd := exec.Command(installed, "hook", "claude")
				cmd.Env = env
				cmd.Stdin = strings.NewReader(in)
				out, err := cmd.Output()
				hooks.Add(1)
				if err != nil || (len(out) > 0 && !json.Valid(out)) {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%v: %q", err, out))
					mu.Unlock()
				}
			}
		})
	}
	upgrades := 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) || upgrades < 6; upgrades++ {
		setup(builds[(upgrades+1)%2])
	}
	close(stop)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d hooks failed during %d upgrades, first: %s", len(failures), hooks.Load(), upgrades, failures[0])
	}
	t.Logf("%d hooks ran during %d upgrades", hooks.Load(), upgrades)
	if got, _ := os.ReadFile(installed); !bytes.Equal(got, append(bytes.Clone(self), bytes.Repeat([]byte{0}, (upgrades%2)*4096)...)) {
		t.Errorf("the installed binary is not the last build set up")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(installed), "*"))
	if len(left) != 1 {
		t.Errorf("left in the bin folder: %q", left)
	}
}
