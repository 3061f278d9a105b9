package configs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var testSpec = HookSpec{Event: "PreToolUse", Command: HookCommand("/home/u/.local/bin/runaway", "claude"), Timeout: 10}

// testSpecs are both of setup's entries, inserted in this order.
var testSpecs = func() []HookSpec {
	f := ClaudeProjectFile("x")
	f.Platform.ClaudeSkillShell = true
	return f.Specs("/home/u/.local/bin/runaway")
}()

// setHooks inserts specs one after the other, as setup does.
func setHooks(d *Doc, specs []HookSpec) ([]Undo, error) {
	var us []Undo
	for _, s := range specs {
		u, err := d.SetHook(s)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
	}
	return us, nil
}

// insertRemove runs SetHook then RemoveHooks on a fresh parse of the
// inserted bytes, the way setup and a later remove do.
func insertRemove(t testing.TB, in []byte, strict bool, specs ...HookSpec) (inserted, removed []byte) {
	if len(specs) == 0 {
		specs = []HookSpec{testSpec}
	}
	t.Helper()
	d, err := ParseDoc("in.json", in, strict)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	u, err := setHooks(d, specs)
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	inserted = d.Pack()
	// The record goes through installed.json as JSON.
	rec, _ := json.Marshal(u)
	var u2 []Undo
	if err := json.Unmarshal(rec, &u2); err != nil {
		t.Fatal(err)
	}
	d2, err := ParseDoc("in.json", inserted, strict)
	if err != nil {
		t.Fatalf("inserted file does not parse: %v\n%s", err, inserted)
	}
	if _, err := d2.RemoveHooks(u2); err != nil {
		t.Fatalf("remove: %v", err)
	}
	return inserted, d2.Pack()
}

