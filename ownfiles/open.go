package ownfiles

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular: a folder, a FIFO, a device or a socket where a file was
// expected. It is never read: a FIFO nobody writes to blocks, /dev/zero
// never ends.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens a file without blocking in open(2), as it would on a
// FIFO put in the file's place, and refuses anything but a regular file.
// The hook opens its own state and logs, the transcripts and the settings
// files a call names through it: nothing must hold it past its deadline.
// A refusal is an *fs.PathError (the path, once) wrapping ErrNotRegular.
func OpenRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, _, err := OpenRegularInfo(path, flag, perm)
	return f, err
}

// OpenRegularInfo is OpenRegular that also returns what fstat said.
func OpenRegularInfo(path string, flag int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: path, Err: notRegular{fi.Mode()}}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// notRegular says what the file is instead, in words.
type notRegular struct{ mode fs.FileMode }

func (e notRegular) Error() string {
	what := "something else"
	switch m := e.mode; {
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return ErrNotRegular.Error() + " (" + what + ")"
}

func (notRegular) Is(target error) bool { return target == ErrNotRegular }
