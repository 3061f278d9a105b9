package report

import (
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// noHistory are the agents whose session files carry no token usage, so a
// report has nothing to read of them.
var noHistory = map[agent.ID]string{agent.Cursor: "its transcripts carry no token usage"}

// TestEveryAgentHasASource: an agent added to the registry is read by a
// report too, or says here why not.
func TestEveryAgentHasASource(t *testing.T) {
	for _, id := range agent.IDs() {
		if _, skip := noHistory[id]; skip {
			continue
		}
		if !Reads(id) {
			t.Errorf("agent %s has no report source (report/<agent>.go, listed in sources)", id)
		}
	}
}
