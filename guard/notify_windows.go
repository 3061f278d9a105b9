package guard

import "syscall"

const shellName, shellFlag = "cmd.exe", "/C"

// detachedAttr starts the command in a process group of its own, without
// the hook's console.
func detachedAttr() *syscall.SysProcAttr {
	const detachedProcess = 0x00000008
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}
