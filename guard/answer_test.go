package guard

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Every kind of answer in every harness's format, against golden files.
func TestEncodeGolden(t *testing.T) {
	warn := Verdict{Kind: Warn, Wire: "spend", Reason: "runaway: $8.00 of the $10.00 session cap spent"}
	ask := Verdict{Kind: Ask, Wire: "loop", Reason: "runaway: the same Bash call 5 times in a row: `npm test`", ModelHint: "Stop and ask the person."}
	deny := Verdict{Kind: Deny, Wire: "tamper", Reason: "runaway: this call would switch runaway off."}
	stop := Verdict{Kind: Stop, Wire: "spend", Reason: "runaway: $10.02 spent, the session cap is $10.00. To go on: runaway allow s1 --add 10"}
	cases := map[string]Answer{
		"none":          {},
		"warn":          {Verdicts: []Verdict{warn}},
		"ask":           {Verdicts: []Verdict{ask}},
		"ask_and_warn":  {Verdicts: []Verdict{warn, ask}},
		"deny":          {Verdicts: []Verdict{deny}},
		"deny_and_ask":  {Verdicts: []Verdict{ask, deny}},
		"stop":          {Verdicts: []Verdict{stop}},
		"stop_and_more": {Verdicts: []Verdict{warn, ask, stop}},
	}
	type form struct {
		h      agent.ID
		prefix string
		event  string
	}
	var forms []form
	for _, h := range agent.IDs() {
		forms = append(forms, form{h, string(h), ""})
	}
	// Copilot CLI's permissionRequest, where a stop ends the turn.
	forms = append(forms, form{agent.Copilot, "copilot_permission", copilotPermission})
	for name, a := range cases {
		for _, f := range forms {
			a.event = f.event
			got := a.Encode(f.h)
			golden := filepath.Join("testdata", "answer", f.prefix+"_"+name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./guard -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s %s:\n got %s\nwant %s", f.prefix, name, got, want)
			}
		}
	}
}

// Codex marks a hook failed, and runs the tool, when the answer holds a
// field it does not accept: whatever runaway decides, only these go out.
func TestCodexGetsOnlyFieldsItAccepts(t *testing.T) {
	allowedTop := map[string]bool{"systemMessage": true, "hookSpecificOutput": true}
	allowedSpecific := map[string]bool{"hookEventName": true, "permissionDecision": true, "permissionDecisionReason": true}
	kinds := []Verdict{
		{Kind: Warn, Reason: "w"}, {Kind: Ask, Reason: "a"}, {Kind: Deny, Reason: "d"}, {Kind: Stop, Reason: "s"},
	}
	for i := range kinds {
		for j := range kinds {
			a := Answer{Verdicts: []Verdict{kinds[i], kinds[j]}}
			out := a.Encode(agent.Codex)
			var top map[string]json.RawMessage
			if err := json.Unmarshal(out, &top); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			for k := range top {
				if !allowedTop[k] {
					t.Errorf("%s: field %q is not one Codex accepts", out, k)
				}
			}
			if raw, ok := top["hookSpecificOutput"]; ok {
				var spec map[string]string
				if err := json.Unmarshal(raw, &spec); err != nil {
					t.Fatal(err)
				}
				for k := range spec {
					if !allowedSpecific[k] {
						t.Errorf("%s: hookSpecificOutput.%s is not one Codex accepts", out, k)
					}
				}
				if spec["permissionDecision"] != "deny" || spec["permissionDecisionReason"] == "" {
					t.Errorf("%s: Codex only honours deny with a non-empty reason", out)
				}
			}
		}
	}
}

// Gemini CLI hangs a headless run forever on "ask", and reads stdout as
// plain text (an allow) unless it is one JSON object: every answer is one
// object, and never says ask.
func TestGeminiNeverAsks(t *testing.T) {
	kinds := []Verdict{
		{Kind: Warn, Reason: "w"}, {Kind: Ask, Reason: "a", ModelHint: "ask the person"}, {Kind: Deny, Reason: "d"}, {Kind: Stop, Reason: "s"},
	}
	for i := range kinds {
		for j := range kinds {
			a := Answer{Verdicts: []Verdict{kinds[i], kinds[j]}}
			out := a.Encode(agent.Gemini)
			var top map[string]any
			dec := json.NewDecoder(bytes.NewReader(out))
			if err := dec.Decode(&top); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if dec.More() {
				t.Errorf("%s: more than one JSON value", out)
			}
			switch d := top["decision"]; {
			case a.Kind() >= Ask && (d != "deny" || top["reason"] == ""):
				t.Errorf("%s: a %v must be a deny with a reason", out, a.Kind())
			case a.Kind() < Ask && d != nil:
				t.Errorf("%s: a warning decides nothing", out)
			}
			if (top["continue"] == false) != (a.Kind() == Stop) {
				t.Errorf("%s: continue:false only for a stop", out)
			}
			if a.Kind() == Ask && !strings.Contains(top["reason"].(string), "ask the person") {
				t.Errorf("%s: the model is not told to ask the person", out)
			}
		}
	}
}

func TestKindPrecedence(t *testing.T) {
	a := Answer{Verdicts: []Verdict{{Kind: Warn}, {Kind: Stop}, {Kind: Ask}, {Kind: Deny}}}
	if a.Kind() != Stop {
		t.Fatalf("got %v, want stop", a.Kind())
	}
	if (Answer{}).Kind() != None {
		t.Fatal("empty answer must be none")
	}
}
