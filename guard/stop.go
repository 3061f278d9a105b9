package guard

import (
	"context"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/configs"
)

// Ended is how runaway ended an agent's run at a stop its hook answer could
// not end by itself (Codex, Qwen Code): kept in the session for status, and so that
// the hooks still running for the same process do not end it twice.
type Ended struct {
	Time time.Time `json:"time"`
	// How says what runaway did, for people.
	How string `json:"how"`
	// Next are the commands that go on: raise the cap, resume the session.
	Next []string `json:"next,omitempty"`
	// PID and Start name the process that was ended.
	PID   int    `json:"pid,omitempty"`
	Start uint64 `json:"start,omitempty"`
}

// ending is a stop runaway carries out itself: planned before the state is
// saved (the agent kills the hook within milliseconds of the signal), done
// after. Where it cannot be planned (no agent process found, ending turned
// off, an agent process that serves other sessions too), the answer's deny
// of every call is what holds.
type ending interface {
	// record is what the session keeps of it.
	record(now time.Time) *Ended
	// carryOut ends the run within ctx; errors go to logf.
	carryOut(ctx context.Context, logf func(error))
}

// planEnd returns the ending the answer calls for, or nil: the answer
// itself ends the turn, or runaway cannot end it and denies instead.
func (h *Hook) planEnd(c *call, ans Answer) ending {
	v, ok := endingStop(ans)
	if !ok || !c.policy.EndAgent || !c.in.isToolCall() {
		return nil
	}
	en := dialectOf(c.in.Harness).end
	if en == nil {
		return nil
	}
	e, err := planProcessEnd(c.in.Harness, en, c.sess, v)
	if err != nil {
		h.errorLog().Log("hook "+string(c.in.Harness), err)
	}
	if e == nil {
		return nil // a nil *processEnd is no ending
	}
	return e
}

// endingStop is the answer's stop that ends the turn: a spend stop, or a
// loop or failure wire's escalated stop (see Escalation). A spend stop
// comes first: its next commands raise the cap.
func endingStop(ans Answer) (Verdict, bool) {
	var esc Verdict
	for _, v := range ans.Verdicts {
		switch {
		case v.Kind != Stop:
		case v.Wire == "spend":
			return v, true
		case v.Wire == "loop" || v.Wire == "failure":
			if esc.Kind == None {
				esc = v
			}
		}
	}
	return esc, esc.Kind == Stop
}

// endsAt says at what runaway ended the run, for people.
func endsAt(v Verdict) string {
	if v.Wire == "spend" {
		return "at the cap"
	}
	return "as the agent went on the same way after runaway's deny"
}

// nextCommands are the commands that go on after a stop: after a spend
// stop the one that raises the cap (or where the daily cap is set), then
// resume; after an escalated one, resume (a new prompt starts over).
func nextCommands(v Verdict, resume string) []string {
	var next []string
	switch {
	case v.Wire != "spend":
	case v.Allow != "":
		next = append(next, v.Allow)
	default:
		next = append(next, "raise daily_cap_usd in "+configs.PolicyPath())
	}
	if resume != "" {
		next = append(next, resume)
	}
	return next
}

// nextLine renders the next commands for one line of a message.
func nextLine(next []string) string {
	q := make([]string, len(next))
	for i, n := range next {
		if strings.HasPrefix(n, "raise ") {
			q[i] = n
		} else {
			q[i] = "`" + n + "`"
		}
	}
	return "runaway: to go on, run " + strings.Join(q, ", then ")
}
