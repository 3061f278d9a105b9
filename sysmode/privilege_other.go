//go:build !unix

package sysmode

// Outside Unix there is no setgid program: nothing to hold or drop.

func Privileged() bool       { return false }
func IsRoot() bool           { return false }
func DropGroup() error       { return nil }
func AsUser(fn func()) error { fn(); return nil }

// ShareWithGroup: no umask outside Unix.
func ShareWithGroup() {}
