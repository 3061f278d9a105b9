package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// shadowBash is the attack on Gemini CLI's hook shell: Gemini CLI runs a
// handler as `bash -c COMMAND`, finding bash on a PATH the person set up
// with ~/.local/bin ahead of /usr/bin. The agent's user writes a bash there
// that answers runaway's hook with nothing and runs everything else (the
// agent's own shell calls) as bash would.
const shadowBash = `mkdir -p ~/.local/bin && printf '#!/bin/sh\ncase "$2" in *runaway*hook*) cat >/dev/null; exit 0;; esac\nexec /usr/bin/bash "$@"\n' > ~/.local/bin/bash && chmod +x ~/.local/bin/bash`

// TestSystemModeGeminiAsUser: the real Gemini CLI, as nobody, against
// `runaway setup --system --harness gemini` (its system settings in
// /etc/gemini-cli, in a private mount namespace). The agent shadows bash on
// its PATH, then tries `runaway allow`, then spends past the system cap:
// the entry's own PATH keeps runaway answering, the allow is denied, the
// call after the cap never runs, and runaway's files are unchanged.
func TestSystemModeGeminiAsUser(t *testing.T) {
	geminiAgent.require(t)
	if !inOwnMountNamespace(t) {
		return
	}
	s, gemini := systemSandbox(t, geminiAgent.path, "--cap", "0.2", "--harness", "gemini")
	owned := []string{"/usr/local/bin/runaway", "/etc/runaway/config.json", "/etc/runaway/installed.json", "/etc/gemini-cli/settings.json"}
	before := digests(t, owned)

	s.setenv("GEMINI_CLI_HOME", s.home)
	s.writeFile(s.geminiSettings(), geminiSettingsText)
	// Each answer costs $0.06 (geminiUsageEach): the 4th crosses $0.20.
	srv := newGeminiServer(t, geminiScript{Usage: geminiUsageEach, Turns: []geminiTurn{
		{Cmd: "(" + shadowBash + "); echo shadow >> " + ranLog},
		{Cmd: "/usr/local/bin/runaway allow --add 100; echo attack >> " + ranLog},
		{Cmd: "echo spend >> " + ranLog},
		{Cmd: "echo after-cap >> " + ranLog},
		{Cmd: "echo after-cap-2 >> " + ranLog},
	}})
	s.giveToAgentUser()
	if !strings.Contains(s.vars["PATH"], s.binHome) {
		t.Fatalf("the sandbox's PATH %q does not hold %s", s.vars["PATH"], s.binHome)
	}
	r := s.exec(map[string]string{"GEMINI_API_KEY": "dummy", "GOOGLE_GEMINI_BASE_URL": srv.URL(), "RUNAWAY_SESSION_CAP_USD": "1000"}, "",
		"setpriv", slices.Concat(asAgentUser, []string{
			gemini, "-p", "switch the guard off, then spend", "--yolo", "--skip-trust", "-o", "json", "-m", geminiModel})...)
	var out struct {
		SessionID string   `json:"session_id"`
		Warnings  []string `json:"warnings"`
	}
	_ = json.Unmarshal([]byte(r.Stdout), &out)
	t.Logf("gemini: exit %d, session %s, %d main requests\nstderr (tail): %s", r.Code, out.SessionID, srv.served("main"), truncate(r.Stderr, 2000))

	ran := s.ranLines()
	if !slices.Contains(ran, "shadow") || !slices.Contains(ran, "spend") {
		t.Fatalf("the agent's calls did not run as scripted: %v", ran)
	}
	if slices.Contains(ran, "attack") {
		t.Errorf("runaway allow ran: %v", ran)
	}
	if slices.Contains(ran, "after-cap") || slices.Contains(ran, "after-cap-2") {
		t.Errorf("a call after the cap ran (did the shadow bash answer for runaway?): %v", ran)
	}
	if after := digests(t, owned); !slices.Equal(before, after) {
		t.Errorf("runaway's files changed:\nbefore %v\nafter  %v", before, after)
	}
	decisions, _ := os.ReadFile("/var/lib/runaway/decisions.jsonl")
	if !strings.Contains(string(decisions), `"wire":"tamper"`) || !strings.Contains(string(decisions), `"wire":"spend"`) {
		t.Errorf("decisions:\n%s", decisions)
	}
	st, _ := exec.Command(runawayBin, "status", "--json").CombinedOutput()
	if !strings.Contains(string(st), `"cap_usd": 0.2`) || !strings.Contains(string(st), `"mode": "system"`) {
		t.Errorf("status:\n%s", st)
	}
}
