package installer

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/runaway-guard/runaway/agent"
)

// cursorHarness: not wired (it runs Claude Code's hooks). The editor
// keeps its own folders and program besides the agent CLI's.
var cursorHarness = Harness{
	ID: agent.Cursor, Name: "Cursor", Support: NotSupported,
	Why: "Cursor runs Claude Code's hooks, so runaway's Claude Code entry already sees its tool calls; its transcripts carry no token usage, so no spend cap is possible: use Cursor's spend limit.",
	dirs: func(home string) []string {
		dirs := []string{filepath.Join(home, ".config", "Cursor")}
		switch runtime.GOOS {
		case "darwin":
			dirs = append(dirs, "/Applications/Cursor.app", filepath.Join(home, "Library", "Application Support", "Cursor"))
		case "windows":
			dirs = append(dirs, filepath.Join(os.Getenv("APPDATA"), "Cursor"), filepath.Join(os.Getenv("LOCALAPPDATA"), "Programs", "cursor"))
		}
		return dirs
	},
	programs: []string{"cursor"},
}
