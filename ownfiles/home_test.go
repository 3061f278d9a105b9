package ownfiles

import "testing"

func TestTilde(t *testing.T) {
	for _, c := range []struct{ path, home, want string }{
		{"/home/al/proj", "/home/al", "~/proj"},
		{"/home/al", "/home/al", "~"},
		{"/home/al/proj", "/home/al/", "~/proj"},
		// A folder whose name starts with the home folder's is not under it.
		{"/home/alice", "/home/al", "/home/alice"},
		{"/home/alice/proj", "/home/al", "/home/alice/proj"},
		{"/etc/passwd", "/home/al", "/etc/passwd"},
		// A home of / would make every path ~…: paths stay as they are.
		{"/etc/passwd", "/", "/etc/passwd"},
		{"/tmp/x", "", "/tmp/x"},
		{"relative/x", "/home/al", "relative/x"},
	} {
		if got := tilde(c.path, c.home); got != c.want {
			t.Errorf("tilde(%q) under %q = %q, want %q", c.path, c.home, got, c.want)
		}
	}
}

func TestTildeReadsHome(t *testing.T) {
	t.Setenv("HOME", "/home/al")
	if got := Tilde("/home/alice/x"); got != "/home/alice/x" {
		t.Errorf("Tilde = %q", got)
	}
	if got := Tilde("/home/al/x"); got != "~/x" {
		t.Errorf("Tilde = %q", got)
	}
}
