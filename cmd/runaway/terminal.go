package main

import "os"

// isTerminal reports whether f, a reader or writer, is a terminal. Tests
// replace it to drive the interactive path.
var isTerminal = func(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	info, err := file.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
