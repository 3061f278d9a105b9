package tamper

import (
	"path/filepath"
	"strings"
)

// Code handed to an interpreter (python -c, node -e, a heredoc into
// python…) is not run or parsed: it is denied when it names a protected
// path, or builds one from its parts (os.path.join(home, ".config",
// "runaway")), and does something that writes.

// writeHints are what code that writes, removes or runs something looks
// like in the usual scripting languages (lower case).
var writeHints = []string{
	"write", "unlink", "remove", "rmtree", "rename", "os.replace", "truncate", "chmod", "chown",
	"symlink", "shutil", "system(", "subprocess", "spawn", "exec(", "execsync", "execfile", "dump(",
	"rmsync", "rmdir", "fileutils", "file.delete", "popen", "copyfile", "copytree", "copysync", "cpsync",
	"move(", "touch(", "mkfifo", "appendfile", "fs.cp", "fs.rm", "file.open", "io.open", "openfile",
	"os.link", "hardlink", "makedirs",
	"file delete", "file rename", "file copy", "file link", // Tcl
}

// writeModes are the open() modes and perl open targets that write.
var writeModes = map[string]bool{
	"w": true, "a": true, "x": true, "w+": true, "a+": true, "r+": true, "wb": true, "ab": true,
	"wb+": true, "ab+": true, "rb+": true, "wt": true, "at": true, ">": true, ">>": true, "+<": true, "+>": true,
}

// code judges a snippet of script code.
func (t *checker) code(src string) *finding {
	t.resolve()
	lits := stringLiterals(src)
	joined := "/" + strings.Join(lits, "/") + "/"
	for _, n := range t.needles {
		if !strings.Contains(src, n) && !strings.Contains(joined, "/"+strings.Trim(n, "/")+"/") && !strings.Contains(joined, "/"+strings.Trim(n, "/")) {
			continue
		}
		if codeWrites(src, lits) {
			return &finding{action: "run code that writes near " + n, why: "a file that keeps runaway's guard on"}
		}
		return nil
	}
	return t.computedPaths(src, lits)
}

// codeWrites reports code that looks like it writes, removes or runs
// something.
func codeWrites(src string, lits []string) bool {
	low := strings.ToLower(src)
	for _, h := range writeHints {
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

// stringLiterals are the quoted strings of code, in order, each cut at
// path separators' ends ("/.config/" → ".config"): the parts a path may be
// built from.
func stringLiterals(src string) []string {
	var out []string
	for i := 0; i < len(src); i++ {
		q := src[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		end := strings.IndexByte(src[i+1:], q)
		if end < 0 {
			break
		}
		s := src[i+1 : i+1+end]
		if trimmed := strings.Trim(s, "/"); trimmed != "" && trimmed != s && strings.Contains(s, "/") {
			s = trimmed
		}
		out = append(out, filepath.ToSlash(s))
		i += end + 1
	}
	return out
}
