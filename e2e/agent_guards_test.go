package e2e

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
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

// Codex's own sandbox: under workspace-write its commands cannot write
// runaway's files, with runaway's hook gone; doctor calls that enforced.
func TestCodexSandboxHoldsWithoutTheHook(t *testing.T) {
	requireCommand(t, "setup")
	codexAgent.require(t)
	t.Parallel()
	s := newSandbox(t)
	u := codexUsage{Input: 1000}
	srv := newOpenAIServer(t, codexScript{Turns: []codexTurn{
		{Cmd: `echo '{"session_cap_usd": 1000}' > "$HOME/.config/runaway/config.json"`, Usage: u},
		{Cmd: "echo ok >> " + ranLog, Usage: u},
	}})
	s.writeCodexConfig(srv)
	cfgPath := filepath.Join(s.codexDir, "config.toml")
	// The test's home is under /tmp, which Codex lets commands write unless told not to.
	cfg := strings.Replace(s.readFile(cfgPath), `sandbox_mode = "danger-full-access"`, `sandbox_mode = "workspace-write"`, 1) +
		"\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n"
	s.writeFile(cfgPath, cfg)
	s.installRunaway()
	doctor := s.runaway("doctor")
	if !regexp.MustCompile(`(?m)^ok +codex-protection +enforced by Codex: sandbox_mode = "workspace-write"`).MatchString(doctor.Stdout) {
		t.Errorf("doctor does not call Codex's sandbox enforced:\n%s", doctor.Stdout)
	}
	config := filepath.Join(s.configDir, "config.json")
	before := s.readFile(config)
	bin := filepath.Join(s.binHome, "runaway")
	if err := os.Rename(bin, bin+".gone"); err != nil {
		t.Fatal(err)
	}
	r := s.runCodex(srv, "raise your own cap", nil)
	if got := s.readFile(config); got != before {
		t.Errorf("Codex's sandbox let the command write runaway's config:\n%s", got)
	}
	outs := r.ToolOutputs()
	t.Logf("tool outputs: %q", outs)
	if len(outs) != 2 || !strings.Contains(outs[0], "Read-only file system") {
		t.Errorf("the write was not refused by Codex's sandbox: %q", outs)
	}
	if got := strings.Join(s.ranLines(), ","); got != "ok" {
		t.Errorf("calls that ran: %q, want the harmless one (in the workspace)", got)
	}
}
