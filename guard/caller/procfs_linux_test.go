package caller

import (
	"os"
	"strings"
	"testing"
)

// A /proc that is not the kernel's (a folder mounted over it, here a plain
// folder) cannot tell the parents; the real one, here, can.
func TestProcFSUnreadable(t *testing.T) {
	if why := (procFS{root: t.TempDir()}).unreadable(os.Getpid()); !strings.Contains(why, "not the kernel's proc") {
		t.Errorf("a plain folder as /proc: %q", why)
	}
	if why := (procFS{root: "/proc"}).unreadable(os.Getpid() + 1); !strings.Contains(why, "another PID namespace") {
		t.Errorf("another pid than /proc/self: %q", why)
	}
	m, _ := os.ReadFile("/proc/self/uid_map")
	if strings.Join(strings.Fields(string(m)), " ") != "0 0 4294967295" {
		t.Skip("the tests run in a user namespace")
	}
	if why := (procFS{root: "/proc"}).unreadable(os.Getpid()); why != "" {
		t.Errorf("the real /proc: %q", why)
	}
}
