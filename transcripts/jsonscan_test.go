package transcripts

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFieldSpan(t *testing.T) {
	for _, c := range []struct {
		in, key, want string
		ok            bool
	}{
		{`{"a":1,"llm_request":{"model":"m","messages":[{"content":"x \"}\" y"}]},"b":[2]}`, "llm_request", `{"model":"m","messages":[{"content":"x \"}\" y"}]}`, true},
		{` { "b" : "llm_request" , "llm_request" : [1, {"c": "]"}] } `, "llm_request", `[1, {"c": "]"}]`, true},
		{`{"nested":{"llm_request":1}}`, "llm_request", "", false},
		{`{"a":"unterminated`, "a", "", false},
		{`[1,2]`, "a", "", false},
		{`{"model":"gemini-3.5-flash"}`, "model", `"gemini-3.5-flash"`, true},
	} {
		start, end, ok := FieldSpan([]byte(c.in), c.key)
		if ok != c.ok || ok && c.in[start:end] != c.want {
			t.Errorf("FieldSpan(%s, %q) = %q, %v; want %q, %v", c.in, c.key, c.in[start:end], ok, c.want, c.ok)
		}
	}
}

// FieldSpan's value is what encoding/json takes for the field, on any
// object json accepts (keys written without \u escapes).
func FuzzFieldSpan(f *testing.F) {
	f.Add(`{"a":1,"llm_request":{"model":"m","messages":["x \"}\" y"]},"b":[2]}`)
	f.Add(`{"llm_request":"\\\\"}`)
	f.Add(`{"llm_request":1,"llm_request":2}`)
	f.Fuzz(func(t *testing.T, in string) {
		var m map[string]json.RawMessage
		if strings.Contains(in, `\u`) || json.Unmarshal([]byte(in), &m) != nil {
			// An escaped key is not matched (see FieldSpan).
			return
		}
		want, has := m["llm_request"]
		start, end, ok := FieldSpan([]byte(in), "llm_request")
		if ok != has {
			t.Fatalf("FieldSpan(%q) found %v, json %v", in, ok, has)
		}
		if ok && !jsonEqual(t, []byte(in[start:end]), want) {
			t.Fatalf("FieldSpan(%q) = %q, json %q", in, in[start:end], want)
		}
	})
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
