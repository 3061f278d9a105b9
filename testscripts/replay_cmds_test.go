package testscripts

import (
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// zstd FILE: writes FILE.zst, as Codex archives rollouts (with
	// klauspost's encoder, which runaway itself does not link).
	scriptCmds["zstd"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: zstd FILE")
		}
		data, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		enc, err := zstd.NewWriter(nil)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0])+".zst", enc.EncodeAll(data, nil), 0o600))
	}
	// nozstd: PATH holds runaway alone, as on a machine without zstd.
	scriptCmds["nozstd"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 0 {
			ts.Fatalf("usage: nozstd")
		}
		ts.Setenv("PATH", binDir)
	}
}
