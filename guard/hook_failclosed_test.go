package guard

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
)

// The tamper wire fails closed: a call it denies stays denied whatever
// fails after it, and a call naming runaway's files that it cannot judge
// within the hook's deadline is denied.

// tamperCall removes runaway's state; the hook's state folder is dir.
func tamperCall(dir string) string {
	return fmt.Sprintf(`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf %s"}}`, dir)
}

func wantTamperDeny(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "runaway: this call ") {
		t.Fatalf("stdout = %.300q, want the tamper wire's deny", out)
	}
}

// A later wire that panics: the deny holds.
func TestTamperDenyHoldsThroughPanic(t *testing.T) {
	h := newTestHook(t)
	h.extraWire = func(*Session) Verdict { panic("wire exploded") }
	var out bytes.Buffer
	h.Run(strings.NewReader(tamperCall(h.StateDir)), &out, "claude")
	wantTamperDeny(t, out.String())
	if !strings.Contains(errorLog(t, h), "panic: wire exploded") {
		t.Errorf("error log = %q, want the panic", errorLog(t, h))
	}
}

// The deadline comes while a later wire works: the deny holds.
func TestTamperDenyHoldsAtDeadline(t *testing.T) {
	h := newTestHook(t)
	h.Deadline = 300 * time.Millisecond
	block := make(chan struct{})
	defer h.running.Wait()
	defer close(block)
	h.extraWire = func(*Session) Verdict { <-block; return Verdict{} }
	var out bytes.Buffer
	h.Run(strings.NewReader(tamperCall(h.StateDir)), &out, "claude")
	wantTamperDeny(t, out.String())
	if !strings.Contains(errorLog(t, h), "the tamper wire's deny holds") {
		t.Errorf("error log = %q", errorLog(t, h))
	}
}

// The hook's variables are bounded: RUNAWAY_HOOK_DEADLINE=1ns (one line in
// an env file an agent loads) would answer nothing, the tamper deny too.
func TestHookVariablesCannotWeakenTheTamperDeny(t *testing.T) {
	for _, env := range []map[string]string{
		{DeadlineEnv: "1ns"},
		{DeadlineEnv: "1ns", LockWaitEnv: "1ns"},
		{DeadlineEnv: "-5s"},
	} {
		h := newTestHook(t)
		h.Getenv = func(k string) string { return env[k] }
		var out bytes.Buffer
		h.Run(strings.NewReader(tamperCall(h.StateDir)), &out, "claude")
		h.running.Wait()
		wantTamperDeny(t, out.String())
	}
	h := newTestHook(t)
	h.Getenv = func(k string) string { return map[string]string{DeadlineEnv: "1ns", LockWaitEnv: "999h"}[k] }
	if d, w := h.deadline(), h.lockWait(); d != minEnvDeadline || w != maxEnvLockWait {
		t.Errorf("deadline %s, lock wait %s: want the bounds %s, %s", d, w, minEnvDeadline, maxEnvLockWait)
	}
	if log := errorLog(t, h); !strings.Contains(log, "RUNAWAY_HOOK_DEADLINE=1ns is outside") {
		t.Errorf("error log = %q, want the bound said", log)
	}
}

// Recording the decision fails (the decision log cannot be written, as
// on a full disk): the deny holds, and the error is logged.
func TestTamperDenyHoldsWhenRecordingFails(t *testing.T) {
	h := newTestHook(t)
	if err := os.MkdirAll(filepath.Join(h.StateDir, ownfiles.DecisionLogName), 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h.Run(strings.NewReader(tamperCall(h.StateDir)), &out, "claude")
	wantTamperDeny(t, out.String())
	if !strings.Contains(errorLog(t, h), "decision log") {
		t.Errorf("error log = %q, want the recording error", errorLog(t, h))
	}
	// A harmless call in the same broken state: no decision, as before.
	out.Reset()
	h.Run(strings.NewReader(bashCall), &out, "claude")
	if out.Len() != 0 {
		t.Errorf("harmless call: stdout = %q", out.String())
	}
}

// A full state disk: a small tmpfs, filled. Needs mount(2) (root, or a
// namespace that allows it); skipped elsewhere.
func TestTamperDenyHoldsOnFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("tmpfs is mounted with Linux's mount(8)")
	}
	dir := t.TempDir()
	mnt := filepath.Join(dir, "full")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s): the full-disk case is covered by TestTamperDenyHoldsWhenRecordingFails", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	h := newTestHook(t)
	h.StateDir = filepath.Join(mnt, "state")
	if err := os.MkdirAll(filepath.Join(h.StateDir, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Fill the disk to the last byte.
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
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
	f.Close()

	var out bytes.Buffer
	h.Run(strings.NewReader(tamperCall(h.StateDir)), &out, "claude")
	wantTamperDeny(t, out.String())
	out.Reset()
	h.Run(strings.NewReader(bashCall), &out, "claude")
	if out.Len() != 0 {
		t.Errorf("harmless call on a full disk: stdout = %q", out.String())
	}
	if !strings.Contains(h.Stderr.(*bytes.Buffer).String(), "runaway: ") {
		t.Errorf("stderr = %q, want the errors the full log could not take", h.Stderr.(*bytes.Buffer).String())
	}
}

// The cases the review found running the hook out of its deadline, with
// an rm of runaway's state at the end: a 156 KB pipeline of xargs, and
// 3,000 globs over a big folder. Denied either way: judged in time, or
// failed closed.
func TestTamperDenyHoldsForHugeCalls(t *testing.T) {
	h := newTestHook(t)
	big := t.TempDir()
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprintf("f%04d.txt", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var pipe strings.Builder
	for pipe.Len() < 156<<10 {
		pipe.WriteString("echo a | xargs -n1 echo | ")
	}
	pipe.WriteString("xargs echo; rm -rf " + h.StateDir)
	var globs strings.Builder
	globs.WriteString("ls")
	for i := range 3000 {
		fmt.Fprintf(&globs, " %s/*%d*.txt", big, i)
	}
	globs.WriteString("; rm -rf " + h.StateDir)
	for name, cmd := range map[string]string{"xargs pipeline": pipe.String(), "3000 globs": globs.String()} {
		t.Run(name, func(t *testing.T) {
			in := fmt.Sprintf(`{"session_id":"s-%d","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q}}`, len(cmd), cmd)
			var out bytes.Buffer
			h.Run(strings.NewReader(in), &out, "claude")
			wantTamperDeny(t, out.String())
		})
	}
}
