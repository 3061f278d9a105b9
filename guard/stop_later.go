package guard

import "time"

// deferred is a stop kept for the call's next event (Copilot CLI's
// permissionRequest), where the agent ends the turn on it: a deny at the
// call itself would only refuse the call, and the model would be asked
// again.
type deferred struct {
	Verdicts []Verdict `json:"verdicts"`
	At       time.Time `json:"at"`
}

// deferredFor is how long a deferred stop waits for its event: the
// permission request follows its call within a second, and a stop left over
// (the call denied by another hook before it got there) must not end a
// later turn.
const deferredFor = 2 * time.Minute

// deferStop keeps the answer's stops for the call's next event and returns
// what is left to answer now: nothing to refuse, so the call goes on to the
// event that ends the turn. An answer that also denies the call for a cause
// of its own (a tamper deny) is given as it is.
func (s *Session) deferStop(ans Answer, now time.Time) Answer {
	if ans.Kind() != Stop {
		return ans
	}
	var stops, rest []Verdict
	for _, v := range ans.Verdicts {
		switch v.Kind {
		case Stop:
			stops = append(stops, v)
		case Ask, Deny:
			return ans
		default:
			rest = append(rest, v)
		}
	}
	s.Deferred = &deferred{Verdicts: stops, At: now}
	return Answer{Verdicts: rest, event: ans.event}
}

// takeDeferred adds the stops deferred to this event to vs (each wire's
// once) and forgets them.
func (s *Session) takeDeferred(vs []Verdict, now time.Time) []Verdict {
	d := s.Deferred
	s.Deferred = nil
	if d == nil || now.Sub(d.At) > deferredFor || now.Before(d.At.Add(-time.Minute)) {
		return vs
	}
	for _, v := range d.Verdicts {
		dup := false
		for _, w := range vs {
			dup = dup || w.Kind == Stop && w.Wire == v.Wire
		}
		if !dup {
			vs = append(vs, v)
		}
	}
	return vs
}
