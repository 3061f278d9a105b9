package testscripts

import (
	"fmt"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmd is a command that runaway's scripts add to testscript's own.
type scriptCmd = func(ts *testscript.TestScript, neg bool, args []string)

// scriptCmds holds them; each *_cmds_test.go file adds its own from init,
// so areas of the project can add commands without touching one shared file.
var scriptCmds = map[string]scriptCmd{}

func customCommands() map[string]scriptCmd { return scriptCmds }

// scriptConds are conditions ([name]) scripts can test, added the same way.
var scriptConds = map[string]func() bool{}

func customCondition(cond string) (bool, error) {
	f, ok := scriptConds[cond]
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	return f(), nil
}
