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
