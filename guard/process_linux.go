//go:build linux

package guard

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// proc is a process as /proc shows it: enough to find the agent that ran
// the hook and to tell it from a later process with the same pid.
type proc struct {
	pid, ppid int
	comm      string
	start     uint64 // clock ticks after boot (stat field 22)
}

func readProc(pid int) (proc, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, err
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses, so
	// the fields after it are read from the last ')'.
	open, closing := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || closing < open {
		return proc{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(data[closing+1:]))
	if len(f) < 20 {
		return proc{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	p := proc{pid: pid, comm: string(data[open+1 : closing])}
	if f[0] == "Z" || f[0] == "X" {
		return proc{}, errProcGone
	}
	p.ppid, err = strconv.Atoi(f[1])
	if err == nil {
		p.start, err = strconv.ParseUint(f[19], 10, 64)
	}
	if err != nil {
		return proc{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return p, nil
}

var errProcGone = errors.New("process gone")

// agentAncestor walks up from the hook's parent to the nearest process
// that is the agent (is): the one that ran this hook (the shell the agent
// runs the hook command in sits between, and the agent's launchers sit
// above it). Only ancestors are looked at, never a process found by name
// elsewhere; the walk is short and stops at init.
func agentAncestor(is func(proc) bool) (proc, error) {
	pid := os.Getppid()
	for range maxAncestors {
		if pid <= 1 {
			break
		}
		p, err := readProc(pid)
		if err != nil {
			return proc{}, err
		}
		if is(p) {
			return p, nil
		}
		pid = p.ppid
	}
	return proc{}, errors.New("no agent process above the hook")
}

// maxAncestors bounds the walk: the agent is the hook's parent or
// grandparent (runaway's entry runs through a shell), a wrapper or two more.
const maxAncestors = 8

// alive reports whether p still runs (the same process, not a later one
// with its pid).
func (p proc) alive() bool {
	q, err := readProc(p.pid)
	return err == nil && q.start == p.start
}

// cmdline is the process's command line, the program name first (nil
// when unknown).
func (p proc) cmdline() []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// args are the process's command-line arguments after the program name.
func (p proc) args() []string {
	f := p.cmdline()
	if len(f) <= 1 {
		return nil
	}
	return f[1:]
}

// fdPath is where the process's file descriptor fd leads ("" when unknown).
func (p proc) fdPath(fd int) string {
	s, err := os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/fd/" + strconv.Itoa(fd))
	if err != nil {
		return ""
	}
	return s
}

// openFD opens the process's file descriptor fd for writing when it is a
// terminal or a pipe: a regular file would be written over by the agent's
// own later writes (stopping-observed.md §1.3). Nil otherwise.
func (p proc) openFD(fd int) *os.File {
	name := "/proc/" + strconv.Itoa(p.pid) + "/fd/" + strconv.Itoa(fd)
	fi, err := os.Stat(name)
	if err != nil || fi.Mode()&(os.ModeCharDevice|os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	f, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}

// interrupt sends p SIGINT, if p is still the same process.
func (p proc) interrupt() error {
	if !p.alive() {
		return errProcGone
	}
	return syscall.Kill(p.pid, syscall.SIGINT)
}

// terminalReset turns off what a terminal UI killed mid-frame leaves on
// (keyboard enhancement, bracketed paste, focus and mouse reports, a hidden
// cursor); each is harmless where it was not on.
const terminalReset = "\x1b[<u\x1b[?2004l\x1b[?1004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?25h"

// repairTerminal gives a terminal a program left raw its sane settings back
// (`stty sane`, as a person would type) and prints lines on it.
func repairTerminal(tty string, lines []string) error {
	f, err := os.OpenFile(tty, os.O_RDWR|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command("stty", "sane")
	cmd.Stdin = f
	serr := cmd.Run()
	_, werr := f.WriteString(terminalReset + "\r\n" + strings.Join(lines, "\r\n") + "\r\n")
	return errors.Join(serr, werr)
}

// isTerminal reports whether path names a terminal device.
func isTerminal(path string) bool {
	return strings.HasPrefix(path, "/dev/pts/") || strings.HasPrefix(path, "/dev/tty")
}
