package guard

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/ownfiles"
)

// Issue 23, item 2: a state that cannot be written drops no decision. The
// answer a call earns is given whether or not it can be recorded; the
// error log (and doctor) say the state could not be written.

// The decision log cannot be written (a folder stands in its place): a
// session over its cap is still stopped, call after call.
func TestStopHoldsWhenRecordingFails(t *testing.T) {
	s := newClaudeSession(t, "rec", map[string]string{"RUNAWAY_SESSION_CAP_USD": "1"})
	if err := os.MkdirAll(filepath.Join(s.h.StateDir, ownfiles.DecisionLogName), 0o700); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if got := s.respond(2, ""); !strings.Contains(got, `"continue":false`) {
			t.Fatalf("call %d, $%d spent of a $1 cap: %q, want a stop", i+1, 2*(i+1), got)
		}
	}
	if !strings.Contains(errorLog(t, s.h), "decision log") {
		t.Errorf("error log = %q, want the recording error", errorLog(t, s.h))
	}
}

// The state folder cannot be made (a file stands in its place): the spend
// wire still reads the transcript and stops a session over its cap.
func TestStopHoldsWithoutAStateFolder(t *testing.T) {
	s := newClaudeSession(t, "nofolder", map[string]string{"RUNAWAY_SESSION_CAP_USD": "1"})
	if err := os.MkdirAll(filepath.Dir(s.h.StateDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.h.StateDir, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if got := s.respond(2, ""); !strings.Contains(got, `"continue":false`) {
			t.Fatalf("call %d, $%d spent of a $1 cap: %q, want a stop", i+1, 2*(i+1), got)
		}
	}
	if got := s.h.Stderr.(*bytes.Buffer).String(); !strings.Contains(got, "state could not be") {
		t.Errorf("stderr = %q, want the state error (the error log cannot be written either)", got)
	}
}

// fullDiskEnv names the tmpfs the inner run of TestHookOnFullDisk fills.
const fullDiskEnv = "RUNAWAY_TEST_FULL_DISK"

// A full disk under the state folder: a small tmpfs, mounted in a private
// mount namespace (unshare -m) so that nothing outside this test sees it,
// then filled to its last byte. A session whose state was written before
// the disk filled keeps its count: its loop ask comes on the fifth
// identical call and its stop on every call past the cap; a session that
// meets the full disk on its first call is still stopped at its cap from
// the transcript alone.
func TestHookOnFullDisk(t *testing.T) {
	mnt := os.Getenv(fullDiskEnv)
	if mnt == "" {
		if runtime.GOOS != "linux" {
			t.Skip("a private mount namespace and tmpfs are Linux's")
		}
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Skip("unshare(1) is not installed: the case is covered by TestStopHoldsWhenRecordingFails")
		}
		mnt = filepath.Join(t.TempDir(), "full")
		if err := os.Mkdir(mnt, 0o700); err != nil {
			t.Fatal(err)
		}
		script := `mount -t tmpfs -o size=64k tmpfs "$1" || exit 77; shift; exec "$@"`
		cmd := exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", script, "sh", mnt,
			os.Args[0], "-test.run", "^TestHookOnFullDisk$", "-test.count", "1", "-test.v")
		cmd.Env = append(os.Environ(), fullDiskEnv+"="+mnt)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 77 || err != nil && strings.Contains(string(out), "unshare failed") {
			t.Skipf("cannot mount a tmpfs in a private namespace here: %s", bytes.TrimSpace(out))
		}
		if err != nil {
			t.Fatalf("the run inside the namespace failed: %v\n%s", err, out)
		}
		t.Logf("inside the namespace:\n%s", out)
		return
	}

	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "10", "RUNAWAY_REPEAT_RUN": "5"}
	before := newClaudeSession(t, "before", env)
	before.h.StateDir = filepath.Join(mnt, "state")
	first := newClaudeSession(t, "first", env)
	first.h = before.h
	// The first call of "before" writes its state; then the disk fills.
	if got := before.respondSame(1); got != "" {
		t.Fatalf("first call: %q", got)
	}
	fill(t, mnt)

	// Identical calls: the fifth is asked about.
	for i := 2; i <= 4; i++ {
		if got := before.respondSame(1); got != "" {
			t.Fatalf("call %d on a full disk: %q", i, got)
		}
	}
	if got := before.respondSame(1); !strings.Contains(got, `"permissionDecision":"ask"`) {
		t.Fatalf("fifth identical call on a full disk: %q, want the loop ask", got)
	}
	// Past the cap ($5 + $6 of $10): stopped, and stopped again.
	if got := before.respond(6, ""); !strings.Contains(got, `"continue":false`) {
		t.Fatalf("$11 of a $10 cap on a full disk: %q, want a stop", got)
	}
	if got := before.respond(0, ""); !strings.Contains(got, `"continue":false`) {
		t.Fatalf("the call after the stop on a full disk: %q, want a stop", got)
	}
	// A session that starts on the full disk: stopped at its cap.
	first.respond(6, "")
	if got := first.respond(6, ""); !strings.Contains(got, `"continue":false`) {
		t.Fatalf("new session on a full disk, $12 of $10: %q, want a stop", got)
	}
	logged := errorLog(t, before.h) + before.h.Stderr.(*bytes.Buffer).String()
	if !strings.Contains(logged, "state could not be written") {
		t.Errorf("error log and stderr = %q, want that the state could not be written", logged)
	}
}

// respondSame appends a response that made the same call as the last one
// (same command), of millions of input tokens, and runs the hook on it.
func (s *claudeSession) respondSame(millions int) string {
	return s.respond(millions, "", "same command")
}

// fill writes a file into the tmpfs at mnt until no byte more fits.
func fill(t *testing.T, mnt string) {
	t.Helper()
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for {
		if _, err := f.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	for {
		if _, err := f.Write([]byte{0}); err != nil {
			break
		}
	}
}
