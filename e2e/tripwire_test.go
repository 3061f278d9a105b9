package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the tamper wire cannot see: a Makefile target written before the
// session (here by the test, as a person or an earlier session would)
// raises runaway's cap when the agent runs `make`. The call runs — make is
// ordinary work — and the tripwire ends the turn after it, before the next
// request; status and doctor name the file and the person's next command.
func TestTripwireStopsClaudeAfterAMakefileEditsTheConfig(t *testing.T) {
	requireCommand(t, "hook")
	requireCommand(t, "accept")
	claudeAgent.require(t)
	s := newSandbox(t)
	s.installRunaway() // setup records runaway's files for the tripwire
	config := filepath.Join(s.configDir, "config.json")
	if _, err := os.Stat(config); err != nil {
		t.Fatalf("setup wrote no config: %v", err)
	}
	s.writeFile(filepath.Join(s.proj, "Makefile"), "tune:\n\tprintf '{\"session_cap_usd\": 100000}\\n' > \"$$XDG_CONFIG_HOME/runaway/config.json\"\n")
	turns := []claudeTurn{
		bash("make tune", claudeUsage{Input: 1000}),
		bash("echo ok >> "+ranLog, claudeUsage{Input: 1000}),
	}
	srv := newAnthropicServer(t, claudeScript{Main: turns})
	r := s.runClaude(srv, "build it", claudeOpts{Model: "claude-haiku-4-5"})
	if got := s.readFile(config); !strings.Contains(got, "100000") {
		t.Fatalf("make tune did not run (config %q): the test's premise", got)
	}
	// runaway's PostToolBatch entry sees the change once make's batch is
	// done, and ends the turn before the model is asked again (issue 29).
	if stopped := claudeStopped(t, s, r); len(stopped) != 0 || r.Result.TerminalReason != "hook_stopped" || srv.count("main") != 1 {
		t.Fatalf("stopped calls %v, terminal_reason %q, %d requests; want the turn ended after make's batch, before a 2nd request", stopped, r.Result.TerminalReason, srv.count("main"))
	}
	if got := s.ranLines(); len(got) != 0 {
		t.Errorf("calls that ran after the change: %q", got)
	}
	checkDecisions(t, s, "claude", r.Result.SessionID, "tripwire", "stop", 1)
	if st := s.runaway("status"); !strings.Contains(st.Stdout, "tripwire") || !strings.Contains(st.Stdout, config) {
		t.Errorf("status does not show the trip:\n%s", st.Stdout)
	}
	if d := s.runaway("doctor"); !strings.Contains(d.Stdout, "tripwire") {
		t.Errorf("doctor does not show the trip:\n%s", d.Stdout)
	}
	if a := s.runaway("accept"); a.Code != 0 || !strings.Contains(a.Stdout, "accepted: "+config) {
		t.Errorf("runaway accept: exit %d\n%s%s", a.Code, a.Stdout, a.Stderr)
	}
}

// acceptChanges runs `runaway accept` after the test edited runaway's files
// as the person would: the tripwire would stop the session otherwise.
func (s *sandbox) acceptChanges() {
	s.t.Helper()
	if !hasCommand("accept") {
		return
	}
	if r := s.runaway("accept"); r.Code != 0 {
		s.t.Fatalf("runaway accept: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
