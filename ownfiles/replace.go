package ownfiles

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"time"
)

// Replace renames from over to. On Windows a file another process has
// open (a reader of a state file, an antivirus scan, the search indexer)
// refuses the rename for a moment: it is retried for up to a quarter of a
// second, as Go's own cmd/go does. Elsewhere the rename is tried once.
func Replace(from, to string) error {
	deadline := time.Now().Add(250 * time.Millisecond)
	for wait := time.Millisecond; ; wait *= 2 {
		err := os.Rename(from, to)
		if err == nil || !transientRenameError(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}

func transientRenameError(err error) bool {
	return runtime.GOOS == "windows" && windowsSharingError(err)
}

// windowsSharingError: ERROR_ACCESS_DENIED or ERROR_SHARING_VIOLATION,
// which a rename over an open file gives for as long as it is open.
func windowsSharingError(err error) bool {
	return errors.Is(err, syscall.Errno(5)) || errors.Is(err, syscall.Errno(32))
}
