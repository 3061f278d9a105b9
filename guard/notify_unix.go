//go:build !windows

package guard

import "syscall"

const shellName, shellFlag = "/bin/sh", "-c"

// detachedAttr puts the command in a session of its own, so a signal to the
// agent's process group does not reach it and it outlives the hook.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
