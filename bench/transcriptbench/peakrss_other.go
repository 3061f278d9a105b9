//go:build !unix

package main

import "os"

// peakRSS is 0 where the OS gives no rusage (Windows): the figure is
// shown as 0 MB rather than the benchmark not building.
func peakRSS(*os.ProcessState) int64 { return 0 }
