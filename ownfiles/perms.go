package ownfiles

import "io/fs"

// The modes of the files and folders runaway makes in its state folder.
// In user mode they are the person's alone. In system mode the state
// folder is shared by the install's group: every user's hook and root's
// `runaway allow` write the same files, which nobody else can reach.
var (
	filePerm fs.FileMode = 0o600
	dirPerm  fs.FileMode = 0o700
)

// FilePerm is the mode of a state file runaway makes.
func FilePerm() fs.FileMode { return filePerm }

// DirPerm is the mode of a state folder runaway makes.
func DirPerm() fs.FileMode { return dirPerm }

// ShareWithGroup makes the state files and folders runaway makes
// group-writable (a system install's group, inherited from the setgid
// state folder). Call it once, at start, in system mode only, with a
// umask that keeps the group's bits (sysmode.ShareWithGroup).
func ShareWithGroup() {
	filePerm, dirPerm = 0o660, 0o770|fs.ModeSetgid
}
