// Command hookalone is the hook benchmark's second baseline: runaway's hook
// path (guard.Hook, as cmd/runaway's runHook sets it up) linked without the
// CLI's other commands and their libraries (cobra, huh, bubbletea, …). It
// shows what a separate hook binary would cost against the one runaway
// binary (README.md, "Speed").
package main

import (
	"os"
	"path/filepath"

	"github.com/adrg/xdg"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
)

func main() {
	h := &guard.Hook{
		StateDir:   filepath.Join(xdg.StateHome, "runaway"),
		ConfigPath: configs.PolicyPath(),
		BinPath:    filepath.Join(xdg.BinHome, "runaway"),
		Stderr:     os.Stderr,
	}
	h.Run(os.Stdin, os.Stdout, "claude")
}
