//go:build !windows

package guard

import (
	"syscall"

	"github.com/runaway-guard/runaway/sysmode"
)

const shellName, shellFlag = "/bin/sh", "-c"

// detachedAttr puts the command in a session of its own, so a signal to the
// agent's process group does not reach it and it outlives the hook. In
// system mode it runs as the person, without the state folder's group.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Credential: sysmode.UserCredential()}
}
