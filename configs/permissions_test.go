package configs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var testRules = []string{
	"Edit(//home/u/.config/runaway/**)",
	"Edit(//home/u/.local/state/runaway/**)",
	"Edit(//home/u/.local/bin/runaway)",
	"Edit(//home/u/.claude/settings.json)",
}

func TestClaudeEditRule(t *testing.T) {
	for _, c := range []struct {
		path string
		dir  bool
		goos string
		want string
	}{
		{"/home/u/.config/runaway", true, "linux", "Edit(//home/u/.config/runaway/**)"},
		{"/home/u/.config/runaway/", true, "darwin", "Edit(//home/u/.config/runaway/**)"},
		{"/home/u/.local/bin/runaway", false, "linux", "Edit(//home/u/.local/bin/runaway)"},
		{`C:\Users\u\.claude\settings.json`, false, "windows", "Edit(//c/Users/u/.claude/settings.json)"},
		{`D:\tools\runaway`, true, "windows", "Edit(//d/tools/runaway/**)"},
	} {
		if got := ClaudeEditRule(c.path, c.dir, c.goos); got != c.want {
			t.Errorf("ClaudeEditRule(%q, %v, %s) = %q, want %q", c.path, c.dir, c.goos, got, c.want)
		}
	}
}

// setup adds the hook then the rules; remove takes the rules out then the
// hook; the file comes back byte for byte, and in between it holds each
// rule once, with the person's own rules and keys untouched.
func TestDenyRulesRoundTrip(t *testing.T) {
	files := map[string]string{
		"blank":       "",
		"empty":       "{}",
		"spaced":      "{ }\n",
		"other keys":  "{\n  \"model\": \"opus\"\n}\n",
		"permissions": "{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test)\"]\n  }\n}\n",
		"empty deny":  "{\n  \"permissions\": {\n    \"deny\": [ ]\n  }\n}\n",
		"deny rules":  "{\r\n\t\"permissions\": {\r\n\t\t\"deny\": [\"Read(./.env)\", \"Edit(//home/u/.local/bin/runaway)\"],\r\n\t\t\"ask\": []\r\n\t}\r\n}\r\n",
		"inline":      `{"permissions":{"deny":["WebFetch"]},"hooks":{}}`,
	}
	for name, before := range files {
		t.Run(name, func(t *testing.T) {
			d, err := ParseDoc("settings.json", []byte(before), true)
			if err != nil {
				t.Fatal(err)
			}
			had, _ := d.DenyRules()
			hu, err := d.SetHook(testSpec)
			if err != nil {
				t.Fatal(err)
			}
			ru, err := d.AddDenyRules(testRules)
			if err != nil {
				t.Fatal(err)
			}
			wired := d.Pack()
			if !json.Valid(wired) && !json.Valid(bytesWithoutBOM(wired)) {
				t.Fatalf("wired file is not strict JSON:\n%s", wired)
			}
			var parsed struct {
				Permissions struct{ Deny []string }
			}
			if err := json.Unmarshal(wired, &parsed); err != nil {
				t.Fatal(err)
			}
			for _, r := range testRules {
				if n := countOf(parsed.Permissions.Deny, r); n != 1 {
					t.Errorf("%s appears %d times in\n%s", r, n, wired)
				}
			}
			for _, r := range had {
				if !slices.Contains(parsed.Permissions.Deny, r) {
					t.Errorf("the person's rule %s is gone", r)
				}
			}
			if slices.Contains(had, testRules[2]) == slices.Contains(ru.Rules, testRules[2]) {
				t.Errorf("a rule the person had is recorded as setup's: %v", ru.Rules)
			}

			d2, err := ParseDoc("settings.json", wired, true)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d2.RemoveDenyRules(ru); err != nil {
				t.Fatal(err)
			}
			if _, err := d2.RemoveHooks([]Undo{hu}); err != nil {
				t.Fatal(err)
			}
			if got := string(d2.Pack()); got != before {
				t.Errorf("round trip:\n got %q\nwant %q", got, before)
			}
		})
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func TestDenyRulesRefusesOddShapes(t *testing.T) {
	for _, in := range []string{`{"permissions": []}`, `{"permissions": {"deny": "Edit"}}`} {
		d, err := ParseDoc("settings.json", []byte(in), true)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.AddDenyRules(testRules); err == nil {
			t.Errorf("%s: rules added to a value of the wrong type", in)
		}
	}
}

// Every real Claude Code settings file round-trips with rules and hook.
func FuzzDenyRules(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	real, _ := filepath.Glob(filepath.Join(moduleRoot(f), "..", "shared", "fixtures", "settings", "*", "*.json"))
	for _, path := range real {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ParseDoc("f.json", in, false)
		if err != nil {
			return
		}
		if es, err := d.HookEntries(); err != nil || len(es) > 0 {
			return
		}
		if had, err := d.DenyRules(); err != nil || len(had) > 0 {
			return
		}
		hu, err := d.SetHook(testSpec)
		if err != nil {
			return
		}
		ru, err := d.AddDenyRules(testRules)
		if err != nil {
			return
		}
		wired := d.Pack()
		d2, err := ParseDoc("f.json", wired, false)
		if err != nil {
			t.Fatalf("wired file does not parse: %v\n%q", err, wired)
		}
		if got, _ := d2.DenyRules(); !slices.Equal(got, testRules) {
			t.Fatalf("rules = %q", got)
		}
		if _, err := d2.RemoveDenyRules(ru); err != nil {
			t.Fatal(err)
		}
		if _, err := d2.RemoveHooks([]Undo{hu}); err != nil {
			t.Fatal(err)
		}
		if got := d2.Pack(); string(got) != string(in) {
			t.Fatalf("round trip:\n got %q\nwant %q", got, in)
		}
	})
}
