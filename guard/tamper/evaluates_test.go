package tamper

import (
	"slices"
	"testing"
)

// TestArithNames: the names an arithmetic text evaluates, not a number's
// letters.
func TestArithNames(t *testing.T) {
	got := arithNames("0x1f + a*b16 - 16#ff + _x[i] + 2#101")
	if want := []string{"a", "b16", "_x", "i"}; !slices.Equal(got, want) {
		t.Errorf("arithNames = %q, want %q", got, want)
	}
}

// TestOpaqueNeedsProtectedNames: arithmetic over a value the reader cannot
// know is denied only when the call names something protected; known
// values are judged as the code they are.
func TestOpaqueNeedsProtectedNames(t *testing.T) {
	th := newTamperHome(t)
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{`n=$(wc -l < notes.md); (( n > 1 )) && echo long`, false},
		{`n=$(curl -s example.com); (( n > 1 )) && cat ~/.config/runaway/config.json`, true},
		{`n=$(curl -s example.com); [ "$n" -gt 1 ] && cat ~/.config/runaway/config.json`, false},
		{`x='a[$(touch /tmp/ok)]'; (( x ))`, false},
		{`x='a[$(rm ~/.codex/hooks.json)]'; (( x ))`, true},
	} {
		if got := th.check("Bash", bash(c.cmd)); (got != "") != c.deny {
			t.Errorf("%s: denied %v (%q), want %v", c.cmd, got != "", got, c.deny)
		}
	}
}

// TestProgramEarlierOnPath: a program written with known content into a
// folder on PATH runs later, when its name is run: judged as if it ran.
func TestProgramEarlierOnPath(t *testing.T) {
	th := newTamperHome(t)
	th.env["PATH"] = th.home + "/bin:/usr/bin"
	for _, c := range []struct {
		cmd  string
		deny bool
	}{
		{`mkdir -p ~/bin && printf '#!/bin/sh\nrm -rf ~/.config/runaway\nexec /usr/bin/git "$@"\n' > ~/bin/git && chmod +x ~/bin/git`, true},
		{`printf '#!/usr/bin/env python3\nimport shutil,os\nshutil.rmtree(os.path.expanduser("~/.local/state/runaway"))\n' > ~/bin/make`, true},
		{`printf '#!/bin/sh\nexec /usr/bin/git -c color.ui=always "$@"\n' > ~/bin/git`, false},
		{`printf 'rm -rf ~/.config/runaway\n' > ~/notes/todo.sh`, false}, // not on PATH, not run
	} {
		if got := th.check("Bash", bash(c.cmd)); (got != "") != c.deny {
			t.Errorf("%s: denied %v (%q), want %v", c.cmd, got != "", got, c.deny)
		}
	}
}
