package guard

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

func TestFingerprint(t *testing.T) {
	same := [][2]string{
		{`{"command":"ls","description":"list"}`, `{"description":"other","command":"ls"}`},
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`},
	}
	for _, p := range same {
		if Fingerprint("Bash", json.RawMessage(p[0])) != Fingerprint("Bash", json.RawMessage(p[1])) {
			t.Errorf("%s and %s should be the same call", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"command":"ls"}`, `{"command":"ls -la"}`},
		{`{"a":1}`, `{"a":1.0}`}, // numbers as written
		{`{"command":"ls","timeout":1000}`, `{"command":"ls"}`},
	}
	for _, p := range differ {
		if Fingerprint("Bash", json.RawMessage(p[0])) == Fingerprint("Bash", json.RawMessage(p[1])) {
			t.Errorf("%s and %s should differ", p[0], p[1])
		}
	}
	if Fingerprint("Read", json.RawMessage(`{"x":1}`)) == Fingerprint("Write", json.RawMessage(`{"x":1}`)) {
		t.Error("the tool name is part of the call")
	}
}

func TestSummarize(t *testing.T) {
	cases := []struct{ tool, input, want string }{
		{"Bash", `{"command":"npm test","description":"Run"}`, "npm test"},
		{"Bash", `{"command":"make\nmake install"}`, "make …"},
		{"Edit", `{"file_path":"/src/a.go","old_string":"secret stuff"}`, "/src/a.go"},
		{"Grep", `{"pattern":"TODO"}`, "TODO"},
		{"Bash", `{"command":["bash","-lc","ls"]}`, "bash -lc ls"},
		{"Bash", `{"command":"curl -H 'Authorization: Bearer sk-ant-abcdefghijklmnopqrstuvwxyz0123456789' x"}`, "curl -H 'Authorization: *** ***' x"},
		{"Bash", `{"command":"API_KEY=hunter2 ./deploy"}`, "API_KEY=*** ./deploy"},
		{"Bash", `{"command":"git clone https://bob:pa55@example.com/r.git"}`, "git clone https://bob:***@example.com/r.git"},
		{"Bash", `{"command":"mysql --password=hunter2 db"}`, "mysql --password=*** db"},
		{"Bash", `{"command":"--password hunter2"}`, "--password ***"},
		{"Bash", `{"command":"npm test"}`, "npm test"},
		{"WebSearch", `{"max":3}`, ""},
		{"Bash", `not json`, ""},
	}
	for _, c := range cases {
		if got := Summarize(c.tool, json.RawMessage(c.input)); got != c.want {
			t.Errorf("Summarize(%s) = %q, want %q", c.input, got, c.want)
		}
	}
	long := Summarize("Bash", json.RawMessage(`{"command":"`+strings.Repeat("é", 200)+`"}`))
	if len(long) > maxSummary+len("…") || !strings.HasSuffix(long, "…") || !json.Valid([]byte(`"`+long+`"`)) {
		t.Errorf("long summary not cut cleanly: %q", long)
	}
}

func FuzzParseInput(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`))
	f.Add([]byte(`{"session_id":"s","turn_id":"t","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch"}}`))
	f.Add([]byte(`{"cursor_version":"1","tool_name":"Shell"}`))
	f.Add([]byte(`{"session_id":1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := ParseInput(data, agent.Claude)
		if err != nil {
			return
		}
		// Whatever parses can be fingerprinted and summarised without panics,
		// and the summary stays short.
		_ = Fingerprint(in.ToolName, in.ToolInput)
		if s := Summarize(in.ToolName, in.ToolInput); len(s) > maxSummary+len("…") {
			t.Fatalf("summary too long: %q", s)
		}
	})
}

// The cheap pre-check never lets a secret through: wherever it says there
// is nothing to look at, the patterns find nothing either.
func TestMayHoldSecretHasNoFalseNegatives(t *testing.T) {
	alphabet := []byte("abcXYZ019_-+/=: @.'\"\tkeytokenpassword")
	r := rand.New(rand.NewPCG(7, 8))
	re := secretPatterns()
	for range 20000 {
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if mayHoldSecret(s) {
			continue
		}
		for _, p := range append(re[:], positionalSecrets()...) {
			if p.MatchString(s) {
				t.Fatalf("%q: pre-check says clean, pattern %s matches", s, p)
			}
		}
	}
}
