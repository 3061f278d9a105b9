package guard

import (
	"strings"
	"testing"
)

// The codex process's arguments tell exec (interrupted, exits 1) from the
// TUI (dies, its terminal repaired) from a server of other sessions (never
// signalled): an option's value is not a subcommand, a prompt is the TUI's.
func TestCodexModeOf(t *testing.T) {
	for _, c := range []struct {
		args string
		want endMode
	}{
		{"exec --skip-git-repo-check --dangerously-bypass-hook-trust run", codexExec},
		{"-m gpt-5.5 exec hi", codexExec},
		{"-c model=x e hi", codexExec},
		{"--model=exec hi", codexTUI},
		{"-m exec", codexTUI},
		{"--profile p exec resume 019a hi", codexExec},
		{"", codexTUI},
		{"--dangerously-bypass-hook-trust run the scripted commands", codexTUI},
		{"resume 019a", codexTUI},
		{"fork 019a", codexTUI},
		{"-- exec", codexTUI},
		{"app-server", codexServer},
		{"-c x=y app-server --listen stdio://", codexServer},
		{"mcp-server", codexServer},
	} {
		if got := codexModeOf(strings.Fields(c.args)); got != c.want {
			t.Errorf("codex %s: mode %d, want %d", c.args, got, c.want)
		}
	}
}
