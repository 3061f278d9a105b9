package e2e

import (
	"os"
	"os/exec"
	"testing"

	"github.com/runaway-guard/runaway/testhome"
)

// commandNames are the runaway commands the scenarios need. They land on
// main one by one; a scenario whose command is missing skips and says so.
var commandNames = []string{"hook", "setup", "remove", "allow", "status", "replay", "accept", "report"}

var haveCommand = map[string]bool{}

// findCommands asks the built binary which commands it has: `runaway <cmd>
// --help` exits 0 for a command it knows and 2 for one it does not.
func findCommands() {
	home, err := os.MkdirTemp("", "runaway-e2e-help-")
	if err != nil {
		return
	}
	defer os.RemoveAll(home)
	for _, c := range commandNames {
		cmd := exec.Command(runawayBin, c, "--help")
		cmd.Env = testhome.Env([]string{"PATH=" + os.Getenv("PATH")}, home)
		haveCommand[c] = cmd.Run() == nil
	}
}

func hasCommand(name string) bool { return haveCommand[name] }

// requireCommand skips the test while the runaway command it needs is not on
// main yet.
func requireCommand(t *testing.T, name string) {
	t.Helper()
	if !hasCommand(name) {
		t.Skipf("needs `runaway %s`, which this build does not have yet (`runaway %s --help` fails)", name, name)
	}
}
