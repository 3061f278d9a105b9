package testscripts

import (
	"os"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// zstd FILE: writes FILE.zst, as Codex archives rollouts.
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
}
