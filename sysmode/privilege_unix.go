//go:build unix

package sysmode

import (
	"os"
	"syscall"
)

// Privileged reports whether the process holds a group it was not started
// with: the program's setgid bit gave it the state folder's group.
func Privileged() bool { return os.Getegid() != os.Getgid() }

// IsRoot reports whether the person ran the command as root (sudo): the
// real uid, which a setgid program does not change.
func IsRoot() bool { return os.Getuid() == 0 }

// DropGroup gives up the setgid group for good: every command but the
// hook and status runs as the person's own group. Go applies setresgid to
// every thread of the process.
func DropGroup() error {
	if !Privileged() {
		return nil
	}
	g := os.Getgid()
	return dropGroup(g)
}

// AsUser runs fn with the effective group set back to the person's own
// (the saved group stays, so the hook regains the state folder's group
// afterwards): for reading a file at a path the person chose, which must
// not reach what only the group can read. fn must not start goroutines
// that outlive it.
func AsUser(fn func()) error {
	if !Privileged() {
		fn()
		return nil
	}
	held := os.Getegid()
	if err := setEgid(os.Getgid()); err != nil {
		return err
	}
	defer func() { _ = setEgid(held) }()
	fn()
	return nil
}

// UserCredential is the credential for a child the hook starts (the
// notify command): the person's own ids, without the setgid group.
func UserCredential() *syscall.Credential {
	if !Privileged() {
		return nil
	}
	return &syscall.Credential{Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid()), NoSetGroups: true}
}

// ShareWithGroup sets the umask that keeps the group's bits, for a process
// that writes the shared state folder (the hook, root's `runaway allow`).
func ShareWithGroup() { syscall.Umask(0o007) }
