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

// A pattern's pre-check never lets a secret through: wherever it says the
// text lacks the words its pattern needs, the pattern finds nothing either.
// The texts are random strings of the patterns' own words and characters.
func TestRedactPreChecksHaveNoFalseNegatives(t *testing.T) {
	pieces := []string{"a", "Z", "0", "_", "-", "+", "/", "=", ":", " ", "\t", "@", ".", "'", `"`, "%", ";",
		"key", "KEY", "token", "Secret", "passwd", "password", "auth", "credential", "--", "-p", "-a", "-u", "-U", "-b",
		"://", "pass:", "mysql", "mariadb", "sshpass", "curl", "wget", "http", "redis-cli", "docker", "helm registry",
		"login", "mongo", "smbclient", "htpasswd", "Authorization", "bearer", "--oauth2-bearer",
		"abcdefghijklmnopqrstuvwxyz0123456789"}
	patterns := append([]pattern{namedSecret, urlPassword, longToken}, positionalSecrets...)
	r := rand.New(rand.NewPCG(7, 8))
	for range 30000 {
		var b strings.Builder
		for range r.IntN(14) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		lower := strings.ToLower(s)
		for _, p := range patterns {
			if !p.need(lower) && p.re().MatchString(s) {
				t.Fatalf("%q: pre-check says clean, pattern %s matches", s, p.re())
			}
		}
	}
}

// A typical command compiles no pattern: every hook call is a new process.
func TestTypicalCommandCompilesNoPattern(t *testing.T) {
	lower := strings.ToLower("npm test -- --watch=false ./pkg/... && go vet ./...")
	for _, p := range append([]pattern{namedSecret, urlPassword, longToken}, positionalSecrets...) {
		if p.need(lower) {
			t.Errorf("pattern %s would be compiled for a typical command", p.re())
		}
	}
}
