//go:build unix

package tamper

import (
	"io/fs"
	"syscall"
)

// links is a file's count of hard links (2 when it cannot tell).
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 2
}
