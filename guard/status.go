package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// View is one guarded session as `runaway status` shows it.
type View struct {
	Harness   agent.ID `json:"harness"`
	SessionID string   `json:"session_id"`
	// ShortID is the fewest first characters of the id (at least 8) that
	// name this session alone among runaway's sessions: status shows it,
	// and allow and status take it.
	ShortID   string   `json:"short_id"`
	Cwd       string   `json:"cwd"`
	Models    []string `json:"models"`
	SpendUSD  float64  `json:"spend_usd"`
	Estimated bool     `json:"estimated"`
	// PremiumRequests is what GitHub Copilot's own plan billed the
	// session, in its premium-request units: not dollars, not in SpendUSD,
	// and no cap counts it.
	PremiumRequests float64   `json:"copilot_premium_requests,omitempty"`
	CapUSD          float64   `json:"cap_usd"`
	PromptUSD       float64   `json:"prompt_spend_usd"`
	PromptCapUSD    float64   `json:"prompt_cap_usd"`
	State           State     `json:"state"`
	Calls           int       `json:"calls"`
	FailureRun      int       `json:"failure_run"`
	RepeatRun       int       `json:"repeat_run"`
	LastDecision    *Decision `json:"last_decision"`
	StartedAt       time.Time `json:"started_at"`
	UpdatedAt       time.Time `json:"updated_at"`
	Transcript      string    `json:"transcript,omitempty"`
	// Ended is how runaway ended the agent's run itself at a stop (Codex).
	Ended *Ended `json:"ended,omitempty"`
	// Next are the commands that go on, for a session that waits for the
	// person: raise the cap, then resume.
	Next []string `json:"next,omitempty"`
}

// State is where a session stands against its caps. status shows it and
// allow picks by it, so the two always agree.
type State string

const (
	StateOK     State = "ok"
	StateWarned State = "warned" // past the warn share of a cap
	// StateOverCap: spent up to a cap the hook has not stopped the session
	// at yet (the cap was lowered, or no call came since): its next call is
	// stopped.
	StateOverCap State = "over-cap"
	// StateStopped: the hook stopped the session at a cap it is still at;
	// every call is stopped until the person raises the cap.
	StateStopped State = "stopped"
	// StateDailyCap: all sessions together reached the daily cap today, and
	// this one made calls today: its calls are stopped until the person
	// raises daily_cap_usd (allow cannot).
	StateDailyCap State = "daily-cap"
)

// NeedsAllow reports whether the session waits for the person to raise a
// cap (runaway allow).
func (st State) NeedsAllow() bool { return st == StateStopped || st == StateOverCap }

// State says where the session stands against the session and prompt caps
// of policy p, with the spend it has recorded. Of the other prompts it
// remembers (Codex's parallel subagents' turns), one stopped at its cap
// stops the session's state too: that subagent waits for `allow --prompt`.
func (s *Session) State(p configs.Policy) State {
	sessionCap, promptCap := s.SessionCap(p), 0.0
	promptUSD := 0.0
	if s.Spend.Prompt.ID != "" {
		promptCap, promptUSD = s.PromptCap(p), s.Spend.Prompt.USD(s.Spend.USD)
	}
	overSession, overPrompt := over(s.Spend.USD, sessionCap), over(promptUSD, promptCap)
	otherStopped := false
	for _, pr := range s.Spend.Prompts {
		if p.PromptCapUSD > 0 && pr.Stopped && over(pr.USD(s.Spend.USD), p.PromptCapUSD+pr.Allowed) {
			otherStopped = true
		}
	}
	switch {
	case overSession && s.Spend.Stopped, overPrompt && s.Spend.Prompt.Stopped, otherStopped:
		return StateStopped
	case overSession, overPrompt:
		return StateOverCap
	case over(s.Spend.USD, p.WarnAt*sessionCap), over(promptUSD, p.WarnAt*promptCap):
		return StateWarned
	}
	return StateOK
}

// dayCap is where all sessions stand against the daily cap today.
type dayCap struct {
	day        string // local date
	spent, cap float64
}

// dayCap reads today's spend across sessions from the daily ledger (no lock:
// the ledger is replaced whole, by rename).
func (s *Store) dayCap(p configs.Policy, now time.Time) dayCap {
	d := dayCap{day: now.Local().Format(time.DateOnly), cap: p.DailyCapUSD}
	if d.cap > 0 {
		d.spent = dailyLedger{dir: filepath.Join(s.Dir, "daily")}.total(d.day)
	}
	return d
}

