package tamper

import (
	"path/filepath"
	"strings"
)

// Code that computes its paths: a glob or a folder listing under the home
// folder, filtered by the code (glob("~/.c*/run*/*"), readdirSync(HOME +
// "/.config") then startsWith("run")). The names it will find are not in
// the code, so the needles above miss them: a glob that matches a
// protected file, or a listing of a folder that holds one, in code that
// writes, is denied.

// listHints are what listing a folder or globbing looks like (lower case).
var listHints = []string{
	"glob", "readdir", "listdir", "scandir", "walk(", "opendir", "iterdir", "dir[", "dir.entries",
	"dir.children", "dir.each_child", "find.find", "file::find", "readdirsync", "<*",
}

// homeHints are what code naming the home folder looks like.
var homeHints = []string{"home", "expanduser", "userprofile", "~"}

// computedPaths judges code that writes to paths it globs or lists.
func (t *checker) computedPaths(src string, lits []string) *finding {
	low := strings.ToLower(src)
	lists := false
	for _, h := range listHints {
		if strings.Contains(low, h) {
			lists = true
			break
		}
	}
	if !lists || !codeChanges(src, lits) {
		return nil
	}
	home := t.homeDir()
	homeNamed := false
	for _, h := range homeHints {
		if strings.Contains(low, h) {
			homeNamed = true
		}
	}
	for _, l := range lits {
		for _, c := range t.codePaths(l, home, homeNamed) {
			if strings.ContainsAny(c, "*?[") {
				if pp, ok := t.globMatches(c); ok {
					return &finding{action: "run code that writes to what the glob " + l + " finds", path: pp.path, why: "which matches " + pp.kind.noun()}
				}
				continue
			}
			if in := t.inside(c); len(in) > 0 {
				return &finding{action: "run code that lists " + filepath.Clean(c) + " and writes to what it finds", path: in[0].path, why: "a folder that holds " + in[0].kind.noun()}
			}
		}
	}
	return nil
}

// codePaths are the absolute paths a string literal of code may stand
// for: itself when absolute, under the home folder when it starts with ~
// or $HOME or the code names the home folder, and under the call's folder.
func (t *checker) codePaths(l, home string, homeNamed bool) []string {
	l = strings.TrimSpace(l)
	if l == "" || len(l) > 4096 {
		return nil
	}
	var out []string
	for _, pre := range []string{"~", "$HOME", "${HOME}", "$ENV{HOME}", "%USERPROFILE%"} {
		if rest, ok := strings.CutPrefix(l, pre); ok && home != "" && (rest == "" || rest[0] == '/') {
			return []string{home + rest}
		}
	}
	if strings.HasPrefix(l, "/") {
		out = append(out, l)
	}
	if homeNamed && home != "" {
		out = append(out, filepath.Join(home, l))
	}
	if t.cwd != "" && !strings.HasPrefix(l, "/") {
		out = append(out, filepath.Join(t.cwd, l))
	}
	return out
}

// globMatches reports a protected path (or a folder holding one) that the
// pattern matches.
func (t *checker) globMatches(pattern string) (protectedPath, bool) {
	t.resolve()
	pattern = filepath.Clean(pattern)
	segs := strings.Split(pattern, "/")
	for _, pp := range t.protected {
		if !pp.exists {
			continue
		}
		for p := pp.path; p != "/" && p != "."; p = filepath.Dir(p) {
			if ok, _ := filepath.Match(pattern, p); ok {
				return pp, true
			}
		}
		// A folder: the pattern may name what is inside it.
		if n := strings.Count(pp.path, "/") + 1; pp.dir && len(segs) > n {
			if ok, _ := filepath.Match(strings.Join(segs[:n], "/"), pp.path); ok {
				return pp, true
			}
		}
	}
	return protectedPath{}, false
}

// changeHints are what code that writes, removes or moves a file looks
// like (codeWrites also counts running a program, which a listing that
// only prints does too).
var changeHints = []string{
	"write", "unlink", "remove", "rmtree", "rename", "os.replace", "truncate", "chmod", "chown",
	"symlink", "shutil", "rmsync", "rmdir", "file.delete", "copyfile", "copytree", "move(", "appendfile",
	"fs.cp", "fs.rm", "os.link", "file delete", "file rename", "file copy", "file link",
}

// codeChanges reports code that looks like it changes files.
func codeChanges(src string, lits []string) bool {
	low := strings.ToLower(src)
	for _, h := range changeHints {
		if strings.Contains(low, h) {
			return true
		}
	}
	for _, l := range lits {
		if writeModes[l] || strings.HasPrefix(l, ">") {
			return true
		}
	}
	return false
}
