package caller

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// procFS reads processes from Linux's /proc.
type procFS struct{ root string }

func (t procFS) Proc(pid int) (Proc, error) {
	dir := t.root + "/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Proc{}, err
	}
	p, err := parseStat(stat)
	if err != nil {
		return Proc{}, err
	}
	if b, err := os.ReadFile(dir + "/cmdline"); err == nil {
		p.Args = splitNUL(b)
	}
	p.Exe, _ = os.Readlink(dir + "/exe") // another user's process hides it
	return p, nil
}

// parseStat reads pid, comm and ppid from /proc/PID/stat: "pid (comm) state
// ppid …". comm may hold spaces and parentheses, so it ends at the last ')'.
func parseStat(b []byte) (Proc, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Proc{}, fmt.Errorf("unreadable stat %q", b)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return Proc{}, err
	}
	rest := strings.Fields(string(b[end+1:]))
	if len(rest) < 2 {
		return Proc{}, fmt.Errorf("unreadable stat %q", b)
	}
	ppid, err := strconv.Atoi(rest[1])
	if err != nil {
		return Proc{}, err
	}
	return Proc{PID: pid, PPID: ppid, Name: string(b[open+1 : end])}, nil
}

func splitNUL(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}
