//go:build unix

package measure

import (
	"os"
	"runtime"
	"syscall"
)

// PeakRSS is a finished process's peak memory in KiB.
func PeakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss)
}
