package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/runaway-guard/runaway/guard/caller"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// onlyThePerson refuses a command that changes runaway's limits or wiring
// when an agent's tool call runs it, by any path or copy of the binary: an
// agent must not raise its own cap or take its guard off. Under a system
// install it also needs root: the person can authenticate to sudo, the
// agent cannot.
func onlyThePerson(command string) error {
	if ownfiles.SystemMode() && !sysmode.IsRoot() {
		return failf([]string{"sudo " + commandLine()},
			"runaway is installed system-wide: only root can %s (the agent's user cannot)", describe(command))
	}
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

func describe(command string) string {
	switch command {
	case "allow":
		return "raise a cap"
	case "remove":
		return "remove it"
	case "accept":
		return "accept a change to its files"
	}
	return "change its setup"
}

// commandLine is the command as the person typed it, program as `runaway`.
func commandLine() string {
	return strings.Join(append([]string{"runaway"}, os.Args[1:]...), " ")
}
