package testscripts

import (
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

// serve DIR: serves $WORK/DIR over HTTP on loopback until the script ends,
// its URL in $SERVER (a price catalogue for `runaway prices update`; the
// tests never reach the network).
func init() {
	scriptCmds["serve"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: serve DIR")
		}
		srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[0]))))
		ts.Defer(srv.Close)
		ts.Setenv("SERVER", srv.URL)
	}
	// catalogue FILE: writes pricing's LiteLLM test catalogue to FILE, for
	// a script that needs prices imported today (doctor warns when the
	// table in use is more than a month old).
	scriptCmds["catalogue"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: catalogue FILE")
		}
		data, err := os.ReadFile("../pricing/testdata/litellm-catalogue.json")
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o600))
	}
}