func (d dayCap) reached() bool { return over(d.spent, d.cap) }

// stateToday is the session's State, or StateDailyCap when the daily cap
// stops its calls and no cap of its own does (allow raises those first).
func (s *Session) stateToday(p configs.Policy, d dayCap) State {
	st := s.State(p)
	if !st.NeedsAllow() && d.reached() && s.Updated.Local().Format(time.DateOnly) == d.day {
		return StateDailyCap
	}
	return st
}

// current reads every guarded session (or those whose id starts with
// prefix) and brings each one's spend up to date with its transcripts' new
// bytes, on a copy: it writes nothing. Most recent first. With them come
// the short ids, told apart among all sessions, by session id.
func (s *Store) current(ctx context.Context, prefix string, pr Pricer) ([]*Session, map[string]string, error) {
	sessions, err := s.Sessions()
	if err != nil {
		return nil, nil, err
	}
	shorts := shortIDsOf(sessions)
	var out []*Session
	for _, sess := range sessions {
		if !strings.HasPrefix(sess.SessionID, prefix) {
			continue
		}
		cp := clone(sess)
		// What the hook counted, read but not added to: status and allow
		// read a session's transcripts as its next hook will.
		cp.counted = &countedKeys{path: filepath.Join(s.sessionsDir(), fileBase(sess.Harness, sess.SessionID)+".keys"), readOnly: true}
		if _, err := cp.readTranscripts(ctx, cp.Harness, cp.Spend.Transcript, "", pr, today{}); err != nil {
			cp = sess
		}
		out = append(out, cp)
	}
	return out, shorts, nil
}

// Views reads every guarded session (or those whose id starts with
// prefix), up to date with its transcripts, as status shows them. It
// writes nothing. Most recent first.
func (s *Store) Views(ctx context.Context, prefix string, p configs.Policy, pr Pricer) ([]View, error) {
	sessions, shorts, err := s.current(ctx, prefix, pr)
	if err != nil {
		return nil, err
	}
	d := s.dayCap(p, time.Now())
	out := make([]View, 0, len(sessions))
	for _, sess := range sessions {
		v := sess.view(p)
		v.ShortID = shorts[sess.SessionID]
		v.State = sess.stateToday(p, d)
		v.Next = sess.next(p, v.State)
		out = append(out, v)
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
		Transcript: s.Spend.Transcript, State: s.State(p), Ended: s.Ended,
		PremiumRequests: s.Spend.Premium,
	}
	if v.Models == nil {
		v.Models = []string{}
	}
	if s.Spend.Prompt.ID != "" {
		v.PromptUSD = s.Spend.Prompt.USD(s.Spend.USD)
		v.PromptCapUSD = s.PromptCap(p)
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
	if v.PremiumRequests > 0 {
		// Copilot's own units: shown beside the dollars, never as them.
		s += " + " + strconv.FormatFloat(v.PremiumRequests, 'f', -1, 64) + " premium requests"
	}
	return s
}

// Runs renders the failure and repeat runs as "f2 r1".
func (v View) Runs() string { return fmt.Sprintf("f%d r%d", v.FailureRun, v.RepeatRun) }

// next are the commands that go on for a session in state st: raise the
// cap that stopped it, then resume it; none for a session that can go on.
func (s *Session) next(p configs.Policy, st State) []string {
	var raise string
	switch {
	case st == StateDailyCap:
		raise = "raise daily_cap_usd in " + p.ConfigFile()
	case !st.NeedsAllow():
		return nil
	case over(s.Spend.USD, s.SessionCap(p)):
		raise = "runaway allow " + s.SessionID + " --add " + addHint(s.SessionCap(p))
	default:
		raise = "runaway allow " + s.SessionID + " --prompt --add " + addHint(max(s.PromptCap(p), p.PromptCapUSD))
	}
	next := []string{raise}
	interactive, script := Resume(s.Harness, s.SessionID)
	if e := s.Ended; e != nil && len(e.Next) > 1 {
		// The resume command for the way the stopped run was started.
		next = append(next, e.Next[len(e.Next)-1])
	} else if interactive != "" {
		next = append(next, interactive+" (without a terminal: "+script+")")
	}
	return next
}
