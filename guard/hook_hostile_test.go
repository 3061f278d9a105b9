//go:build unix

package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// hostileCall is a Bash call of session id naming transcript.
func hostileCall(t *testing.T, harness agent.ID, id, transcript string) string {
	t.Helper()
	in := map[string]any{"session_id": id, "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "ls"}, "transcript_path": transcript}
	if harness == agent.Codex {
		in["turn_id"] = "t1"
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runCounted runs one call and checks that the hook got to its answer
// (the session's call was counted) rather than being cut off at the
// deadline, and that stdout is empty.
func runCounted(t *testing.T, h *Hook, harness agent.ID, id, stdin string, wantCalls int) {
	t.Helper()
	var out bytes.Buffer
	h.Run(strings.NewReader(stdin), &out, string(harness))
	if out.Len() != 0 {
		t.Fatalf("stdout = %q, want nothing", out.String())
	}
	if log := errorLog(t, h); strings.Contains(log, "deadline") {
		t.Fatalf("the hook ran into its deadline: %s", log)
	}
	sess, err := (&Store{Dir: h.StateDir}).ReadSession(harness, id)
	if err != nil || sess == nil || sess.Calls != wantCalls {
		t.Fatalf("session state = %+v, %v; want %d calls counted", sess, err, wantCalls)
	}
}

// checkLogLines: every line of the error log is one line starting with its
// time, and each of wants is in it.
func checkLogLines(t *testing.T, h *Hook, wants ...string) {
	t.Helper()
	log := errorLog(t, h)
	for _, line := range strings.SplitAfter(log, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "2026-") || !strings.HasSuffix(line, "\n") {
			t.Errorf("error log line %q", line)
		}
	}
	for _, w := range wants {
		if !strings.Contains(log, w) {
			t.Errorf("error log = %q, want %q", log, w)
		}
	}
}

// A transcript path that names no regular file is read neither way: no
// blocking in open(2) on a FIFO without a writer, no endless read of a
// device. The call is still answered and counted, and the log says why.
func TestHookTranscriptNotARegularFile(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, dir string) string
		log  string
	}{
		{"directory", func(t *testing.T, dir string) string { return dir }, "not a regular file"},
		{"dev-zero", func(t *testing.T, dir string) string { return "/dev/zero" }, "not a regular file"},
		{"fifo", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo.jsonl")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not a regular file"},
		{"symlink-loop", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "loop.jsonl")
			if err := os.Symlink(p, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "too many levels of symbolic links"},
		{"unreadable", func(t *testing.T, dir string) string {
			if os.Geteuid() == 0 {
				t.Skip("root reads files without read permission")
			}
			p := filepath.Join(dir, "secret.jsonl")
			if err := os.WriteFile(p, []byte("{}\n"), 0o000); err != nil {
				t.Fatal(err)
			}
			return p
		}, "permission denied"},
	}
	for _, c := range cases {
		for _, harness := range []agent.ID{agent.Claude, agent.Codex} {
			t.Run(c.name+"/"+string(harness), func(t *testing.T) {
				h := newTestHook(t)
				h.Deadline = time.Minute // a block would show as a hung test, not a flake
				path := c.make(t, t.TempDir())
				runCounted(t, h, harness, "s1", hostileCall(t, harness, "s1", path), 1)
				checkLogLines(t, h, c.log)
			})
		}
	}
}

