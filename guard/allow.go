package guard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// ErrNoSession is returned when no session matches.
var ErrNoSession = errors.New("no such session")

// ErrDailyCap is returned when what stops the sessions is the daily cap,
// which allow does not raise: the person raises daily_cap_usd.
var ErrDailyCap = errors.New("the daily cap stops every session, and allow does not raise it")

// Find picks one session: the one whose id starts with prefix, or with no
// prefix the most recently active one that waits for a raised cap (stopped
// or over its cap, as status shows it). Spend is brought up to date with
// the transcripts first, as status does.
func (s *Store) Find(ctx context.Context, prefix string, p configs.Policy, pr Pricer) (*Session, error) {
	all, shorts, err := s.current(ctx, prefix, pr)
	if err != nil {
		return nil, err
	}
	if prefix == "" {
		for _, sess := range all {
			if sess.State(p).NeedsAllow() {
				return sess, nil
			}
		}
		if d := s.dayCap(p, time.Now()); d.reached() {
			return nil, fmt.Errorf("%w: all sessions have spent %s today; the daily cap is %s", ErrDailyCap, usd(d.spent), usd(d.cap))
		}
		return nil, fmt.Errorf("%w: no session is stopped or over its cap", ErrNoSession)
	}
	switch len(all) {
	case 0:
		return nil, fmt.Errorf("%w: no session id starts with %q", ErrNoSession, prefix)
	case 1:
		return all[0], nil
	}
	var whole []*Session
	for _, sess := range all {
		if sess.SessionID == prefix {
			whole = append(whole, sess)
		}
	}
	if len(whole) == 1 {
		// A whole id names its session, though it starts a longer one.
		return whole[0], nil
	}
	amb := &AmbiguousError{Prefix: prefix}
	d := s.dayCap(p, time.Now())
	for _, sess := range all {
		amb.Sessions = append(amb.Sessions, Match{
			Harness: sess.Harness, ShortID: shorts[sess.SessionID], Cwd: sess.Cwd, State: sess.stateToday(p, d),
		})
	}
	return nil, amb
}

// AmbiguousError: the id given starts the ids of more than one session.
type AmbiguousError struct {
	Prefix   string
	Sessions []Match // most recent first
}

// Match is one of the sessions an ambiguous id names, by its short id.
type Match struct {
	Harness agent.ID
	ShortID string
	Cwd     string
	State   State
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q starts the ids of %d sessions; give more of the id", e.Prefix, len(e.Sessions))
}

// Allow raises one session's cap (or its current prompt's) by add dollars,
// under the session's lock. It returns the session as saved.
func (s *Store) Allow(ctx context.Context, h agent.ID, id string, add float64, prompt bool) (*Session, error) {
	if !(add > 0) || math.IsInf(add, 0) {
		return nil, fmt.Errorf("the amount to add must be a number above 0, not %g", add)
	}
	l, err := s.Open(ctx, h, id)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	sp := &l.Session.Spend
	// The person has looked at a transcript that changed (system mode).
	l.Session.Tampered, l.Session.Held = "", nil
	if prompt {
		sp.Prompt.Allowed += add
		sp.Prompt.Stopped = false
		// Interleaved prompts (parallel Codex subagents) stop each on its
		// own: the other stopped ones are raised too.
		for i := range sp.Prompts {
			if sp.Prompts[i].Stopped {
				sp.Prompts[i].Allowed += add
				sp.Prompts[i].Stopped = false
			}
		}
	} else {
		sp.Allowed += add
		sp.Stopped = false
	}
	return l.Session, l.Save()
}
