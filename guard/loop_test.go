package guard

import (
	"fmt"
	"strings"
	"testing"
)

func calls(seq string) []Call {
	out := make([]Call, len(seq))
	for i, r := range seq {
		out[i] = Call{Fingerprint: string(r), Tool: "Bash", Summary: "cmd " + string(r)}
	}
	return out
}

// feed runs the loop wire over a sequence of calls (one letter a call) and
// returns the 1-based positions where it triggered.
func feed(seq string, repeatRun int) []int {
	var s Session
	var fired []int
	for i, c := range calls(seq) {
		if v := loopWire(&s, c, repeatRun); v.Kind != None {
			fired = append(fired, i+1)
		}
	}
	return fired
}

func TestLoopWire(t *testing.T) {
	cases := []struct {
		seq       string
		repeatRun int
		want      string
	}{
		{"aaaa", 5, "[]"},
		{"aaaaa", 5, "[5]"},
		{"aaaaaaaaaa", 5, "[5 10]"}, // starts over after triggering
		{"aaaabaaaa", 5, "[]"},
		{"aaa", 3, "[3]"},
		{"ababab", 5, "[6]"},
		{"ababa", 5, "[]"},
		{"abcabcabc", 5, "[9]"},
		{"abcabcab", 5, "[]"},
		{"abcabdabc", 5, "[]"},
		{"abab" + "abab" + "ab", 9, "[6]"},   // cycles do not wait for repeat_run
		{"xababab", 5, "[7]"},                // a cycle at the end counts
		{"aabaabaab", 5, "[9]"},              // period 3 with a repeat inside
		{"ababababababab", 5, "[6 12]"},      // starts over after a cycle too
		{strings.Repeat("abcd", 5), 5, "[]"}, // period 4 is not a loop we look for
		{"aaaaaa" + "bbbbbbb", 6, "[6 12]"},  // configurable run
	}
	for _, c := range cases {
		got := fmt.Sprint(feed(c.seq, c.repeatRun))
		if got != c.want {
			t.Errorf("%s (run %d): fired at %s, want %s", c.seq, c.repeatRun, got, c.want)
		}
	}
}

func TestLoopWireReasons(t *testing.T) {
	var s Session
	var v Verdict
	for _, c := range calls("aaaaa") {
		v = loopWire(&s, c, 5)
	}
	if v.Kind != Ask || v.Wire != "loop" || v.Reason != "runaway: the same Bash call 5 times in a row: `cmd a`" {
		t.Errorf("got %+v", v)
	}
	s = Session{}
	for _, c := range calls("ababab") {
		v = loopWire(&s, c, 5)
	}
	if v.Reason != "runaway: the same 2 calls 3 times over: Bash: `cmd a` → Bash: `cmd b`" {
		t.Errorf("got %q", v.Reason)
	}
}

// The state never holds more calls than the wire needs.
func TestLoopWireBoundedMemory(t *testing.T) {
	var s Session
	for i := range 1000 {
		loopWire(&s, Call{Fingerprint: fmt.Sprint(i)}, 5)
		if len(s.Recent) > recentCap(5) {
			t.Fatalf("kept %d calls", len(s.Recent))
		}
	}
}
