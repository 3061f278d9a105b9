package testscripts

import (
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["waitfile"] = waitFile }

// waitFile waits until the file exists and ends in a newline: written by a
// command runaway started detached (notify_command), which the script
// cannot wait for otherwise. It gives up after 20 s, whatever the load.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return
		}
	}
	ts.Fatalf("%s did not appear within 20s", args[0])
}
