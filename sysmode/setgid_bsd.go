//go:build unix && !linux

package sysmode

import "syscall"

// BSD credentials (macOS) belong to the process, not the thread; setregid
// with a new real group also sets the saved one.

func dropGroup(g int) error { return syscall.Setregid(g, g) }
func setEgid(g int) error   { return syscall.Setegid(g) }
