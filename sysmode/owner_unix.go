//go:build unix

package sysmode

import (
	"fmt"
	"io/fs"
	"syscall"
)

// owned checks that fi belongs to the install's owner (and to gid when it
// is not -1).
func (l Layout) owned(path string, fi fs.FileInfo, gid int) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner information", path)
	}
	if int(st.Uid) != l.Owner {
		return fmt.Errorf("%s is owned by uid %d, not %d", path, st.Uid, l.Owner)
	}
	if gid >= 0 && int(st.Gid) != gid {
		return fmt.Errorf("%s belongs to gid %d, not %d", path, st.Gid, gid)
	}
	return nil
}
