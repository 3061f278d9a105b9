//go:build linux

package testscripts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/runaway-guard/runaway/testhome"
)

func init() {
	scriptCmds["pty"] = ptyRun
}

// ptyRun runs a command with a pseudo-terminal as its stdin, stdout and
// stderr, and types into it what a keys file says:
//
//	pty [-exit N] keys-file command args...
//
// Each line of the keys file is `wait TEXT` (until the screen shows TEXT,
// after what the previous wait matched) or `send "…"` (Go-quoted bytes:
// "\r" enter, " " space, "\x1b[B" down, "\x03" ctrl-c). The screen, with
// terminal escapes taken out, becomes the command's stdout.
//
// testscript's own ttyin writes all its input before the program starts
// and leaves stdout a pipe: a program that needs a terminal on both ends,
// in raw mode, before keys arrive, cannot be driven with it.
func ptyRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! pty")
	}
	wantExit := 0
	if len(args) > 1 && args[0] == "-exit" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		wantExit, args = n, args[2:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: pty [-exit N] keys-file command args...")
	}
	steps := parseKeys(ts, ts.ReadFile(args[0]))

	master, slave, err := openPty()
	ts.Check(err)
	defer master.Close()
	cmd := exec.Command(lookPath(ts, args[1]), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnv(ts)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	ts.Check(cmd.Start())
	slave.Close()

	screen := &ptyScreen{master: master, closed: make(chan struct{}), scanned: map[string]int{}}
	go screen.read()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	var runErr error
	var done bool
	for _, st := range steps {
		if st.wait != "" {
			if err := screen.waitFor(st.wait, exited, &done, &runErr); err != nil {
				ts.Logf("[screen]\n%s", screen.text())
				ts.Fatalf("%v", err)
			}
			continue
		}
		if _, err := master.Write([]byte(st.send)); err != nil {
			ts.Fatalf("typing %q: %v", st.send, err)
		}
	}
	if !done {
		select {
		case runErr = <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			ts.Logf("[screen]\n%s", screen.text())
			ts.Fatalf("%s did not exit after the last key", args[1])
		}
	}
	screen.drain()
	fmt.Fprint(ts.Stdout(), screen.text())
	code := 0
	var ee *exec.ExitError
	if errors.As(runErr, &ee) {
		code = ee.ExitCode()
	} else if runErr != nil {
		ts.Fatalf("%v", runErr)
	}
	if code != wantExit {
		ts.Logf("[screen]\n%s", screen.text())
		ts.Fatalf("%s exited %d, want %d", args[1], code, wantExit)
	}
}

// lookPath finds a program on the script's PATH.
func lookPath(ts *testscript.TestScript, name string) string {
	if strings.Contains(name, "/") {
		return ts.MkAbs(name)
	}
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return name
}

type keyStep struct{ wait, send string }

func parseKeys(ts *testscript.TestScript, text string) []keyStep {
	var steps []keyStep
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "wait "):
			steps = append(steps, keyStep{wait: strings.TrimPrefix(line, "wait ")})
		case strings.HasPrefix(line, "send "):
			s, err := strconv.Unquote(strings.TrimPrefix(line, "send "))
			if err != nil {
				ts.Fatalf("keys: %q: %v", line, err)
			}
			steps = append(steps, keyStep{send: s})
		default:
			ts.Fatalf("keys: %q is neither wait nor send", line)
		}
	}
	return steps
}

// scriptEnv is the script's environment for the variables runaway reads.
func scriptEnv(ts *testscript.TestScript) []string {
	env := []string{"TERM=xterm-256color"}
	keys := append(slices.Sorted(maps.Keys(testhome.Vars(""))), "PATH", "TMPDIR", "ACCESSIBLE", "SHELL", "NO_COLOR")
	for _, k := range keys {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ptyScreen collects what the program writes, and answers the terminal
// queries a real terminal would (background colour, cursor position).
type ptyScreen struct {
	master  *os.File
	mu      sync.Mutex
	raw     []byte
	scanned map[string]int // per query: raw bytes already searched for it
	matched int            // stripped text consumed by waits
	closed  chan struct{}
}

// queries are what termenv asks a terminal, with a real terminal's
// answer, in the order a terminal answers them: termenv sends both and
// takes a cursor report first as "no background colour answer".
var queries = []struct{ q, a string }{
	{"\x1b]11;?", "\x1b]11;rgb:0000/0000/0000\x1b\\"},
	{"\x1b[6n", "\x1b[1;1R"},
}

var (
	// escapes covers CSI, OSC and the two-byte escapes bubbletea writes.
	escapes = regexp.MustCompile(`\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78NOM]|\r`)
)

func (s *ptyScreen) read() {
	buf := make([]byte, 4096)
	for {
		n, err := s.master.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.raw = append(s.raw, buf[:n]...)
			var answers []string
			for _, qa := range queries {
				q, a := qa.q, qa.a
				for {
					i := bytes.Index(s.raw[s.scanned[q]:], []byte(q))
					if i < 0 {
						s.scanned[q] = max(s.scanned[q], len(s.raw)-len(q)+1)
						break
					}
					s.scanned[q] += i + len(q)
					answers = append(answers, a)
				}
			}
			s.mu.Unlock()
			for _, a := range answers {
				s.master.Write([]byte(a))
			}
		}
		if err != nil {
			close(s.closed)
			return
		}
	}
}

// drain waits briefly for the last output once the program exited.
func (s *ptyScreen) drain() {
	select {
	case <-s.closed:
	case <-time.After(2 * time.Second):
	}
}

func (s *ptyScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return escapes.ReplaceAllString(string(s.raw), "")
}

func (s *ptyScreen) waitFor(want string, exited <-chan error, done *bool, runErr *error) error {
	deadline := time.After(20 * time.Second)
	for {
		t := s.text()
		if i := strings.Index(t[min(s.matched, len(t)):], want); i >= 0 {
			s.matched += i + len(want)
			return nil
		}
		if *done {
			return fmt.Errorf("the program exited (%v) before the screen showed %q", *runErr, want)
		}
		select {
		case err := <-exited:
			*done, *runErr = true, err
			s.drain()
		case <-deadline:
			return fmt.Errorf("the screen did not show %q within 20s", want)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// openPty opens a pseudo-terminal pair of 100×40 characters.
func openPty() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		master.Close()
		return nil, nil, err
	}
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		master.Close()
		return nil, nil, err
	}
	ws := struct{ rows, cols, x, y uint16 }{40, 100, 0, 0}
	if err := ioctl(master, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}
