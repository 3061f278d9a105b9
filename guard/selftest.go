package guard

import (
	"encoding/json"
	"fmt"

	"github.com/runaway-guard/runaway/agent"
)

// SelfTest is a sample of one tool call of the agent, for doctor's live
// test (`runaway hook --self-test <agent> <transcript>`): the call as the
// agent sends it, naming a session file at transcript, and what that file
// holds ("" when the agent keeps none runaway reads). Doctor writes the
// file and feeds the call to the agent's own entry, so the installer needs
// to know no agent's input format.
type SelfTest struct {
	Call       json.RawMessage `json:"call"`
	Transcript string          `json:"transcript"`
}

// Sample returns the agent's sample call.
func Sample(id agent.ID, transcript string) (SelfTest, error) {
	d := dialectOf(id)
	if !knownDialect(id) || d.sample == nil {
		return SelfTest{}, fmt.Errorf("runaway has no sample call of %q", id)
	}
	call, session := d.sample(transcript)
	return SelfTest{Call: json.RawMessage(call), Transcript: session}, nil
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
