package transcripts

import (
	"errors"
	"fmt"
	"os"
)

// errNotRegular: a session file that is a folder, a FIFO or a device is
// never read (a device such as /dev/zero never ends).
var errNotRegular = errors.New("not a regular file")

// openRegular opens a session file for reading, refusing anything but a
// regular file, without blocking in open(2).
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w (%s)", path, errNotRegular, fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