func entriesOf(t testing.TB, b []byte) []Entry {
	t.Helper()
	d, err := ParseDoc("x.json", b, false)
	if err != nil {
		t.Fatal(err)
	}
	es, err := d.HookEntries()
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func TestInsertLayout(t *testing.T) {
	cmd := `"'/home/u/.local/bin/runaway' hook claude || true"`
	tests := []struct {
		name, in, want string
	}{
		{"missing file", "", "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": " + cmd + ",\n            \"timeout\": 10\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
		{"tabs and other keys", "{\n\t\"a\": 1\n}\n", "{\n\t\"a\": 1,\n\t\"hooks\": {\n\t\t\"PreToolUse\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": " + cmd + ",\n\t\t\t\t\t\t\"timeout\": 10\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t}\n}\n"},
		{"crlf and four spaces", "{\r\n    \"hooks\": {\r\n        \"Stop\": []\r\n    }\r\n}\r\n", "{\r\n    \"hooks\": {\r\n        \"Stop\": [],\r\n        \"PreToolUse\": [\r\n            {\r\n                \"hooks\": [\r\n                    {\r\n                        \"type\": \"command\",\r\n                        \"command\": " + cmd + ",\r\n                        \"timeout\": 10\r\n                    }\r\n                ]\r\n            }\r\n        ]\r\n    }\r\n}\r\n"},
		{"one line", `{"a":1}`, `{"a":1,"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":` + cmd + `,"timeout":10}]}]}}`},
		{"bom", "\xef\xbb\xbf{\"a\": 1}", "\xef\xbb\xbf{\"a\": 1,\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\",\"command\": " + cmd + ",\"timeout\": 10}]}]}}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, back := insertRemove(t, []byte(tt.in), true)
			if string(got) != tt.want {
				t.Errorf("insert:\n got %q\nwant %q", got, tt.want)
			}
			if string(back) != tt.in {
				t.Errorf("remove: got %q, want %q", back, tt.in)
			}
			// All of setup's entries go in and come out byte for byte.
			both, back := insertRemove(t, []byte(tt.in), true, testSpecs...)
			if string(back) != tt.in {
				t.Errorf("remove both entries: got %q, want %q", back, tt.in)
			}
			if es := entriesOf(t, both); len(es) != 4 || es[1].Event != "UserPromptSubmit" || es[2].Event != ClaudeBatchEvent || es[3].Event != ClaudeSkillShellEvent {
				t.Errorf("both entries: %+v in %q", es, both)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`'/a b/runaway' hook claude || true`, []string{"/a b/runaway", "hook", "claude"}},
		{`'/it'\''s/runaway' hook codex`, []string{"/it's/runaway", "hook", "codex"}},
		{`"/x \"y\"/runaway" hook`, []string{`/x "y"/runaway`, "hook"}},
		{`/bin/runaway\ x hook`, []string{"/bin/runaway x", "hook"}},
		{`a;b`, []string{"a"}},
		{``, nil},
	}
	for _, tt := range tests {
		got := ShellWords(tt.in)
		if strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") {
			t.Errorf("ShellWords(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsRunawayCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		HookCommand("/p/with space/runaway", "claude"): true,
		HookCommand(`/it's "odd"/runaway`, "codex"):    true,
		"runaway hook":                                      true,
		"/usr/local/bin/runaway hook claude":                true,
		"/usr/local/bin/runaway status":                     false,
		"/usr/local/bin/not-runaway hook":                   false,
		"echo runaway hook":                                 false,
		"/usr/bin/runaway-helper hook":                      false,
		"sh -c '/usr/local/bin/runaway hook claude'":        false,
		`jq . | /usr/local/bin/runaway hook claude`:         false,
		"'/home/u/.local/bin/runaway' hook codex || true":   true,
		GuardedHookCommand(`/it's "odd"/runaway`, "gemini"): true,
		"[ -x /b/runaway ] && /b/runaway hook gemini":       true,
		"[ -x /b/runaway ] && exec /b/other hook gemini":    false,
		"[ -x /b/runaway ] || exec /b/runaway hook gemini":  false,
		"[ -x /b/runaway ]":                                 false,
	} {
		if got := IsRunawayCommand(cmd); got != want {
			t.Errorf("IsRunawayCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestQuotedPathRoundTrip(t *testing.T) {
	for _, p := range []string{"/a b/runaway", `/it's/runaway`, `/q"uote/$HOME/runaway`, "/plain/runaway"} {
		w := ShellWords(HookCommand(p, "claude"))
		if len(w) != 3 || w[0] != p || w[1] != "hook" || w[2] != "claude" {
			t.Errorf("%q: words %q", p, w)
		}
	}
}

const otherTools = `{
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "/opt/guard.sh"}
        ]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]
  }
}
`

func TestSetHookTwiceIsOneEntry(t *testing.T) {
	d, _ := ParseDoc("s.json", []byte(otherTools), true)
	if _, err := d.SetHook(testSpec); err != nil {
		t.Fatal(err)
	}
	once := d.Pack()
	d2, _ := ParseDoc("s.json", once, true)
	u, err := d2.SetHook(testSpec)
	if err != nil {
		t.Fatal(err)
	}
	if string(d2.Pack()) != string(once) || u.Created != "" {
		t.Fatalf("second insert changed the file (created %q):\n%s", u.Created, d2.Pack())
	}
	if es := entriesOf(t, once); len(es) != 1 || es[0].Command != testSpec.Command || es[0].Timeout != 10 || !es[0].OrTrue || es[0].HasMatcher {
		t.Fatalf("entries: %+v", es)
	}
}

func TestSetHookUpdatesMovedBinaryAndCollapsesCopies(t *testing.T) {
	old := `{"hooks": {"PreToolUse": [
  {"hooks": [{"type": "command", "command": "/old/runaway hook claude", "timeout": 5}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/guard.sh"}]},
  {"hooks": [{"type": "command", "command": "'/older/bin/runaway' hook claude || true", "timeout": 10}]}
]}}`
	d, _ := ParseDoc("s.json", []byte(old), true)
	if _, err := d.SetHook(testSpec); err != nil {
		t.Fatal(err)
	}
	out := d.Pack()
	want := `{"hooks": {"PreToolUse": [
  {"hooks": [{"type": "command", "command": "'/home/u/.local/bin/runaway' hook claude || true", "timeout": 10}]},
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/guard.sh"}]}
]}}`
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestEditedGroupKeepsTheirAdditions(t *testing.T) {
	in := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [
    {"type": "command", "command": "/old/runaway hook claude || true", "timeout": 10, "statusMessage": "guarding"},
    {"type": "command", "command": "/opt/theirs.sh"}
  ]}
]}}`
	d, _ := ParseDoc("s.json", []byte(in), true)
	if _, err := d.SetHook(testSpec); err != nil {
		t.Fatal(err)
	}
	out := string(d.Pack())
	if !strings.Contains(out, `"matcher": "Bash"`) || !strings.Contains(out, "/opt/theirs.sh") || !strings.Contains(out, `"statusMessage": "guarding"`) || !strings.Contains(out, testSpec.Command) {
		t.Fatalf("their additions lost or ours not updated:\n%s", out)
	}
	d2, _ := ParseDoc("s.json", []byte(out), true)
	n, _ := d2.RemoveHooks(nil)
	want := `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [
    {"type": "command", "command": "/opt/theirs.sh"}
  ]}
]}}`
	if n != 1 || string(d2.Pack()) != want {
		t.Fatalf("remove (%d):\n%s", n, d2.Pack())
	}
	// A matcher someone added stays, even with no handler left.
	d3, _ := ParseDoc("s.json", []byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"runaway hook claude"}]}]}}`), true)
	d3.RemoveHooks(nil)
	if got := string(d3.Pack()); got != `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]}]}}` {
		t.Fatalf("got %s", got)
	}
}

