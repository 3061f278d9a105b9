package main

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// isTerminal reports whether f, a reader or writer, is a terminal. Tests
// replace it to drive the interactive path.
var isTerminal = func(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	// A character device is not enough: /dev/null is one too.
	return term.IsTerminal(file.Fd())
}
