package testscripts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["codex-trust"] = codexTrust
}

// codexTrust appends to $CODEX_HOME/config.toml the trust Codex records
// when the person trusts runaway's entry in /hooks: `codex-trust` computes
// the hash of the entry setup writes (group 0, handler 0), `codex-trust
// HASH` writes the given one, `codex-trust -disabled` also switches it off.
// The hash is built here by hand, apart from the installer's code, from the
// identity codex-observed.md §3 gives.
func codexTrust(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! codex-trust")
	}
	disabled := len(args) > 0 && args[0] == "-disabled"
	if disabled {
		args = args[1:]
	}
	codexHome := ts.Getenv("CODEX_HOME")
	hooks := filepath.Join(codexHome, "hooks.json")
	var hash string
	if len(args) > 0 {
		hash = args[0]
	} else {
		bin := filepath.Join(ts.Getenv("XDG_BIN_HOME"), "runaway")
		command := "'" + bin + "' hook codex || true"
		quoted, _ := json.Marshal(command)
		identity := `{"event_name":"pre_tool_use","hooks":[{"async":false,"command":` + string(quoted) + `,"timeout":10,"type":"command"}]}`
		sum := sha256.Sum256([]byte(identity))
		hash = "sha256:" + hex.EncodeToString(sum[:])
	}
	var b strings.Builder
	b.WriteString("\n[hooks.state.\"" + hooks + ":pre_tool_use:0:0\"]\n")
	if disabled {
		b.WriteString("enabled = false\n")
	}
	b.WriteString("trusted_hash = \"" + hash + "\"\n")
	f, err := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	ts.Check(err)
	_, err = f.WriteString(b.String())
	ts.Check(err)
	ts.Check(f.Close())
}
