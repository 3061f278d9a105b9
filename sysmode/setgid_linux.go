package sysmode

import "syscall"

// Go's setresgid on Linux applies to every thread of the process.

func dropGroup(g int) error { return syscall.Setresgid(g, g, g) }
func setEgid(g int) error   { return syscall.Setresgid(-1, g, -1) }
