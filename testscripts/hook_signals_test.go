package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/testbin"
)

// hookCmd is `runaway hook claude` in a fresh fake home.
func hookCmd(t *testing.T) *exec.Cmd {
	t.Helper()
	testbin.TouchSources("..")
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "runaway"), "hook", "claude")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range homeVars(home) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// The agent stops a hook at its timeout with SIGTERM: exit status 0, not
// 143, so that an entry without `|| true` does not read as a failed hook.
func TestHookExitsZeroOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	cmd := hookCmd(t)
	stdin, err := cmd.StdinPipe() // left open: the hook waits for its input
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // past the start, into the read
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("runaway hook after SIGTERM: %v, want exit status 0", err)
	}
}

// The agent stops reading the hook's answer: the write fails, the exit
// status is still 0, not 141 (SIGPIPE).
func TestHookExitsZeroOnClosedStdout(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE on Windows")
	}
	cmd := hookCmd(t)
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"runaway allow --cap 1000"}}`)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody reads: the deny the hook writes meets a closed pipe
	cmd.Stdout = w
	err = cmd.Run()
	w.Close()
	if err != nil {
		t.Fatalf("runaway hook with a closed stdout: %v, want exit status 0", err)
	}
}
