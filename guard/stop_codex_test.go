package guard

import (
	"slices"
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

// The stops runaway ends the agent for: a spend stop first (its next
// commands raise the cap), else a loop or failure wire's escalated stop
// (next: resume only); never a deny or another wire's stop.
func TestEndingStop(t *testing.T) {
	spend := Verdict{Kind: Stop, Wire: "spend", Allow: "runaway allow s --add 1"}
	loop := Verdict{Kind: Stop, Wire: "loop", Fact: "the same exec_command call 4 times in a row"}
	for _, c := range []struct {
		name string
		ans  Answer
		want string
		next []string
	}{
		{"spend", Answer{Verdicts: []Verdict{loop, spend}}, "spend", []string{"runaway allow s --add 1", "codex exec resume s"}},
		{"loop", Answer{Verdicts: []Verdict{{Kind: Deny, Wire: "failure"}, loop}}, "loop", []string{"codex exec resume s"}},
		{"failure", Answer{Verdicts: []Verdict{{Kind: Stop, Wire: "failure"}}}, "failure", []string{"codex exec resume s"}},
		{"tripwire", Answer{Verdicts: []Verdict{{Kind: Stop, Wire: "tripwire"}}}, "", nil},
		{"loop deny", Answer{Verdicts: []Verdict{{Kind: Deny, Wire: "loop"}}}, "", nil},
	} {
		v, ok := endingStop(c.ans)
		if ok != (c.want != "") || v.Wire != c.want {
			t.Errorf("%s: ending stop %q (%v), want %q", c.name, v.Wire, ok, c.want)
			continue
		}
		if ok {
			if got := nextCommands(v, "codex exec resume s"); !slices.Equal(got, c.next) {
				t.Errorf("%s: next %q, want %q", c.name, got, c.next)
			}
		}
	}
	if got := endsAt(loop); !strings.Contains(got, "went on the same way") {
		t.Errorf("an escalated stop ends %q", got)
	}
}
