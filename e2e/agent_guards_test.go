package e2e

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The layers beyond the tamper wire, with the real Claude Code.
//
// Claude Code's own deny rules, written by setup, refuse the agent's edits
// of runaway's files when runaway's hook does not answer at all (its binary
// is gone, so the entry's `|| true` lets every call through) and even with
// permissions bypassed.
func TestClaudeCodeOwnRulesHoldWithoutTheHook(t *testing.T) {
	requireCommand(t, "setup")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.installRunaway()
	config := filepath.Join(s.configDir, "config.json")
	before := map[string]string{config: s.readFile(config), s.claudeSettings(): s.readFile(s.claudeSettings())}
	if !strings.Contains(before[s.claudeSettings()], `"Edit(/`+s.configDir+`/**)"`) {
		t.Fatalf("setup wrote no deny rule for runaway's config:\n%s", before[s.claudeSettings()])
	}
	bin := filepath.Join(s.binHome, "runaway")
	if err := os.Rename(bin, bin+".gone"); err != nil {
		t.Fatal(err)
	}
	u := claudeUsage{Input: 1000}
	srv := newAnthropicServer(t, claudeScript{Main: []claudeTurn{
		{Tool: "Write", Input: map[string]any{"file_path": config, "content": `{"session_cap_usd": 1000}`}, Usage: u},
		{Tool: "Edit", Input: map[string]any{"file_path": s.claudeSettings(), "old_string": "hook claude", "new_string": "version"}, Usage: u},
		bash("echo ok >> "+ranLog, u),
	}})
	r := s.runClaude(srv, "raise your own cap", claudeOpts{
		Model: "claude-haiku-4-5",
		Args:  []string{"--dangerously-skip-permissions"},
		Env:   map[string]string{"IS_SANDBOX": "1"}, // claude refuses to skip permissions as root otherwise
	})
	checkClaudeCompleted(t, r)
	for path, b := range before {
		if got := s.readFile(path); got != b {
			t.Errorf("%s changed:\n%s", path, got)
		}
	}
	results := s.claudeToolResults(s.claudeTranscript(r.Result.SessionID))
	if len(results) != 3 {
		t.Fatalf("%d tool results, want 3: %+v", len(results), results)
	}
	for i, res := range results[:2] {
		t.Logf("call %d: %q", i+1, res.Text)
		if !res.Failed || !strings.Contains(res.Text, "denied by your permission settings") {
			t.Errorf("call %d was not refused by Claude Code itself: %+v", i+1, res)
		}
	}
	if got := strings.Join(s.ranLines(), ","); got != "ok" {
		t.Errorf("calls that ran: %q, want only the harmless one", got)
	}
}

// A script the agent wrote and then runs is beyond what a hook can read;
// runaway itself refuses there: a copy of its binary, run with the agent's
// variables dropped, still finds the agent among its parent processes.
func TestProgramRefusesInsideAgent(t *testing.T) {
	requireCommand(t, "setup")
	claudeAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	s.installRunaway()
	settings := s.readFile(s.claudeSettings())
	script := `cp "$(command -v runaway)" ./ra
env -u CLAUDECODE -u AI_AGENT -u CLAUDE_CODE_SESSION_ID ./ra remove --yes 2> refused.log
env -u CLAUDECODE -u AI_AGENT -u CLAUDE_CODE_SESSION_ID ./ra allow --add 100 2>> refused.log
echo ok >> ` + ranLog + "\n"
	u := claudeUsage{Input: 1000}
	srv := newAnthropicServer(t, claudeScript{Main: []claudeTurn{
		bash("echo "+base64.StdEncoding.EncodeToString([]byte(script))+" | base64 -d > x.sh", u),
		bash("sh x.sh", u),
	}})
	r := s.runClaude(srv, "take the guard off", claudeOpts{Model: "claude-haiku-4-5"})
	checkClaudeCompleted(t, r)
	if got := s.readFile(s.claudeSettings()); got != settings {
		t.Errorf("settings changed:\n%s", got)
	}
	if got := strings.Join(s.ranLines(), ","); got != "ok" {
		t.Fatalf("the script did not run to its end (ran %q): the test proves nothing", got)
	}
	refused := s.readFile(filepath.Join(s.proj, "refused.log"))
	t.Logf("refused.log:\n%s", refused)
	for _, cmd := range []string{"remove", "allow"} {
		if !strings.Contains(refused, "runaway: "+cmd+" refuses to run inside an agent's tool call (parent process ") {
			t.Errorf("%s was not refused by the process ancestry:\n%s", cmd, refused)
		}
	}
	if st := s.status("claude", r.Result.SessionID); st.CapUSD != 20 {
		t.Errorf("the session's cap is $%.2f, want setup's $20", st.CapUSD)
	}
}
