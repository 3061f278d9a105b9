package ownfiles

import (
	"os"
	"path/filepath"
	"strings"
)

// Home is the person's home folder: $HOME when set (tests and sudo set
// it), else what the OS says.
func Home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Tilde shows a path under the home folder as ~/…, for people to read.
// Only whole folder names match: under HOME=/home/al, /home/alice stays.
func Tilde(path string) string {
	return tilde(path, Home())
}

func tilde(path, home string) string {
	home = strings.TrimRight(home, string(filepath.Separator))
	switch {
	case home == "":
		return path
	case path == home:
		return "~"
	case strings.HasPrefix(path, home+string(filepath.Separator)):
		return "~" + path[len(home):]
	}
	return path
}
