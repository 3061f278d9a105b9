package testscripts

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	scriptCmds["codex-trust"] = codexTrust
	scriptCmds["columns-line-up"] = columnsLineUp
}

// columnsLineUp checks that every line of the last command's stdout has its
// columns (cells set apart by two or more spaces) start at the same offsets
// as the first line's: `columns-line-up 3` for the first three columns.
func columnsLineUp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: columns-line-up N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var want []int
	for i, line := range strings.Split(strings.TrimRight(ts.ReadFile("stdout"), "\n"), "\n") {
		var starts []int
		for j := 0; j < len(line) && len(starts) < n; j++ {
			if line[j] != ' ' && (j == 0 || strings.HasSuffix(line[:j], "  ")) {
				starts = append(starts, j)
			}
		}
		if i == 0 {
			want = starts
		} else if !slices.Equal(starts, want) {
			ts.Fatalf("line %d: columns start at %v, the first line's at %v:\n%s", i+1, starts, want, line)
		}
	}
}

// codexTrust appends to $CODEX_HOME/config.toml the trust Codex records
// when the person trusts runaway's entries in /hooks: `codex-trust` computes
// the hash of each entry setup writes (PreToolUse and UserPromptSubmit,
// group 0, handler 0), `codex-trust HASH` writes the given one,
// `codex-trust -disabled` also switches them off, `-event pre_tool_use`
// does it for one entry only, `-unnamed` trusts the entry as an older
// runaway wrote it, without its name (statusMessage).
// The hash is built here by hand, apart from the installer's code, from the
// identity codex-observed.md §3 gives.
// codexEntryName is the statusMessage (JSON) of the first handler under
// the event in the hooks.json at path.
func codexEntryName(ts *testscript.TestScript, path, event string) json.RawMessage {
	data, err := os.ReadFile(path)
	ts.Check(err)
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct {
				StatusMessage json.RawMessage `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	ts.Check(json.Unmarshal(data, &f))
	name := map[string]string{"pre_tool_use": "PreToolUse", "user_prompt_submit": "UserPromptSubmit"}[event]
	groups := f.Hooks[name]
	if len(groups) == 0 || len(groups[0].Hooks) == 0 || groups[0].Hooks[0].StatusMessage == nil {
		ts.Fatalf("%s has no named %s entry", path, name)
	}
	return groups[0].Hooks[0].StatusMessage
}

func codexTrust(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! codex-trust")
	}
	disabled, unnamed := false, false
	events := []string{"pre_tool_use", "user_prompt_submit"}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-disabled":
			disabled = true
		case "-unnamed":
			unnamed = true
		case "-event":
			if len(args) < 2 {
				ts.Fatalf("usage: codex-trust [-event EVENT] [-disabled] [HASH]")
			}
			events = []string{args[1]}
			args = args[1:]
		default:
			ts.Fatalf("codex-trust: unknown flag %s", args[0])
		}
		args = args[1:]
	}
	codexHome := ts.Getenv("CODEX_HOME")
	hooks := filepath.Join(codexHome, "hooks.json")
	var b strings.Builder
	for _, event := range events {
		hash := ""
		if len(args) > 0 {
			hash = args[0]
		} else {
			bin := filepath.Join(ts.Getenv("XDG_BIN_HOME"), "runaway")
			command := "'" + bin + "' hook codex || true"
			quoted, _ := json.Marshal(command)
			name := ""
			if !unnamed {
				name = `"statusMessage":` + string(codexEntryName(ts, hooks, event)) + ","
			}
			identity := `{"event_name":"` + event + `","hooks":[{"async":false,"command":` + string(quoted) + `,` + name + `"timeout":10,"type":"command"}]}`
			sum := sha256.Sum256([]byte(identity))
			hash = "sha256:" + hex.EncodeToString(sum[:])
		}
		b.WriteString("\n[hooks.state.\"" + hooks + ":" + event + ":0:0\"]\n")
		if disabled {
			b.WriteString("enabled = false\n")
		}
		b.WriteString("trusted_hash = \"" + hash + "\"\n")
	}
	f, err := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	ts.Check(err)
	_, err = f.WriteString(b.String())
	ts.Check(err)
	ts.Check(f.Close())
}