// A FIFO among a session's subagent files, or where a Codex subagent's
// rollout would be, blocks nothing either.
func TestHookSessionFilesFIFO(t *testing.T) {
	h := newTestHook(t)
	h.Deadline = time.Minute
	dir := t.TempDir()
	main := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(main, []byte(`{"type":"user","sessionId":"s1"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "s1", "subagents", "agent-a.jsonl"), filepath.Join(dir, "agent-b.jsonl")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	runCounted(t, h, agent.Claude, "s1", hostileCall(t, agent.Claude, "s1", main), 1)

	day := filepath.Join(dir, "sessions", "2026", "11", "30")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	rollout := filepath.Join(day, "rollout-2026-11-30T10-00-00-c1.jsonl")
	meta := `{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"session_id":"c1","id":"c1","timestamp":"2026-11-30T10:00:00.000Z"}}` + "\n"
	if err := os.WriteFile(rollout, []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(day, "rollout-2026-11-30T10-00-01-c2.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	runCounted(t, h, agent.Codex, "c1", hostileCall(t, agent.Codex, "c1", rollout), 1)
}

// A transcript read once, then replaced by a symlink loop: the spend read
// so far is kept, the read error is logged, the call is answered.
func TestHookTranscriptReplacedBySymlinkLoop(t *testing.T) {
	h := newTestHook(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	writeTranscript(t, path, 1)
	runCounted(t, h, agent.Claude, "s1", hostileCall(t, agent.Claude, "s1", path), 1)
	before, _ := (&Store{Dir: h.StateDir}).ReadSession(agent.Claude, "s1")
	if before.Spend.USD <= 0 {
		t.Fatalf("spend = %v, want the transcript's", before.Spend.USD)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(path, path); err != nil {
		t.Fatal(err)
	}
	runCounted(t, h, agent.Claude, "s1", hostileCall(t, agent.Claude, "s1", path), 2)
	after, _ := (&Store{Dir: h.StateDir}).ReadSession(agent.Claude, "s1")
	if after.Spend.USD != before.Spend.USD {
		t.Errorf("spend went from %v to %v", before.Spend.USD, after.Spend.USD)
	}
	checkLogLines(t, h, "too many levels of symbolic links")
}

// writeTranscript writes a Claude Code transcript of n responses of a
// million input tokens each.
func writeTranscript(t *testing.T, path string, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"s1","requestId":"req_%d","message":{"id":"msg_%d","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1000000,"output_tokens":0}}}`+"\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A 200 MB line without its newline, still being written: the hook answers
// each time, and once the line ends (over MaxLine, so skipped) the lines
// after it are counted.
func TestHookTranscriptHugeUnfinishedLine(t *testing.T) {
	h := newTestHook(t)
	// What is checked is the answer and the count, not the time: on a
	// loaded machine (CI runs the e2e agents beside this) the default 3 s
	// deadline could end a read of 200 MB first. Deadlines have their own tests.
	h.Deadline = time.Minute
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Sparse: 200 MB of zero bytes costs no disk.
	if err := f.Truncate(200 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 2); err != nil {
		t.Fatal(err)
	}
	call := hostileCall(t, agent.Claude, "s1", path)
	runCounted(t, h, agent.Claude, "s1", call, 1)
	if _, err := f.Write(bytes.Repeat([]byte("x"), 1<<20)); err != nil {
		t.Fatal(err)
	}
	runCounted(t, h, agent.Claude, "s1", call, 2)
	line := `{"type":"assistant","sessionId":"s1","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1000000,"output_tokens":0}}}`
	if _, err := f.WriteString("\n" + line + "\n"); err != nil {
		t.Fatal(err)
	}
	runCounted(t, h, agent.Claude, "s1", call, 3)
	sess, _ := (&Store{Dir: h.StateDir}).ReadSession(agent.Claude, "s1")
	if sess.Spend.Tokens.Input != 1000000 {
		t.Errorf("tokens = %+v, want the one response after the long line", sess.Spend.Tokens)
	}
	checkLogLines(t, h)
}

// A session's state file that is a folder is moved aside like a corrupt
// one; the next call starts the session afresh.
func TestHookStateFileIsAFolder(t *testing.T) {
	h := newTestHook(t)
	p := filepath.Join(h.StateDir, "sessions", "claude-s1.json")
	if err := os.MkdirAll(filepath.Join(p, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	h.Run(strings.NewReader(bashCall), &out, "claude")
	if out.Len() != 0 {
		t.Fatalf("stdout = %q", out.String())
	}
	checkLogLines(t, h, "is corrupt")
	runCounted(t, h, agent.Claude, "s1", bashCall, 1)
}

// Inputs at the edges of what the agents send: each is answered (or
// refused with one log line), never written anywhere but the state folder.
func TestHookHostileInputs(t *testing.T) {
	longID := strings.Repeat("ab", 5<<10)
	big, _ := json.Marshal(map[string]any{"session_id": "s1", "tool_name": "Write",
		"tool_input": map[string]any{"file_path": "/tmp/x", "content": strings.Repeat("y", 7<<20)}})
	deep := `{"session_id":"s1","tool_name":"Bash","tool_input":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`
	cases := []struct {
		name, stdin string
		counted     bool   // the call reaches the state
		log         string // what the error log must hold ("" nothing)
	}{
		{"session-id-256B", `{"session_id":"` + longID[:256] + `","tool_name":"Bash","tool_input":{"command":"ls"}}`, true, ""},
		// A longer one would go into every log line: refused.
		{"session-id-10KB", `{"session_id":"` + longID + `","tool_name":"Bash","tool_input":{"command":"ls"}}`, false, "longer than 256 bytes"},
		{"tool-input-7MB", string(big), true, ""},
		{"nested-100k", deep, false, "exceeded max depth"},
		{"invalid-utf8", "{\"session_id\":\"s\xff1\",\"tool_name\":\"Ba\xc3sh\",\"tool_input\":{\"command\":\"l\xeds\"}}", true, ""},
		{"cwd-missing", `{"session_id":"s1","cwd":"/no/such/dir","tool_name":"Bash","tool_input":{"command":"cat .claude/settings.json"}}`, true, ""},
		{"post-tool-use", `{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{}}`, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newTestHook(t)
			h.Deadline = time.Minute // the answer is checked, not the time (see above)
			var out bytes.Buffer
			h.Run(strings.NewReader(c.stdin), &out, "claude")
			if out.Len() != 0 {
				t.Errorf("stdout = %q", out.String())
			}
			in, err := ParseInput([]byte(c.stdin), agent.Claude)
			if c.counted {
				if err != nil {
					t.Fatal(err)
				}
				if sess, err := (&Store{Dir: h.StateDir}).ReadSession(agent.Claude, in.SessionID); err != nil || sess == nil || sess.Calls != 1 {
					t.Errorf("state = %+v, %v; want the call counted", sess, err)
				}
			} else if entries, _ := os.ReadDir(filepath.Join(h.StateDir, "sessions")); len(entries) != 0 {
				t.Errorf("a call that is not answered left state: %v", entries)
			}
			if c.log == "" && errorLog(t, h) != "" {
				t.Errorf("error log = %q, want nothing", errorLog(t, h))
			}
			checkLogLines(t, h, c.log)
		})
	}
}

// Two hooks of one session at a time while its transcript grows: every
// call is counted once and the spend ends equal to one read of the whole
// file.
func TestHookRaceWithGrowingTranscript(t *testing.T) {
	h := newTestHook(t)
	h.Deadline, h.LockWait = time.Minute, time.Minute
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const responses, calls = 200, 20
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range responses {
			// Half lines too: a hook may read between the two writes.
			line := fmt.Sprintf(`{"type":"assistant","sessionId":"s1","requestId":"req_%d","message":{"id":"msg_%d","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":1000,"output_tokens":10}}}`+"\n", i, i)
			_, _ = f.WriteString(line[:len(line)/2])
			_, _ = f.WriteString(line[len(line)/2:])
		}
	})
	for w := range 2 {
		wg.Go(func() {
			for i := range calls {
				in := fmt.Sprintf(`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"echo %d %d"},"transcript_path":%q}`, w, i, path)
				h.Run(strings.NewReader(in), &bytes.Buffer{}, "claude")
			}
		})
	}
	wg.Wait()
	runCounted(t, h, agent.Claude, "s1", hostileCall(t, agent.Claude, "s1", path), 2*calls+1)
	sess, _ := (&Store{Dir: h.StateDir}).ReadSession(agent.Claude, "s1")
	if sess.Spend.Tokens.Input != responses*1000 || sess.Spend.Tokens.Output != responses*10 {
		t.Errorf("tokens = %+v, want %d responses counted once", sess.Spend.Tokens, responses)
	}
	checkLogLines(t, h)
	if errorLog(t, h) != "" {
		t.Errorf("error log = %q", errorLog(t, h))
	}
}

// The tamper wire reads the settings files a call edits or names: a FIFO
// there (or /dev/tty) is not opened, and the call is still answered.
func TestHookSettingsFileFIFO(t *testing.T) {
	h := newTestHook(t)
	h.Deadline = time.Minute
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, ".claude", "settings.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	edit := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"tool_name":"Edit","tool_input":{"file_path":".claude/settings.json","old_string":"a","new_string":"b"}}`, proj)
	run := fmt.Sprintf(`{"session_id":"s1","cwd":%q,"tool_name":"Bash","tool_input":{"command":"claude --settings .claude/settings.json -p hi"}}`, proj)
	runCounted(t, h, agent.Claude, "s1", edit, 1)
	runCounted(t, h, agent.Claude, "s1", run, 2)
}

// The error log stays one line per error, each of bounded length, even
// when the error quotes a megabyte-long path full of newlines or the
// command line carries a newline.
func TestHookErrorLogLinesBounded(t *testing.T) {
	h := newTestHook(t)
	path := "/tmp/a\nb\r\n2026-01-01T00:00:00Z forged line\n" + strings.Repeat("p/", 512<<10)
	for range 3 {
		h.Run(strings.NewReader(hostileCall(t, agent.Claude, "s1", path)), &bytes.Buffer{}, "claude\n2026-01-01T00:00:00Z forged")
	}
	log := errorLog(t, h)
	lines := strings.SplitAfter(strings.TrimSuffix(log, "\n"), "\n")
	// Each run: the unknown harness named on the command line, and the
	// transcript that cannot be read.
	if len(lines) != 6 {
		t.Fatalf("error log has %d lines, want 6:\n%.2000s", len(lines), log)
	}
	for _, l := range lines {
		if len(l) > 4<<10+64 || strings.Contains(l, "forged line\n") {
			t.Errorf("error log line of %d bytes: %.200q", len(l), l)
		}
	}
	checkLogLines(t, h, "unknown harness", "file name too long")
}

// runaway's own config file that is a FIFO or a folder: the defaults
// apply, the call is answered, the log says why.
func TestHookConfigNotARegularFile(t *testing.T) {
	for kind, what := range map[string]string{"fifo": "a named pipe", "folder": "a folder"} {
		t.Run(kind, func(t *testing.T) {
			h := newTestHook(t)
			h.Deadline = time.Minute
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(h.ConfigPath, 0o600)
			} else {
				err = os.Mkdir(h.ConfigPath, 0o700)
			}
			if err != nil {
				t.Fatal(err)
			}
			runCounted(t, h, agent.Claude, "s1", bashCall, 1)
			checkLogLines(t, h, "is not a regular file ("+what+"), using the defaults")
		})
	}
}

