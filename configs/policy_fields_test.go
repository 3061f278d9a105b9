package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 23, item 12: one wrongly typed field keeps every other field, and
// is named with its line; a misspelt field is a warning naming the nearest
// known one (before: the whole file fell back to the defaults, $20 and no
// prompt or daily cap, and a misspelt field was ignored without a word).
func TestConfigFieldErrorsKeepTheOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	data := "{\n  // caps\n  \"session_cap_usd\": 5,\n  \"prompt_cap_usd\": 2,\n  \"daily_cap_usd\": 30,\n  \"failure_run\": \"five\",\n  \"sesion_cap_usd\": 7,\n  \"daily_cap\": 9\n}\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	p, problems := LoadPolicy(path, func(string) string { return "" })
	if p.SessionCapUSD != 5 || p.PromptCapUSD != 2 || p.DailyCapUSD != 30 || p.FailureRun != DefaultPolicy().FailureRun {
		t.Errorf("policy %+v: want the file's caps kept and failure_run's default", p)
	}
	var all []string
	for _, e := range problems {
		all = append(all, e.Error())
	}
	got := strings.Join(all, "\n")
	for _, want := range []string{
		`line 6: failure_run is "five", not a whole number`,
		`line 7: unknown field "sesion_cap_usd" ignored; did you mean "session_cap_usd"?`,
		`line 8: unknown field "daily_cap" ignored; did you mean "daily_cap_usd"?`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems:\n%s\nwant one with %q", got, want)
		}
	}
	unknown := 0
	for _, e := range problems {
		var u *UnknownFieldError
		if errors.As(e, &u) {
			unknown++
		}
	}
	if unknown != 2 {
		t.Errorf("%d unknown-field problems, want 2", unknown)
	}
}
