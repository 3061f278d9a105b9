package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ErrNoSession is returned when no session matches.
var ErrNoSession = errors.New("no such session")

// Find picks one session: the one whose id starts with prefix, or with no
// prefix the most recently stopped one.
func (s *Store) Find(prefix string) (*Session, error) {
	all, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	var found []*Session
	for _, sess := range all {
		if prefix == "" {
			if sess.Spend.Stopped || sess.Spend.Prompt.Stopped {
				return sess, nil
			}
			continue
		}
		if strings.HasPrefix(sess.SessionID, prefix) {
			found = append(found, sess)
		}
	}
	switch {
	case prefix == "":
		return nil, fmt.Errorf("%w: no session is stopped", ErrNoSession)
	case len(found) == 0:
		return nil, fmt.Errorf("%w: no session id starts with %q", ErrNoSession, prefix)
	case len(found) > 1:
		return nil, fmt.Errorf("%q names %d sessions; give more of the id", prefix, len(found))
	}
	return found[0], nil
}

// Allow raises one session's cap (or its current prompt's) by add dollars,
// under the session's lock. It returns the session as saved.
func (s *Store) Allow(ctx context.Context, h Harness, id string, add float64, prompt bool) (*Session, error) {
	if add <= 0 {
		return nil, fmt.Errorf("the amount to add must be above 0, not %g", add)
	}
	l, err := s.Open(ctx, h, id)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	sp := &l.Session.Spend
	if prompt {
		sp.Prompt.Allowed += add
		sp.Prompt.Stopped = false
	} else {
		sp.Allowed += add
		sp.Stopped = false
	}
	return l.Session, l.Save()
}
