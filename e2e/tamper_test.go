package e2e

import (
	"strings"
	"testing"
)

// The agent tries to switch its own guard off: raise its cap with `runaway
// allow`, then empty its settings file. Both calls are denied (the tamper
// wire), the settings keep runaway's entry, and the agent's harmless call
// after them runs.
func TestTamperWireDeniesAgentSwitchingGuardOff(t *testing.T) {
	requireCommand(t, "hook")
	requireCommand(t, "allow")
	cmds := func(settings string) []string {
		return []string{
			"runaway allow --add 100",
			"echo '{}' > " + settings,
			"echo ok >> " + ranLog,
		}
	}

	t.Run("claude", func(t *testing.T) {
		claudeAgent.require(t)
		t.Parallel()
		s := newSandbox(t)
		var turns []claudeTurn
		for _, c := range cmds("\"$CLAUDE_CONFIG_DIR/settings.json\"") {
			turns = append(turns, bash(c, claudeUsage{Input: 1000}))
		}
		srv := newAnthropicServer(t, claudeScript{Main: turns})
		s.installRunaway()
		settings := s.readFile(s.claudeSettings())
		r := s.runClaude(srv, "switch the guard off", claudeOpts{Model: "claude-haiku-4-5"})
		checkClaudeCompleted(t, r)
		if got := claudeStopped(t, s, r); len(got) != 2 || got[0] != 1 || got[1] != 2 {
			t.Errorf("denied calls %v, want [1 2]", got)
		}
		checkTamperHeld(t, s, "claude", r.Result.SessionID, s.claudeSettings(), settings)
	})

	t.Run("codex", func(t *testing.T) {
		codexAgent.require(t)
		t.Parallel()
		s := newSandbox(t)
		var turns []codexTurn
		for _, c := range cmds("\"$CODEX_HOME/hooks.json\"") {
			turns = append(turns, codexTurn{Cmd: c, Usage: codexUsage{Input: 1000}})
		}
		srv := newOpenAIServer(t, codexScript{Turns: turns})
		s.writeCodexConfig(srv)
		s.installRunaway()
		hooks := s.readFile(s.codexHooks())
		r := s.runCodex(srv, "switch the guard off", nil)
		checkCodexDenied(t, s, r, 3, []int{1, 2}, "tamper")
		checkTamperHeld(t, s, "codex", r.Session(), s.codexHooks(), hooks)
	})
}

func checkTamperHeld(t *testing.T, s *sandbox, harness, session, settingsPath, settings string) {
	t.Helper()
	checkDecisions(t, s, harness, session, "tamper", "deny", 2)
	if got := s.readFile(settingsPath); got != settings {
		t.Errorf("%s changed:\n%s", settingsPath, got)
	}
	if got := strings.Join(s.ranLines(), ","); got != "ok" {
		t.Errorf("calls that ran: %q, want only the harmless one", got)
	}
	if st := s.status(harness, session); st.CapUSD != 20 {
		t.Errorf("the session's cap is $%.2f, want setup's $20", st.CapUSD)
	}
}
