package guard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/transcripts"
)

// Failures is where the failure wire stands: how many tool results in a
// row failed, and which calls runaway itself denied or sent to ask (those
// come back as failed results too; counting them would make the wire feed
// on its own answers).
type Failures struct {
	Run  int      `json:"run"`
	Ours []string `json:"ours,omitempty"`
}

// oursCap bounds the remembered ids of calls runaway stopped.
const oursCap = 32

// addResult counts one tool result into the run.
func (s *Session) addResult(r transcripts.ToolResult) {
	s.Escalation.settle(r)
	f := &s.Failures
	if i := slices.Index(f.Ours, r.ToolUseID); i >= 0 && r.ToolUseID != "" {
		f.Ours = slices.Delete(f.Ours, i, i+1)
		return
	}
	if strings.HasPrefix(r.Blocked, "runaway: ") {
		// Gemini CLI sends no call id to the hook, but its session file
		// keeps the reason a hook gave: runaway's own reasons start so.
		return
	}
	if r.Failed {
		f.Run++
	} else {
		f.Run = 0
	}
}

// noteOurs remembers a call runaway denied or sent to ask.
func (s *Session) noteOurs(toolUseID string) {
	if toolUseID == "" {
		return
	}
	f := &s.Failures
	f.Ours = append(f.Ours, toolUseID)
	if len(f.Ours) > oursCap {
		f.Ours = slices.Delete(f.Ours, 0, len(f.Ours)-oursCap)
	}
}

// failureWire triggers when failureRun tool results in a row failed; the
// run then starts over.
func failureWire(s *Session, failureRun int) Verdict {
	if s.Failures.Run < failureRun {
		return Verdict{}
	}
	n := s.Failures.Run
	s.Failures.Run = 0
	return Verdict{
		Kind:      Ask,
		Wire:      "failure",
		Reason:    fmt.Sprintf("runaway: the last %d tool calls failed in a row.", n),
		ModelHint: "Stop trying variations: tell the person what keeps failing and why, and ask how to go on.",
	}
}
