package testscripts

import (
	"github.com/rogpeppe/go-internal/testscript"
)

// customCommands are the script commands runaway's scripts add to
// testscript's own.
func customCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){}
}
