//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// Claude Code's terminal UI, driven through a pseudo-terminal, shows the
// person what runaway says: the warning at 80% of the cap, the stop with
// the reason and the allow command, and, for the next prompt of the session
// over its cap, the blocked prompt, with no request sent.
func TestClaudeTUIShowsWarnStopAndBlockedPrompt(t *testing.T) {
	requireWire(t, "spend")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	var turns []claudeTurn
	for i := range 8 {
		turns = append(turns, bash("echo "+string(rune('a'+i))+" >> "+ranLog, claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()
	tui := startClaudeTUI(t, s, srv)
	tui.ready()
	tui.send("spend some")
	time.Sleep(time.Second)
	tui.send("\r")
	tui.waitFor(`hookstopped`, 90*time.Second)
	tui.waitFor(`runawayallow[0-9a-f-]+--add1`, 10*time.Second)
	if !regexp.MustCompile(`ofits\$1\.00cap\(90%\)`).MatchString(tui.squashed()) {
		t.Errorf("the warning at 90%% of the cap was not shown:\n%s", tui.tail())
	}
	before := len(srv.log())

	tui.send("go on")
	time.Sleep(time.Second)
	tui.send("\r")
	tui.waitFor(`Originalprompt:goon`, 60*time.Second)
	if got := len(srv.log()); got != before {
		t.Errorf("the blocked prompt sent %d requests, want none", got-before)
	}
}

// startClaudeTUI starts Claude Code's terminal UI against srv, past its
// first-run screens: onboarding done, the folder trusted, the API key
// approved.
func startClaudeTUI(t *testing.T, s *sandbox, srv *anthropicServer) *tui {
	t.Helper()
	state := `{"hasCompletedOnboarding":true,"theme":"dark","customApiKeyResponses":{"approved":["dummy"]},"projects":{"` + s.proj + `":{"hasTrustDialogAccepted":true,"hasCompletedProjectOnboarding":true}}}`
	s.writeFile(filepath.Join(s.claudeDir, ".claude.json"), state)
	s.writeFile(filepath.Join(s.home, ".claude.json"), state)
	return startTUI(t, s, map[string]string{
		"ANTHROPIC_BASE_URL": srv.URL(), "ANTHROPIC_API_KEY": "dummy", "DISABLE_TELEMETRY": "1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "TERM": "xterm-256color",
	}, claudeAgent.path, "--model", "claude-sonnet-4-6", "--allowedTools", "Bash", "--permission-mode", "default")
}

// In the terminal UI an ask is Claude Code's permission prompt with
// runaway's reason; the person's no interrupts the turn, which then waits
// for them (so escalation does not come into play there).
func TestClaudeTUIAsksThePerson(t *testing.T) {
	requireCommand(t, "hook")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_REPEAT_RUN", "2")
	var turns []claudeTurn
	for range 6 {
		// No redirection: Claude Code's own rules would ask about a write.
		turns = append(turns, bash("npm test", claudeUsage{Input: 1000, Output: 50}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns, End: claudeUsage{Input: 1000, Output: 20}})
	s.installRunaway()
	tui := startClaudeTUI(t, s, srv)
	tui.ready()
	tui.send("fix the tests")
	time.Sleep(time.Second)
	tui.send("\r")
	tui.waitFor(`requiresconfirmationforthiscommand`, 60*time.Second)
	tui.waitFor("runaway:thesameBashcall2timesinarow", 10*time.Second)
	tui.send("\x1b") // no
	tui.waitFor(`Interrupted`, 30*time.Second)
	time.Sleep(2 * time.Second)
	if n := srv.count("main"); n != 2 {
		t.Errorf("after the person's no, the model was asked %d times in all, want 2 (the turn waits for the person)", n)
	}
}

// tui is a program running on a pseudo-terminal, and what it printed.
type tui struct {
	t      *testing.T
	master *os.File
	mu     sync.Mutex
	out    []byte
}

func startTUI(t *testing.T, s *sandbox, env map[string]string, name string, args ...string) *tui {
	t.Helper()
	master, slave, err := openPty()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = s.proj
	cmd.Env = s.environ(env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	u := &tui{t: t, master: master}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := master.Read(buf)
			u.mu.Lock()
			u.out = append(u.out, buf[:n]...)
			u.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		master.Close()
	})
	return u
}

func (u *tui) send(s string) {
	if _, err := u.master.WriteString(s); err != nil {
		u.t.Fatal(err)
	}
}

// ansi matches terminal control sequences, which text drops.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?<>]*[A-Za-z~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[78=>]`)

// text is what the program printed, control sequences removed.
func (u *tui) text() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return ansi.ReplaceAllString(string(u.out), "")
}

// squashed is text without any white space: the UI draws some spaces by
// moving the cursor, so the words of a line can come out joined.
func (u *tui) squashed() string {
	return strings.Join(strings.Fields(u.text()), "")
}

func (u *tui) tail() string {
	s := u.text()
	return s[max(0, len(s)-3000):]
}

// ready waits for the prompt box's shortcut hint, and a moment more: keys
// typed before the UI reads them are lost.
func (u *tui) ready() {
	u.t.Helper()
	u.waitFor(`forshortcuts`, 60*time.Second)
	time.Sleep(time.Second)
}

// waitFor waits until the squashed text matches re (written without
// white space).
func (u *tui) waitFor(re string, within time.Duration) {
	u.t.Helper()
	r := regexp.MustCompile(re)
	for deadline := time.Now().Add(patience * within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if r.MatchString(u.squashed()) {
			return
		}
	}
	u.t.Fatalf("the terminal never showed %q; its end:\n%s", re, strings.TrimSpace(u.tail()))
}

// openPty opens a pseudo-terminal pair (Linux), 40×160.
func openPty() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	var n uint32
	var unlock int32
	ws := struct{ rows, cols, x, y uint16 }{40, 160, 0, 0}
	if err = ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)); err == nil {
		if err = ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err == nil {
			err = ioctl(syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
		}
	}
	if err == nil {
		slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}
