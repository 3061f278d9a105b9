package guard

import (
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// TestEveryAgentHasADialect: each agent of agent.All is answered in its own
// dialect, and each dialect is an agent's.
func TestEveryAgentHasADialect(t *testing.T) {
	for _, f := range agent.All {
		if !knownDialect(f.ID) {
			t.Errorf("%s has no dialect: add guard/dialect_%s.go and a line in dialects", f.ID, f.ID)
		}
	}
	for _, d := range dialects {
		if _, ok := agent.Lookup(d.id); !ok || d.encode == nil || d.escalated == "" {
			t.Errorf("dialect %q: an agent.All id, encode and escalated are required", d.id)
		}
	}
}
