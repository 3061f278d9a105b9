package testscripts

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["expandenv"] = expandEnv
}

// expandenv FILE... replaces $NAME and ${NAME} in each file with the
// script's environment, in place: tool calls carry absolute paths ($HOME)
// that a txtar file cannot know. `$$` stays a single `$`.
func expandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expandenv FILE...")
	}
	for _, name := range args {
		p := ts.MkAbs(name)
		data, err := os.ReadFile(p)
		ts.Check(err)
		out := os.Expand(string(data), func(k string) string {
			if k == "$" {
				return "$"
			}
			return ts.Getenv(k)
		})
		ts.Check(os.WriteFile(p, []byte(out), 0o644))
	}
}
