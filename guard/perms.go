package guard

import "github.com/runaway-guard/runaway/ownfiles"

// allowCommand starts the command a stop message names.
var allowCommand = "runaway allow "

// UseSystemInstall readies the guard for a system install: the state it
// writes group-writable (see ownfiles.ShareWithGroup), and stop messages
// naming `sudo runaway allow`. Call it once, at start, in system mode only.
func UseSystemInstall() {
	ownfiles.ShareWithGroup()
	allowCommand = "sudo runaway allow "
}
