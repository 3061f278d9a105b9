package testscripts

import (
	"bytes"
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["addbom"] = addBOM
	scriptCmds["islink"] = isLink
	scriptCmds["hascrlf"] = hasCRLF
}

// addbom file: puts a UTF-8 byte order mark in front of the file.
func addBOM(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: addbom file")
	}
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, append([]byte("\xef\xbb\xbf"), b...), 0o644))
}

// islink path: the path is a symbolic link.
func isLink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] islink path")
	}
	info, err := os.Lstat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := info.Mode()&os.ModeSymlink != 0; got == neg {
		ts.Fatalf("%s: symlink %v", args[0], got)
	}
}

// hascrlf file: every line of the file ends in CRLF.
func hasCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hascrlf file")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if n, crlf := bytes.Count(b, []byte("\n")), bytes.Count(b, []byte("\r\n")); n == 0 || n != crlf {
		ts.Fatalf("%s: %d newlines, %d of them CRLF", args[0], n, crlf)
	}
}
