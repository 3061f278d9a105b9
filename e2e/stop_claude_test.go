package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Claude Code -p with each response reaching the transcript too late for
// its calls' hooks (emulated: runaway's PreToolUse entry answers nothing,
// as when the response is not on disk by the hook's deadline): the calls
// run unpriced, and runaway's PostToolBatch entry, which runs after the
// batch and before the next request, counts the crossing response and ends
// the turn there. No request follows it, runaway's spend is the server's
// billed usage priced by hand (and Claude Code's own figure), and the
// session goes on after `runaway allow`.
func TestClaudeLateResponseStoppedAfterItsBatch(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
	var turns []claudeTurn
	for i := range 8 {
		turns = append(turns, bash(fmt.Sprintf("echo %d >> %s", i+1, ranLog), claudeUsage{Input: 100_000}))
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	s.installRunaway()
	bin := filepath.Join(s.binHome, "runaway")
	late := filepath.Join(s.root, "late-runaway")
	s.writeFile(late, `#!/bin/bash
in=$(cat)
case "$in" in *'"hook_event_name":"PreToolUse"'*) exit 0;; esac
printf '%s' "$in" | "`+bin+`" "$@"
`)
	if err := os.Chmod(late, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := s.readFile(s.claudeSettings())
	if !strings.Contains(settings, `"PostToolBatch"`) {
		t.Fatalf("setup wrote no PostToolBatch entry:\n%s", settings)
	}
	s.writeFile(s.claudeSettings(), strings.ReplaceAll(settings, bin, late))
	if hasCommand("accept") {
		// The person's own change, for the tripwire.
		if a := s.runaway("accept"); a.Code != 0 {
			t.Fatalf("runaway accept: exit %d\n%s%s", a.Code, a.Stdout, a.Stderr)
		}
	}

	// claude-sonnet-4-6 at $3/M input: $0.30 a response, $1.20 at the 4th.
	const perResponse = 100_000 * 3.0 / 1e6
	r := s.runClaude(srv, "spend", claudeOpts{Model: "claude-sonnet-4-6"})
	sid := r.Result.SessionID
	if r.Result.TerminalReason != "hook_stopped" {
		t.Errorf("terminal_reason %q, want hook_stopped", r.Result.TerminalReason)
	}
	if got := strings.Join(s.ranLines(), ","); got != "1,2,3,4" {
		t.Errorf("calls that ran: %s, want 1-4 (the 4th, priced too late, ran)", got)
	}
	if got := srv.count("main"); got != 4 {
		t.Errorf("the model was asked %d times, want 4: none after the crossing response", got)
	}
	st := s.status("claude", sid)
	if want := 4 * perResponse; !closeTo(st.SpendUSD, want) || !closeTo(r.Result.TotalCostUSD, want) || st.State != "stopped" {
		t.Errorf("spend: runaway $%.4f (%s), Claude Code $%.4f; want $%.2f billed, stopped", st.SpendUSD, st.State, r.Result.TotalCostUSD, want)
	}
	checkDecisions(t, s, "claude", sid, "spend", "stop", 1)
	if n := s.notifications("stop"); len(n) == 0 || n[len(n)-1]["allow_command"] == "" {
		t.Errorf("notify_command: %v", n)
	}

	s.runAllowFromStopMessage("claude", sid)
	second := s.runClaude(srv, "go on", claudeOpts{Model: "claude-sonnet-4-6", Resume: sid})
	if ran := len(s.ranLines()); ran <= 4 {
		t.Errorf("after allow no more calls ran (%d in all); the resumed run ended %q", ran, second.Result.TerminalReason)
	}
	if log := s.errorsLog(); log != "" {
		t.Errorf("errors.log:\n%s", log)
	}
}
