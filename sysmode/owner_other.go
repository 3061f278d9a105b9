//go:build !unix

package sysmode

import (
	"errors"
	"io/fs"
)

// owned: a system install outside Unix is not built yet (see Layout).
func (l Layout) owned(path string, fi fs.FileInfo, gid int) error {
	return errors.New("a system install is not supported on this OS yet")
}
