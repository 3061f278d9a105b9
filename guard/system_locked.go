package guard

import (
	"errors"

	"github.com/runaway-guard/runaway/agent"
)

// stopWhileLocked: in system mode the agent's user can run the setgid hook
// with its session's id as often as it likes, and so keep the session's
// lock taken. A call that cannot get the lock still ends in a stop that is
// already due (read from the state without the lock; the state is written
// by rename, so a read sees a whole file): holding the lock must not get
// past a cap.
func (h *Hook) stopWhileLocked(err error, store *Store, id agent.ID, session string) (Verdict, bool) {
	if !h.System || !errors.Is(err, ErrLocked) {
		return Verdict{}, false
	}
	s, rerr := store.ReadSession(id, session)
	if rerr != nil || s == nil {
		return Verdict{}, false
	}
	if v := s.tamperedVerdict(); v.Kind != None {
		return v, true
	}
	if s.Spend.Stopped {
		return Verdict{Kind: Stop, Wire: "spend",
			Reason:    "runaway: this session is stopped at its spend cap. To go on, the person runs `" + allowCommand + session + " --add 5` in their own terminal.",
			ModelHint: "Do not retry: runaway denies every call until the person raises the cap. Tell the person what you were doing and stop."}, true
	}
	return Verdict{}, false
}
