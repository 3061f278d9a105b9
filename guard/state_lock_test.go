package guard

import (
	"errors"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// A session's lock is handed on as soon as its holder lets go; a wait that
// ran out reports ErrLocked and, once the holder lets go, does not keep the
// lock from the next call.
func TestSessionLockWaitAndHandOver(t *testing.T) {
	dir := t.TempDir()
	first, err := (&Store{Dir: dir}).Open(t.Context(), agent.Claude, "s1")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := (&Store{Dir: dir, LockWait: 50 * time.Millisecond}).Open(t.Context(), agent.Claude, "s1"); !errors.Is(err, ErrLocked) {
		t.Fatalf("open while locked: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("gave up after %v, want about 50ms", d)
	}
	// Another session is not held up.
	other, err := (&Store{Dir: dir, LockWait: 50 * time.Millisecond}).Open(t.Context(), agent.Claude, "s2")
	if err != nil {
		t.Fatalf("another session: %v", err)
	}
	other.Close()

	got := make(chan error, 1)
	go func() {
		l, err := (&Store{Dir: dir, LockWait: time.Minute}).Open(t.Context(), agent.Claude, "s1")
		if err == nil {
			l.Close()
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	released := time.Now()
	first.Close()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("waiting open: %v", err)
		}
		if d := time.Since(released); d > 5*time.Second {
			t.Fatalf("the lock reached the waiter %v after it was let go", d)
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiter never got the lock")
	}
	// The wait given up at the start let go of the lock if it got it.
	l, err := (&Store{Dir: dir, LockWait: 10 * time.Second}).Open(t.Context(), agent.Claude, "s1")
	if err != nil {
		t.Fatalf("open after all let go: %v", err)
	}
	l.Close()
}
