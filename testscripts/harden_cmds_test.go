//go:build unix

package testscripts

import (
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["mkfifo"] = mkFifo
}

// mkfifo PATH makes a FIFO that nobody writes to: opening it for reading
// blocks until a writer comes.
func mkFifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}
