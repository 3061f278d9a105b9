package main

import "github.com/runaway-guard/runaway/agent"

// agentIDs reads --harness values: ids or their aliases (claude-code, in
// any case). An unknown name is passed on as it is, for the installer to
// refuse with the list of known ones.
func agentIDs(names []string) []agent.ID {
	var out []agent.ID
	for _, n := range names {
		id, ok := agent.Parse(n)
		if !ok {
			id = agent.ID(n)
		}
		out = append(out, id)
	}
	return out
}
