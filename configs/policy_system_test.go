package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestTightenOnlyLowers(t *testing.T) {
	ceiling := Policy{SessionCapUSD: 10, WarnAt: 0.8, PromptCapUSD: 0, DailyCapUSD: 50, FailureRun: 5, RepeatRun: 5, Escalate: true, EndAgent: true, NotifyCommand: "notify-admin"}
	for _, tc := range []struct {
		name string
		want func(*Policy)
		got  func(*Policy)
	}{
		{"a higher cap is ignored", func(p *Policy) { p.SessionCapUSD = 100 }, func(p *Policy) {}},
		{"no cap (0) is ignored", func(p *Policy) { p.SessionCapUSD, p.DailyCapUSD = 0, 0 }, func(p *Policy) {}},
		{"a lower cap holds", func(p *Policy) { p.SessionCapUSD = 3 }, func(p *Policy) { p.SessionCapUSD = 3 }},
		{"a cap where there is none holds", func(p *Policy) { p.PromptCapUSD = 2 }, func(p *Policy) { p.PromptCapUSD = 2 }},
		{"a later warning is ignored", func(p *Policy) { p.WarnAt = 1 }, func(p *Policy) {}},
		{"an earlier warning holds", func(p *Policy) { p.WarnAt = 0.5 }, func(p *Policy) { p.WarnAt = 0.5 }},
		{"longer runs are ignored", func(p *Policy) { p.FailureRun, p.RepeatRun = 50, 50 }, func(p *Policy) {}},
		{"shorter runs hold", func(p *Policy) { p.FailureRun, p.RepeatRun = 3, 2 }, func(p *Policy) { p.FailureRun, p.RepeatRun = 3, 2 }},
		{"escalation cannot be turned off", func(p *Policy) { p.Escalate = false }, func(p *Policy) {}},
		{"ending the agent at a cap cannot be turned off", func(p *Policy) { p.EndAgent = false }, func(p *Policy) {}},
		{"the notify command stays the system's", func(p *Policy) { p.NotifyCommand = "true" }, func(p *Policy) {}},
		{"the price catalogue stays the system's", func(p *Policy) { p.PricesFile = "/home/u/cheap.json" }, func(p *Policy) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, expect := ceiling, ceiling
			tc.want(&want)
			tc.got(&expect)
			if got := Tighten(ceiling, want); !reflect.DeepEqual(got, expect) {
				t.Errorf("got %+v\nwant %+v", got, expect)
			}
		})
	}
}

// A knob added to Policy must say how the system config bounds it: this
// fails until Tighten (and this count) learn it.
func TestTightenKnowsEveryField(t *testing.T) {
	if n := reflect.TypeFor[Policy]().NumField(); n != 12 {
		t.Errorf("Policy has %d fields; teach Tighten how a system install bounds the new one", n)
	}
}

func TestSystemPolicyEnvAndUserConfigOnlyLower(t *testing.T) {
	dir := t.TempDir()
	sys := filepath.Join(dir, "system.json")
	user := filepath.Join(dir, "user.json")
	os.WriteFile(sys, []byte(`{"session_cap_usd": 10, "daily_cap_usd": 40}`), 0o644)
	os.WriteFile(user, []byte(`{"session_cap_usd": 500, "daily_cap_usd": 30, // comments are fine
	}`), 0o644)
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "1000", "RUNAWAY_REPEAT_RUN": "3", "RUNAWAY_ESCALATE": "false"}
	p, _ := loadSystemPolicy(sys, user, func(k string) string { return env[k] })
	if p.SessionCapUSD != 10 || p.DailyCapUSD != 30 || p.RepeatRun != 3 || !p.Escalate || p.PricesFile != filepath.Join(dir, "prices.json") {
		t.Errorf("got %+v", p)
	}
	// Missing user config, a lower cap from the environment.
	env = map[string]string{"RUNAWAY_SESSION_CAP_USD": "4"}
	p, _ = loadSystemPolicy(sys, filepath.Join(dir, "none.json"), func(k string) string { return env[k] })
	if p.SessionCapUSD != 4 || p.DailyCapUSD != 40 {
		t.Errorf("got %+v", p)
	}
	// A system config that does not parse: the defaults, still only lowered.
	os.WriteFile(sys, []byte(`{`), 0o644)
	env = map[string]string{"RUNAWAY_SESSION_CAP_USD": "1000"}
	p, problems := loadSystemPolicy(sys, user, func(k string) string { return env[k] })
	if p.SessionCapUSD != DefaultSessionCapUSD || len(problems) == 0 {
		t.Errorf("got %+v, %v", p, problems)
	}
}
