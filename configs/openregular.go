package configs

import (
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens a file without blocking in open(2), as it would on a
// FIFO put in the file's place, and refuses anything but a regular file.
// The hook opens its own state and logs, and the settings files a call
// names, through it: a device or FIFO must never hold it past its deadline.
func OpenRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is not a regular file", path)
		}
		return nil, err
	}
	return f, nil
}
