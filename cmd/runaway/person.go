package main

import (
	"fmt"

	"github.com/runaway-guard/runaway/guard/caller"
)

// onlyThePerson refuses a command that changes runaway's limits or wiring
// when an agent's tool call runs it, by any path or copy of the binary: an
// agent must not raise its own cap or take its guard off.
func onlyThePerson(command string) error {
	found, inside := caller.InsideAgent()
	if !inside {
		return nil
	}
	hints := []string{fmt.Sprintf("run `runaway %s` yourself, in your own terminal, outside the agent", command)}
	if found.Unsure != "" {
		hints = append(hints, "if this is your own terminal: run it outside the namespace or sandbox it runs in, where runaway can read its parent processes")
	}
	return failf(hints,
		"%s refuses to run inside an agent's tool call (%s): only the person changes runaway's limits or wiring", command, found.Why())
}
