//go:build linux

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Codex terminal UI at the cap: runaway's SIGINT ends it at the
// crossing call (the call does not run, no request follows), repairs the
// terminal it leaves raw and prints what happened and what to run there; a
// command typed in the same terminal afterwards works, with echo and line
// editing back. The session then resumes after `runaway allow`.
func TestCodexTUIEndsAtCapAndTerminalWorks(t *testing.T) {
	requireWire(t, "spend")
	requireCommand(t, "allow")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.setenv("RUNAWAY_SESSION_CAP_USD", "1")
	s.setenv("RUNAWAY_REPEAT_RUN", "100")
	s.setenv("RUNAWAY_NOTIFY_COMMAND", "cat >> "+filepath.Join(s.proj, notifyLog))
	srv := newOpenAIServer(t, codexSpendScript(8, 8))
	s.writeCodexConfig(srv)
	cfg := filepath.Join(s.codexDir, "config.toml")
	s.writeFile(cfg, s.readFile(cfg)+fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", s.proj))
	s.installRunaway()

	// A shell on the terminal, as a person's: Codex runs in it, and it
	// takes the next command once Codex is gone.
	sh := startTUI(t, s, map[string]string{"FAKE_KEY": "dummy", "TERM": "xterm-256color", "PS1": "e2e$ "}, "/bin/bash", "--norc", "--noprofile", "-i")
	sh.waitFor(`e2e\$`, 20*time.Second)
	sh.send("'" + codexAgent.path + "' --dangerously-bypass-hook-trust 'run the scripted commands'\r")
	// Codex first offers a newer model (stopping-observed.md §1.4): keep
	// the configured one.
	// the configured one (keys typed before the screen reads them are lost
	// under load: typed again while it shows).
	for tries, deadline := 0, time.Now().Add(60*time.Second); tries < 4 && time.Now().Before(deadline); time.Sleep(4 * time.Second) {
		text := sh.squashed()
		if strings.Contains(text, "runaway:togoon") {
			break
		}
		if strings.Contains(text[max(0, len(text)-1500):], "Useexistingmodel") {
			tries++
			sh.send("2")
			time.Sleep(500 * time.Millisecond)
			sh.send("\r")
		}
	}
	sh.waitFor("runaway:togoon,run`runawayallow[0-9a-f-]+--add1`,then`codexresume[0-9a-f-]+`", 90*time.Second)
	if !strings.Contains(sh.squashed(), "endedCodex") {
		t.Errorf("the terminal does not say runaway ended Codex:\n%s", sh.tail())
	}
	if got := strings.Join(s.ranLines(), ","); got != "first-1,first-2,first-3" {
		t.Errorf("calls that ran: %s", got)
	}
	turns, titles := 0, 0
	for _, r := range srv.log() {
		switch r.Kind {
		case "turn":
			turns++
		case "title":
			titles++
		}
	}
	if turns != 4 {
		t.Errorf("the model was asked %d times for the session, want 4: none after the crossing response\n%v", turns, srv.log())
	}

	// The terminal is usable: what is typed is echoed, a line is read
	// whole, and the command runs.
	time.Sleep(time.Second)
	sh.send("stty -a | grep -q ' icanon' && stty -a | grep -q ' echo ' && echo tty-is-$((6*7))\r")
	sh.waitFor(`tty-is-42`, 20*time.Second)
	t.Logf("what the person sees, after Codex:\n%s", lastLines(sh.text(), 6))

	// The spend is the session's billed usage priced by hand: the crossing
	// response included. The title request's usage is in no rollout.
	sid := ""
	for _, n := range s.notifications("stop") {
		if n["event"] == "stop" {
			sid, _ = n["session_id"].(string)
			if !strings.Contains(fmt.Sprint(n["ended"]), "ended Codex") {
				t.Errorf("notify_command: %v", n)
			}
		}
	}
	if sid == "" {
		t.Fatalf("notify_command got no stop")
	}
	st := s.status("codex", sid)
	if want := 4 * gpt55Response; !closeTo(st.SpendUSD, want) || st.State != "stopped" {
		t.Errorf("status: spend $%.4f state %q, want $%.4f (the 4 responses of the session) stopped", st.SpendUSD, st.State, want)
	}
	t.Logf("the TUI's %d title requests (%d+%d tokens each) are billed and in no rollout: runaway cannot count them", titles, titleUsage.Input, titleUsage.Output)

	s.runAllowFromStopMessage("codex", sid)
	before := len(srv.log())
	second := s.resumeCodex(sid, resumeMarker+": go on", nil)
	// The killed TUI's crossing call has no output in the rollout: 3 + 4.
	checkCodexEnded(t, second, srv, before, 4, 3+4)
	if got := strings.Join(s.ranLines()[3:], ","); got != "resumed-1,resumed-2,resumed-3" {
		t.Errorf("resumed calls that ran: %s", got)
	}
	if want := 8 * gpt55Response; !closeTo(s.status("codex", sid).SpendUSD, want) {
		t.Errorf("after the resumed run runaway counts $%.4f, want $%.4f (8 responses billed)", s.status("codex", sid).SpendUSD, want)
	}
}
