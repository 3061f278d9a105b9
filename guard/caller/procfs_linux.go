package caller

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procSuperMagic is the kernel's proc file system type (statfs(2)).
const procSuperMagic = 0x9fa0

// unreadable: /proc must be the kernel's, of this process's PID namespace,
// and the process in the first user namespace; otherwise the agent above
// may be out of sight.
func (t procFS) unreadable(pid int) string {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(t.root, &fs); err != nil {
		return t.root + " cannot be read (" + err.Error() + ")"
	}
	if fs.Type != procSuperMagic {
		return t.root + " is not the kernel's proc file system (something is mounted over it)"
	}
	if self, err := os.Readlink(t.root + "/self"); err != nil || self != strconv.Itoa(pid) {
		return t.root + " belongs to another PID namespace"
	}
	if m, err := os.ReadFile(t.root + "/self/uid_map"); err == nil && strings.Join(strings.Fields(string(m)), " ") != "0 0 4294967295" {
		return "it runs in a user namespace, whose parents may be outside it"
	}
	return ""
}
