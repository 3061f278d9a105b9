package testscripts

import (
	"os"
	"strconv"

	"github.com/gofrs/flock"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["holdlock"] = holdLock
	scriptCmds["releaselock"] = releaseLock
	scriptCmds["bigfile"] = bigFile
	scriptCmds["append"] = appendFile
	scriptConds["root"] = func() bool { return os.Geteuid() == 0 }
}

// held are the locks a script holds, by path.
var held = map[string]*flock.Flock{}

// holdlock PATH takes the exclusive lock on PATH (creating it) and keeps it
// until releaselock PATH, as a second runaway process would.
func holdLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdlock PATH")
	}
	path := ts.MkAbs(args[0])
	lk := flock.New(path)
	ok, err := lk.TryLock()
	ts.Check(err)
	if !ok {
		ts.Fatalf("%s is already locked", path)
	}
	held[path] = lk
	ts.Defer(func() { _ = lk.Unlock() })
}

// releaselock PATH lets go of a lock taken by holdlock.
func releaseLock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: releaselock PATH")
	}
	path := ts.MkAbs(args[0])
	lk, ok := held[path]
	if !ok {
		ts.Fatalf("%s is not held", path)
	}
	ts.Check(lk.Unlock())
	delete(held, path)
}

// bigfile PATH N writes a file of N bytes ('x'), for size limits.
func bigFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bigfile PATH N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	buf := make([]byte, n)
	for i := range buf {
		buf[i] = 'x'
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf, 0o644))
}

// append DST SRC... appends the files SRC to DST, as an agent appends to
// its transcript between two tool calls.
func appendFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: append DST SRC...")
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	ts.Check(err)
	defer f.Close()
	for _, src := range args[1:] {
		data, err := os.ReadFile(ts.MkAbs(src))
		ts.Check(err)
		_, err = f.Write(data)
		ts.Check(err)
	}
}
