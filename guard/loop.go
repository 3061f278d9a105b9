package guard

import (
	"fmt"
	"strings"
)

// Cycles of these periods, repeated cycleRepeats times, are loops: an agent
// going back and forth between two or three approaches.
var cyclePeriods = []int{2, 3}

const cycleRepeats = 3

// recentCap is how many calls the loop wire needs to remember.
func recentCap(repeatRun int) int {
	return max(repeatRun, cyclePeriods[len(cyclePeriods)-1]*cycleRepeats)
}

// loopWire records the call and triggers on repeatRun identical calls in a
// row, or on a short cycle repeated. After it triggers the run starts over,
// so the person is not asked again on every following call.
func loopWire(sess *Session, c Call, repeatRun int) Verdict {
	sess.Recent = append(sess.Recent, c)
	if n := recentCap(repeatRun); len(sess.Recent) > n {
		sess.Recent = append(sess.Recent[:0], sess.Recent[len(sess.Recent)-n:]...)
	}
	msg := ""
	if n := sameRun(sess.Recent); n >= repeatRun {
		msg = fmt.Sprintf("runaway: the same %s call %d times in a row%s", c.Tool, n, quoted(c.Summary))
	} else if p := cycle(sess.Recent); p > 0 {
		msg = fmt.Sprintf("runaway: the same %d calls %d times over: %s", p, cycleRepeats, describeCycle(sess.Recent[len(sess.Recent)-p:]))
	}
	if msg == "" {
		return Verdict{}
	}
	sess.Recent = sess.Recent[:0]
	return Verdict{
		Kind:      Ask,
		Wire:      "loop",
		Reason:    msg,
		ModelHint: "This looks like a loop. Stop, tell the person what you tried and why it did not work, and ask how to go on before trying again.",
	}
}

// sameRun is how many calls at the end of recent are identical.
func sameRun(recent []Call) int {
	n := 0
	for i := len(recent) - 1; i >= 0 && recent[i].Fingerprint == recent[len(recent)-1].Fingerprint; i-- {
		n++
	}
	return n
}

// cycle returns the period of a cycle repeated cycleRepeats times at the
// end of recent, or 0. A "cycle" of identical calls is a run, not a cycle.
func cycle(recent []Call) int {
	for _, p := range cyclePeriods {
		span := p * cycleRepeats
		if len(recent) < span {
			continue
		}
		tail := recent[len(recent)-span:]
		periodic := true
		for i := p; i < span; i++ {
			if tail[i].Fingerprint != tail[i-p].Fingerprint {
				periodic = false
				break
			}
		}
		if periodic && !allSame(tail[:p]) {
			return p
		}
	}
	return 0
}

func allSame(calls []Call) bool {
	for _, c := range calls[1:] {
		if c.Fingerprint != calls[0].Fingerprint {
			return false
		}
	}
	return true
}

func describeCycle(calls []Call) string {
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.Tool + quoted(c.Summary)
	}
	return strings.Join(parts, " → ")
}

// quoted renders a summary as ": `cmd`" (or " `cmd`"), or nothing.
func quoted(summary string) string {
	if summary == "" {
		return ""
	}
	return ": `" + summary + "`"
}