func TestRemoveEveryCopyUnderEveryEvent(t *testing.T) {
	in := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/a/runaway hook claude"}]}], "PostToolUse": [{"hooks": [{"type": "command", "command": "'/b c/runaway' hook"}, {"type": "command", "command": "fmt"}]}]}}`
	d, _ := ParseDoc("s.json", []byte(in), true)
	n, err := d.RemoveHooks(nil)
	if err != nil || n != 2 {
		t.Fatalf("removed %d, %v", n, err)
	}
	if got := string(d.Pack()); got != `{"hooks": {"PreToolUse": [], "PostToolUse": [{"hooks": [{"type": "command", "command": "fmt"}]}]}}` {
		t.Fatalf("got %s", got)
	}
}

func TestBadShapes(t *testing.T) {
	for _, in := range []string{`{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`, `[]`, `"x"`} {
		d, err := ParseDoc("s.json", []byte(in), true)
		if err == nil {
			_, err = d.SetHook(testSpec)
		}
		var se *SyntaxError
		if err == nil || !errors.As(err, &se) {
			t.Errorf("%s: want a SyntaxError, got %v", in, err)
		}
	}
}

// strictWhy is what a strict file's error says of comments and commas.
const strictWhy = "Claude Code and Codex read their settings files as strict JSON, so the agent cannot read this file either; "

func TestStrictErrorsNamePlace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"{\n  \"a\": 1,\n}\n", "s.json:2:9: a trailing comma is not JSON: " + strictWhy + "remove the comma"},
		{"{\n  // c\n  \"a\": 1\n}\n", "s.json:2:3: a // comment is not JSON: " + strictWhy + "remove the comment (to the end of the line)"},
		{"{\n  \"a\": [1 /* c */]\n}\n", "s.json:2:11: a /* */ comment is not JSON: " + strictWhy + "remove the comment (up to */)"},
		{"{\"a\":[1,]}", "s.json:1:8: a trailing comma is not JSON: " + strictWhy + "remove the comma"},
		{"{\n  \"a\": tru\n}", "s.json:2:11: invalid character '\\n' in literal true (expecting 'e')"},
	}
	for _, tt := range tests {
		_, err := ParseDoc("s.json", []byte(tt.in), true)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: got %v, want %s", tt.in, err, tt.want)
		}
		// JSONC files accept all but the bad literal.
		if _, err := ParseDoc("s.json", []byte(tt.in), false); (err == nil) == strings.Contains(tt.in, "tru\n") {
			t.Errorf("%q: jsonc parse: %v", tt.in, err)
		}
	}
}

// moduleRoot walks up from the test's folder to the folder holding go.mod.
func moduleRoot(t testing.TB) string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// TestRealSettingsRoundTrip inserts into and removes from every real
// Claude Code and Codex settings file in ../shared/fixtures/settings.
func TestRealSettingsRoundTrip(t *testing.T) {
	base := filepath.Join(moduleRoot(t), "..", "shared", "fixtures", "settings")
	if _, err := os.Stat(base); err != nil {
		t.Skipf("real settings fixtures absent (%v); they live in ../shared next to the module", err)
	}
	var files []string
	for _, agent := range []string{"claude-code", "codex"} {
		m, _ := filepath.Glob(filepath.Join(base, agent, "*.json"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no fixture files found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			orig, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ins, back := insertRemove(t, orig, true, testSpecs...)
			if string(back) != string(orig) {
				t.Fatalf("remove did not give the original back:\n%s", back)
			}
			if !json.Valid(ins) {
				t.Fatalf("inserted file is not strict JSON:\n%s", ins)
			}
			es := entriesOf(t, ins)
			events := map[string]bool{}
			for _, e := range es {
				events[e.Event] = e.Command == testSpec.Command
			}
			if len(es) != 4 || !events["PreToolUse"] || !events["UserPromptSubmit"] || !events[ClaudeBatchEvent] || !events[ClaudeSkillShellEvent] {
				t.Fatalf("want runaway's PreToolUse, UserPromptSubmit, PostToolBatch and PreSkillShellCommand entries, got %+v", es)
			}
		})
	}
}

