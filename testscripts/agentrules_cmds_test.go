package testscripts

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["denyrules"] = denyRules }

// denyrules file: prints the file's permissions.deny rules, one a line, on
// the script's stdout (the file must be strict JSON, as Claude Code reads it).
func denyRules(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: denyrules file")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var v struct {
		Permissions struct{ Deny []string } `json:"permissions"`
	}
	ts.Check(json.Unmarshal(b, &v))
	for _, r := range v.Permissions.Deny {
		fmt.Fprintln(ts.Stdout(), r)
	}
}
