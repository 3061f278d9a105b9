package installer

import (
	"os/exec"
	"runtime"
)

// reasonOnly prints the reason of the event notify_command reads on stdin,
// up to its first escaped quote, with nothing but sed.
const reasonOnly = `sed -n 's/.*"reason":"\([^"]*\)".*/\1/p'`

// DesktopNotifier is the desktop notification program found on this
// machine and a notify_command that shows runaway's reason with it:
// osascript on macOS, notify-send elsewhere. ok is false when none is found.
func DesktopNotifier() (name, command string, ok bool) {
	if runtime.GOOS == "darwin" {
		if _, err := exec.LookPath("osascript"); err == nil {
			return "osascript", `osascript -e 'on run argv' -e 'display notification (item 1 of argv) with title "runaway"' -e 'end run' "$(` + reasonOnly + `)"`, true
		}
		return "", "", false
	}
	if _, err := exec.LookPath("notify-send"); err == nil {
		return "notify-send", `notify-send -a runaway runaway "$(` + reasonOnly + `)"`, true
	}
	return "", "", false
}
