//go:build !unix

package measure

import "os"

// PeakRSS is 0 where the OS gives no rusage (Windows): the figure is
// shown as 0 MB rather than the benchmark not building.
func PeakRSS(*os.ProcessState) int64 { return 0 }