var fuzzSeeds = []string{
	"", "{}", "{}\n", " { } ", "{\n}\n", "\xef\xbb\xbf{}\r\n",
	`{"a":1}`, "{\n  \"a\": 1 // why\n}\n", "{\n\t\"a\": [1, 2,],\n}\n",
	"/* head */ {\"hooks\": {}} // tail\n",
	"{\"hooks\": {\"PreToolUse\": []}}",
	"{\"hooks\": {\"PreToolUse\": [ ]}, \"x\": null}",
	"{\r\n  \"hooks\": {\r\n    \"PreToolUse\": [\r\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}\r\n    ]\r\n  }\r\n}\r\n",
	"{\"hooks\":{\"Stop\":[{\"hooks\":[]}],},}",
	"{\n  \"hooks\": { /* none */ },\n  \"z\": {\"y\": [true, false, null, 1.5e3, \"\\u00e9\"]}\n}",
	otherTools,
}

// FuzzInsertRemove: for any JSON or JSONC object without a runaway entry,
// insert then remove gives the input back byte for byte, and the inserted
// file parses (as strict JSON when the input was).
func FuzzInsertRemove(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	// Every real settings file too, JSONC ones (Gemini CLI, OpenCode) included.
	real, _ := filepath.Glob(filepath.Join(moduleRoot(f), "..", "shared", "fixtures", "settings", "*", "*.json*"))
	for _, path := range real {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		strict := json.Valid(bytesWithoutBOM(in)) || len(strings.TrimSpace(string(bytesWithoutBOM(in)))) == 0
		d, err := ParseDoc("f.json", in, false)
		if err != nil {
			return
		}
		if es, err := d.HookEntries(); err != nil || len(es) > 0 {
			return
		}
		u, err := setHooks(d, testSpecs)
		if err != nil {
			return
		}
		ins := d.Pack()
		if _, err := hujson.Parse(bytesWithoutBOM(ins)); err != nil {
			t.Fatalf("inserted file does not parse: %v\n%q", err, ins)
		}
		if strict && !json.Valid(bytesWithoutBOM(ins)) {
			t.Fatalf("strict input became non-strict:\n%q", ins)
		}
		if es := entriesOf(t, ins); len(es) != len(testSpecs) {
			t.Fatalf("want %d entries, got %d in %q", len(testSpecs), len(es), ins)
		}
		d2, err := ParseDoc("f.json", ins, strict)
		if err != nil {
			t.Fatalf("reparse: %v", err)
		}
		if _, err := d2.RemoveHooks(u); err != nil {
			t.Fatal(err)
		}
		if got := d2.Pack(); string(got) != string(in) {
			t.Fatalf("round trip:\n in %q\nins %q\nout %q", in, ins, got)
		}
	})
}

func bytesWithoutBOM(b []byte) []byte { return []byte(strings.TrimPrefix(string(b), string(bom))) }

// A handler's env (Gemini CLI's system entry) is updated in place, and an
// update to a spec without one takes it out.
func TestSetHookEnv(t *testing.T) {
	spec := HookSpec{Event: "BeforeTool", Name: "runaway", Command: "'/usr/local/bin/runaway' hook gemini", Timeout: 10000,
		Env: jsonObject{{"PATH", "/usr/bin:/bin"}, {"BASH_ENV", ""}}}
	in := `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "runaway", "command": "'/usr/local/bin/runaway' hook gemini", "env": {"PATH": "/home/u/.local/bin:/usr/bin"}, "timeout": 10000}]}]}}`
	d, _ := ParseDoc("s.json", []byte(in), false)
	if _, err := d.SetHook(spec); err != nil {
		t.Fatal(err)
	}
	got := string(d.Pack())
	if !strings.Contains(got, `"env": {"PATH": "/usr/bin:/bin", "BASH_ENV": ""}`) || strings.Contains(got, ".local/bin") {
		t.Fatalf("env not updated:\n%s", got)
	}
	again, _ := ParseDoc("s.json", []byte(got), false)
	if _, err := again.SetHook(spec); err != nil || string(again.Pack()) != got {
		t.Fatalf("a second update changed the file (%v):\n%s", err, again.Pack())
	}
	spec.Env = nil
	if _, err := again.SetHook(spec); err != nil || strings.Contains(string(again.Pack()), `"env"`) {
		t.Fatalf("an entry without env kept one (%v):\n%s", err, again.Pack())
	}
}
