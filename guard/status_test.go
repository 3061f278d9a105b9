package guard

import (
	"testing"
	"time"

	"github.com/runaway-guard/runaway/configs"
)

// One notion of a session's state, for status and allow alike.
func TestSessionState(t *testing.T) {
	p := configs.Policy{SessionCapUSD: 10, PromptCapUSD: 4, WarnAt: 0.8}
	tests := []struct {
		name  string
		spend Spend
		want  State
	}{
		{"fresh", Spend{}, StateOK},
		{"under the warn share", Spend{USD: 7.9}, StateOK},
		{"warned", Spend{USD: 8}, StateWarned},
		{"over a lowered cap, not stopped yet", Spend{USD: 11}, StateOverCap},
		{"stopped at the cap", Spend{USD: 10, Stopped: true}, StateStopped},
		{"stopped, then allowed past the spend", Spend{USD: 10, Allowed: 5, Stopped: true}, StateOK},
		{"allowed less than the spend", Spend{USD: 16, Allowed: 5}, StateOverCap},
		{"prompt warned", Spend{USD: 5, Prompt: Prompt{ID: "p", StartUSD: 1.8}}, StateWarned},
		{"prompt over its cap", Spend{USD: 5, Prompt: Prompt{ID: "p", StartUSD: 1}}, StateOverCap},
		{"prompt stopped", Spend{USD: 5, Prompt: Prompt{ID: "p", StartUSD: 1, Stopped: true}}, StateStopped},
		{"another prompt stopped", Spend{USD: 5, Prompt: Prompt{ID: "p2", StartUSD: 4.5},
			Prompts: []Prompt{{ID: "p1", StartUSD: 0, Stopped: true}}}, StateStopped},
		{"another prompt stopped, since allowed", Spend{USD: 5, Prompt: Prompt{ID: "p2", StartUSD: 4.5},
			Prompts: []Prompt{{ID: "p1", StartUSD: 0, Allowed: 2, Stopped: true}}}, StateOK},
	}
	for _, tt := range tests {
		s := &Session{Spend: tt.spend}
		if got := s.State(p); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		if got, want := s.State(p).NeedsAllow(), tt.want == StateOverCap || tt.want == StateStopped; got != want {
			t.Errorf("%s: NeedsAllow %v", tt.name, got)
		}
	}
	// Without caps nothing is over anything.
	if got := (&Session{Spend: Spend{USD: 1000, Stopped: true}}).State(configs.Policy{WarnAt: 0.8}); got != StateOK {
		t.Errorf("no caps: %s", got)
	}
}

// The daily cap stops the calls of the sessions active today; a cap of the
// session's own comes first, since allow raises it.
func TestSessionStateToday(t *testing.T) {
	now := time.Now()
	p := configs.Policy{SessionCapUSD: 10, DailyCapUSD: 5, WarnAt: 0.8}
	d := dayCap{day: now.Local().Format(time.DateOnly), spent: 6, cap: 5}
	today := &Session{Updated: now, Spend: Spend{USD: 2}}
	yesterday := &Session{Updated: now.Add(-48 * time.Hour), Spend: Spend{USD: 2}}
	stopped := &Session{Updated: now, Spend: Spend{USD: 12, Stopped: true}}
	for _, tt := range []struct {
		name string
		s    *Session
		d    dayCap
		want State
	}{
		{"active today, daily cap reached", today, d, StateDailyCap},
		{"not active today", yesterday, d, StateOK},
		{"its own cap first", stopped, d, StateStopped},
		{"daily cap not reached", today, dayCap{day: d.day, spent: 4, cap: 5}, StateOK},
		{"no daily cap", today, dayCap{day: d.day, spent: 6}, StateOK},
	} {
		if got := tt.s.stateToday(p, tt.d); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
