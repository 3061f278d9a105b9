//go:build !unix

package tamper

import "io/fs"

// links is a file's count of hard links: not told here, so every file is
// compared with the protected ones.
func links(fs.FileInfo) uint64 { return 2 }
