package configs

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/configuration.md from the knob table")

// docs/configuration.md is what Reference makes from the knob table.
func TestConfigurationReference(t *testing.T) {
	path := filepath.Join("..", "docs", "configuration.md")
	want := Reference()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not what the knob table makes; run: go test ./configs -run TestConfigurationReference -update", path)
	}
}

// Each knob's bounds are one rule: Parse takes what Check takes, and what
// Format writes Parse reads back.
func TestKnobsParseFormatCheck(t *testing.T) {
	for _, k := range Knobs {
		if k.field == nil || k.Key == "" || k.Comment == "" {
			t.Errorf("%s: missing field, key or comment", k.Key)
		}
		if err := k.Check(k.Default); err != nil {
			t.Errorf("%s: its default %v is out of its bounds", k.Key, k.Default)
		}
		v, err := k.Parse(k.Format(k.Default))
		if err != nil || v != k.Default {
			t.Errorf("%s: Parse(Format(%v)) = %v, %v", k.Key, k.Default, v, err)
		}
		if k.Flag != "" && k.Help == "" {
			t.Errorf("%s: a flag without help", k.Key)
		}
	}
	for _, c := range []struct {
		key, in string
		want    any
	}{
		{"session_cap_usd", "$7.50", 7.5}, {"session_cap_usd", " 20 ", 20.0}, {"session_cap_usd", "0", 0.0},
		{"session_cap_usd", "-1", nil}, {"session_cap_usd", "NaN", nil}, {"session_cap_usd", "Inf", nil},
		{"session_cap_usd", "100001", nil}, {"session_cap_usd", "twelve", nil},
		{"warn_at", "0.8", 0.8}, {"warn_at", "80%", 0.8}, {"warn_at", "100%", 1.0}, {"warn_at", "1", 1.0},
		{"warn_at", "80", 0.8}, {"warn_at", " 50 % ", 0.5}, {"warn_at", "100", 1.0}, {"warn_at", "0.5", 0.5},
		{"warn_at", "0", nil}, {"warn_at", "0%", nil}, {"warn_at", "101%", nil}, {"warn_at", "101", nil},
		{"warn_at", "-80", nil}, {"warn_at", "NaN", nil}, {"warn_at", "Inf", nil}, {"warn_at", "eighty", nil},
		{"failure_run", "2", 2}, {"failure_run", "100", 100}, {"failure_run", "1", nil}, {"failure_run", "101", nil}, {"failure_run", "3.5", nil},
		{"escalate", "false", false}, {"escalate", "maybe", nil},
		{"notify_command", " notify-send x ", "notify-send x"},
	} {
		k, _ := KnobByKey(c.key)
		v, err := k.Parse(c.in)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s %q: took %v", c.key, c.in, v)
			}
			continue
		}
		if err != nil || v != c.want {
			t.Errorf("%s %q = %v, %v; want %v", c.key, c.in, v, err, c.want)
		}
	}
}