// A command of megabytes is judged within the deadline: its summary no
// longer runs the redaction patterns over all of it (2-3.5 s for 6 MB,
// about the 3 s deadline, so that padding a `runaway allow` could get it
// through as "no decision").
func TestHookHugeCommandStillJudged(t *testing.T) {
	h := newTestHook(t)
	h.Deadline = DefaultDeadline
	in, _ := json.Marshal(map[string]any{"session_id": "s1", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "runaway allow s1 --add 100 # " + strings.Repeat("key", 2<<20)}})
	var out bytes.Buffer
	h.Run(bytes.NewReader(in), &out, "claude")
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Fatalf("stdout = %.200q, error log = %.300q; want the tamper wire's deny", out.String(), errorLog(t, h))
	}
	if s := Summarize("Bash", json.RawMessage(`{"command":"ls `+strings.Repeat("x ", 8<<10)+`"}`)); len(s) > maxSummary+4 || !strings.HasPrefix(s, "ls x x") {
		t.Errorf("summary of a long command = %q", s)
	}
}

// Files nested a million levels deep, written by a call or already on
// disk, no longer overflow the JSONC or TOML parser's stack (a fatal error
// that killed the hook with exit status 2 and a stack dump, no log line).
func TestHookDeeplyNestedSettings(t *testing.T) {
	deep := strings.Repeat("[", 2<<20)
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"a":`+deep), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newTestHook(t)
	env := map[string]string{"CODEX_HOME": filepath.Join(proj, "codex")}
	h.Getenv = func(k string) string { return env[k] }
	calls := []map[string]any{
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": ".claude/settings.local.json", "content": `{"a":` + deep}},
		{"tool_name": "Edit", "tool_input": map[string]any{"file_path": ".claude/settings.json", "old_string": `{"a":`, "new_string": `{"b":`}},
		{"tool_name": "Write", "tool_input": map[string]any{"file_path": filepath.Join(proj, "codex", "config.toml"), "content": "a = " + deep}},
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "claude --settings '{\"a\":" + deep + "' -p hi"}},
	}
	for i, c := range calls {
		c["session_id"], c["cwd"] = "s1", proj
		in, _ := json.Marshal(c)
		runCounted(t, h, agent.Claude, "s1", string(in), i+1)
	}
	if err := os.WriteFile(h.ConfigPath, []byte(`{"session_cap_usd":`+deep), 0o600); err != nil {
		t.Fatal(err)
	}
	runCounted(t, h, agent.Claude, "s1", bashCall, len(calls)+1)
	checkLogLines(t, h, "nests deeper than 10000 levels")
}

// A FIFO in place of one of runaway's own files: nothing blocks in
// open(2). Before, a FIFO errors.log hung Run itself past its deadline (the
// deadline's own log line blocked), and the others held every call of the
// session until the deadline.
func TestHookOwnFilesFIFO(t *testing.T) {
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).Local().Format(time.DateOnly)
	for _, name := range []string{ownfiles.ErrorLogName, ownfiles.DecisionLogName, "sessions/claude-s1.json", "daily/" + day + ".json"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			h := newTestHook(t)
			h.Deadline = 2 * time.Second
			env := map[string]string{"RUNAWAY_DAILY_CAP_USD": "100"}
			h.Getenv = func(k string) string { return env[k] }
			p := filepath.Join(h.StateDir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			// A call the tamper wire denies: it is recorded in the decision
			// log. The second call has no session id: it is logged.
			deny := `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"runaway allow s1 --add 5"}}`
			for _, in := range []string{deny, `{"tool_name":"Bash"}`, deny} {
				done := make(chan struct{})
				go func() {
					defer close(done)
					h.Run(strings.NewReader(in), &bytes.Buffer{}, "claude")
				}()
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("Run hung past its deadline with %s a FIFO", name)
				}
			}
			log := h.Stderr.(*bytes.Buffer).String()
			if name != ownfiles.ErrorLogName {
				log += errorLog(t, h)
			}
			// The daily ledger is rewritten when it cannot be read: no log.
			refused := strings.Contains(log, "not a regular file") || strings.Contains(log, "no such device") || strings.HasPrefix(name, "daily/")
			if strings.Contains(log, "deadline") || !refused {
				t.Errorf("errors = %q, want the FIFO refused at once", log)
			}
		})
	}
}
