package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadPolicyDefaults(t *testing.T) {
	p, problems := LoadPolicy(filepath.Join(t.TempDir(), "missing.json"), env(nil))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	want := DefaultPolicy()
	if p.SessionCapUSD != want.SessionCapUSD || p.WarnAt != 0.8 || p.FailureRun != 5 || p.RepeatRun != 5 || p.PromptCapUSD != 0 || p.DailyCapUSD != 0 {
		t.Fatalf("%+v", p)
	}
}

func TestLoadPolicyFileAndEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{
  // comments and trailing commas are fine
  "session_cap_usd": 7.5,
  "prompt_cap_usd": 2,
  "prices": {"my-model": {"input": 1}},
}`), 0o600)
	p, problems := LoadPolicy(path, env(map[string]string{"RUNAWAY_SESSION_CAP_USD": "5", "RUNAWAY_FAILURE_RUN": "3"}))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if p.SessionCapUSD != 5 || p.PromptCapUSD != 2 || p.FailureRun != 3 || p.RepeatRun != 5 || string(p.Prices["my-model"]) != `{"input": 1}` {
		t.Fatalf("%+v", p)
	}
}

func TestLoadPolicyBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(path, []byte(`{"session_cap_usd": 3,,}`), 0o600)
	p, problems := LoadPolicy(path, env(nil))
	if p.SessionCapUSD != DefaultSessionCapUSD || len(problems) != 1 || !strings.Contains(problems[0].Error(), "does not parse") {
		t.Fatalf("%+v %v", p, problems)
	}
	os.WriteFile(path, []byte(`{"session_cap_usd": "three"}`), 0o600)
	p, problems = LoadPolicy(path, env(nil))
	if p.SessionCapUSD != DefaultSessionCapUSD || len(problems) != 1 {
		t.Fatalf("%+v %v", p, problems)
	}
	p, problems = LoadPolicy(filepath.Join(t.TempDir(), "none"), env(map[string]string{
		"RUNAWAY_WARN_AT": "150", "RUNAWAY_REPEAT_RUN": "1", "RUNAWAY_DAILY_CAP_USD": "-3", "RUNAWAY_PRICES": "{",
	}))
	if p.WarnAt != DefaultWarnAt || p.RepeatRun != DefaultRepeatRun || p.DailyCapUSD != 0 || len(problems) != 4 {
		t.Fatalf("%+v %v", p, problems)
	}
}

// Escalation is on unless the file or the environment turns it off;
// notify_command comes from either, the environment winning.
func TestLoadPolicyEscalateAndNotify(t *testing.T) {
	dir := t.TempDir()
	p, _ := LoadPolicy(filepath.Join(dir, "none"), env(nil))
	if !p.Escalate || p.NotifyCommand != "" {
		t.Fatalf("defaults: %+v", p)
	}
	path := filepath.Join(dir, "config.json")
	os.WriteFile(path, []byte(`{"escalate": false, "notify_command": "notify-send runaway"}`), 0o600)
	p, problems := LoadPolicy(path, env(nil))
	if len(problems) != 0 || p.Escalate || p.NotifyCommand != "notify-send runaway" {
		t.Fatalf("file: %+v %v", p, problems)
	}
	p, problems = LoadPolicy(path, env(map[string]string{"RUNAWAY_ESCALATE": "true", "RUNAWAY_NOTIFY_COMMAND": "cat >> /tmp/n"}))
	if len(problems) != 0 || !p.Escalate || p.NotifyCommand != "cat >> /tmp/n" {
		t.Fatalf("env: %+v %v", p, problems)
	}
	p, problems = LoadPolicy(path, env(map[string]string{"RUNAWAY_ESCALATE": "sometimes"}))
	if len(problems) != 1 || p.Escalate {
		t.Fatalf("bad env: %+v %v", p, problems)
	}
}

// warn_at is read as people write it wherever they write it: 80 is 80% in
// the file, the environment and the flags alike, and 0.8 is too.
func TestWarnAtInPercentEverywhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	for _, file := range []string{`{"warn_at": 80}`, `{"warn_at": 0.8}`} {
		os.WriteFile(path, []byte(file), 0o600)
		if p, problems := LoadPolicy(path, env(nil)); p.WarnAt != 0.8 || len(problems) != 0 {
			t.Errorf("%s: warn_at %v, %v", file, p.WarnAt, problems)
		}
	}
	os.WriteFile(path, []byte(`{"warn_at": 700}`), 0o600)
	if p, problems := LoadPolicy(path, env(nil)); p.WarnAt != DefaultWarnAt || len(problems) != 1 || !strings.Contains(problems[0].Error(), "warn_at 700% is out of bounds") {
		t.Errorf("700: warn_at %v, %v", p.WarnAt, problems)
	}
	for _, v := range []string{"80", "80%", "0.8"} {
		if p, problems := LoadPolicy(filepath.Join(t.TempDir(), "none"), env(map[string]string{"RUNAWAY_WARN_AT": v})); p.WarnAt != 0.8 || len(problems) != 0 {
			t.Errorf("RUNAWAY_WARN_AT=%s: warn_at %v, %v", v, p.WarnAt, problems)
		}
	}
}
