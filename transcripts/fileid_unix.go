//go:build unix

package transcripts

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileID names a file by device and inode, so a file replaced under the same
// name is noticed.
func fileID(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return "-"
}
