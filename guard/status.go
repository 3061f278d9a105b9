package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/configs"
)

// View is one guarded session as `runaway status` shows it.
type View struct {
	Harness      Harness   `json:"harness"`
	SessionID    string    `json:"session_id"`
	Cwd          string    `json:"cwd"`
	Models       []string  `json:"models"`
	SpendUSD     float64   `json:"spend_usd"`
	Estimated    bool      `json:"estimated"`
	CapUSD       float64   `json:"cap_usd"`
	PromptUSD    float64   `json:"prompt_spend_usd"`
	PromptCapUSD float64   `json:"prompt_cap_usd"`
	State        string    `json:"state"` // ok, warned, stopped
	Calls        int       `json:"calls"`
	FailureRun   int       `json:"failure_run"`
	RepeatRun    int       `json:"repeat_run"`
	LastDecision *Decision `json:"last_decision"`
	StartedAt    time.Time `json:"started_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	Transcript   string    `json:"transcript,omitempty"`
}

// Views reads every guarded session (or those whose id starts with
// prefix), brings each one's spend up to date with its transcripts' new
// bytes, and writes nothing. Most recent first.
func (s *Store) Views(ctx context.Context, prefix string, p configs.Policy, pr Pricer) ([]View, error) {
	sessions, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	var out []View
	for _, sess := range sessions {
		if !strings.HasPrefix(sess.SessionID, prefix) {
			continue
		}
		// Read on a copy: status never writes the hook's state.
		cp := clone(sess)
		if _, err := cp.readTranscripts(ctx, cp.Harness, cp.Spend.Transcript, "", pr); err != nil {
			cp = sess
		}
		out = append(out, cp.view(p))
	}
	return out, nil
}

func clone(s *Session) *Session {
	data, _ := json.Marshal(s)
	var c Session
	if json.Unmarshal(data, &c) != nil {
		return s
	}
	return &c
}

func (s *Session) view(p configs.Policy) View {
	v := View{
		Harness: s.Harness, SessionID: s.SessionID, Cwd: s.Cwd, Models: s.Spend.Models,
		SpendUSD: roundMicro(s.Spend.USD), Estimated: s.Spend.Estimated, CapUSD: s.SessionCap(p),
		Calls: s.Calls, FailureRun: s.Failures.Run, RepeatRun: sameRun(s.Recent),
		LastDecision: s.Last, StartedAt: s.Started, UpdatedAt: s.Updated,
		Transcript: s.Spend.Transcript, State: "ok",
	}
	if v.Models == nil {
		v.Models = []string{}
	}
	if s.Spend.Prompt.ID != "" {
		v.PromptUSD = s.Spend.Prompt.USD(s.Spend.USD)
		v.PromptCapUSD = s.PromptCap(p)
	}
	switch {
	case over(v.SpendUSD, v.CapUSD) || over(v.PromptUSD, v.PromptCapUSD):
		v.State = "stopped"
	case over(v.SpendUSD, p.WarnAt*v.CapUSD) || over(v.PromptUSD, p.WarnAt*v.PromptCapUSD):
		v.State = "warned"
	}
	return v
}

func over(spent, cap float64) bool { return cap > 0 && spent >= cap }

// Spend renders "$1.23 / $10.00" (with "~" when estimated).
func (v View) Spend() string {
	s := usd(v.SpendUSD)
	if v.Estimated {
		s = "~" + s
	}
	if v.CapUSD > 0 {
		s += " / " + usd(v.CapUSD)
	}
	return s
}

// Runs renders the failure and repeat runs as "f2 r1".
func (v View) Runs() string { return fmt.Sprintf("f%d r%d", v.FailureRun, v.RepeatRun) }
