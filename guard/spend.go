package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/transcripts"
)

// Spend is what a session spent, as its transcripts tell, and where the
// spend wire stands against its caps.
type Spend struct {
	// Transcript is the session's main transcript; Pos is how far it and
	// its subagents' files have been read.
	Transcript string               `json:"transcript,omitempty"`
	Pos        transcripts.Position `json:"pos"`
	USD        float64              `json:"usd"`
	// Estimated: some of USD was priced from a model not in the table, or
	// from what Gemini CLI's model events showed of a response its session
	// file never got (gemini.go).
	Estimated bool `json:"estimated,omitempty"`
	// Premium is what the agent's own plan billed, in its units (GitHub
	// Copilot's premium requests), for the requests it did not send to the
	// person's own key: they are not in USD.
	Premium float64           `json:"premium,omitempty"`
	Models  []string          `json:"models,omitempty"`
	Tokens  transcripts.Usage `json:"tokens"`
	// Allowed is what `runaway allow` added to the session cap.
	Allowed float64 `json:"allowed_usd,omitempty"`
	// WarnedCap is the cap the warning was given for: a raised cap warns
	// again when it is neared again.
	WarnedCap float64 `json:"warned_cap,omitempty"`
	Stopped   bool    `json:"stopped,omitempty"`
	Prompt    Prompt  `json:"prompt"`
	// Prompts are the other prompts seen lately, least recent first.
	Prompts []Prompt `json:"prompts,omitempty"`
	// Days is what the session spent on each of its latest local days, for
	// the daily cap, counted from DaySince (when the daily cap was set):
	// each response on the day its time says.
	Days     []DaySpend `json:"days,omitempty"`
	DaySince time.Time  `json:"day_since,omitzero"`
	// Day and DayUSD are how an earlier version kept the one day it counted
	// (read into Days).
	Day    string  `json:"day,omitempty"`
	DayUSD float64 `json:"day_usd,omitempty"`
	// Misses counts hook runs in a row that waited in vain for their call
	// to reach the transcript; SeenCalls are the latest call ids the
	// transcripts showed, as callKey (see readTranscripts).
	Misses    int      `json:"misses,omitempty"`
	SeenCalls []uint32 `json:"seen_calls,omitempty"`
	// OpenCode is the spend OpenCode's plugin reported (opencode.go).
	OpenCode *openCodeSpend `json:"opencode,omitempty"`
	// Gemini are the responses Gemini CLI's model events showed that its
	// session file does not hold yet, counted in USD (gemini.go).
	Gemini *geminiStreams `json:"gemini,omitempty"`
}

// DaySpend is a session's spend of one local day.
type DaySpend struct {
	Day string  `json:"day"`
	USD float64 `json:"usd"`
	// dirty: changed since the ledger was last told.
	dirty bool
}

// daysMax bounds the days a session remembers: today, and the days either
// side that a clock set wrong, or responses read late, can still touch.
const daysMax = 3

// dayResponse is a response's dollars on their way to the session's day:
// the day's ledger holds the keys of the responses it counted, across
// sessions, so that a response a forked session's file copied from its
// parent is not counted on the day twice (see trackDay).
type dayResponse struct {
	day string
	key uint64 // 0: nothing tells the response apart
	usd float64
	// more: a later record of a response counted before (its usage grew).
	more bool
}

// addDay puts a response's usd on the local day of its time t (now, for a
// response without a time), when t is not before the daily cap's start and
// a daily cap is (or was) set; a read without a day (status's) keeps no days.
func (s *Session) addDay(r transcripts.Response, usd float64, d today) {
	t := r.Time
	if t.IsZero() {
		t = d.now
	}
	if !d.on || d.day == "" || t.Before(d.since) || usd == 0 {
		return
	}
	var key uint64
	if r.MessageID != "" {
		h := fnv.New64a()
		h.Write([]byte(r.MessageID + "\x00" + r.RequestID))
		key = h.Sum64()
	}
	s.dayPending = append(s.dayPending, dayResponse{day: t.Local().Format(time.DateOnly), key: key, usd: usd, more: r.Counted != transcripts.Usage{}})
}

// dayEntry is the session's entry for day, added (and the oldest day
// dropped past daysMax) when new.
func (sp *Spend) dayEntry(day string) *DaySpend {
	for i := range sp.Days {
		if sp.Days[i].Day == day {
			return &sp.Days[i]
		}
	}
	sp.Days = append(sp.Days, DaySpend{Day: day})
	slices.SortFunc(sp.Days, func(a, b DaySpend) int { return strings.Compare(a.Day, b.Day) })
	if n := len(sp.Days) - daysMax; n > 0 {
		if sp.Days[0].Day == day {
			// Older than every day kept: counted nowhere (no cap looks
			// back that far).
			sp.Days = sp.Days[1:]
			return &DaySpend{Day: day}
		}
		sp.Days = slices.Delete(sp.Days, 0, n)
	}
	return sp.dayEntry(day)
}

// Prompt is the spend of the current prompt (Claude Code's prompt_id,
// Codex's turn_id): everything since it was first seen.
type Prompt struct {
	ID        string  `json:"id,omitempty"`
	StartUSD  float64 `json:"start_usd,omitempty"`
	Allowed   float64 `json:"allowed_usd,omitempty"`
	WarnedCap float64 `json:"warned_cap,omitempty"`
	Stopped   bool    `json:"stopped,omitempty"`
}

// USD is what the prompt has spent so far.
func (p Prompt) USD(session float64) float64 { return session - p.StartUSD }

// Pricer prices one response's usage at the rates of its day (at, the
// response's time; zero: today).
type Pricer interface {
	Cost(model string, u transcripts.Usage, at time.Time) (usd float64, estimated bool)
}

// SessionCap is the session's cap: the policy's plus what was allowed.
// Zero means no cap.
func (s *Session) SessionCap(p configs.Policy) float64 {
	if p.SessionCapUSD <= 0 {
		return 0
	}
	return p.SessionCapUSD + s.Spend.Allowed
}

// PromptCap is the current prompt's cap, zero for none.
func (s *Session) PromptCap(p configs.Policy) float64 {
	if p.PromptCapUSD <= 0 {
		return 0
	}
	return p.PromptCapUSD + s.Spend.Prompt.Allowed
}

// notePrompt makes id the current prompt. A new prompt's count starts when
// it is first seen, before the transcript's new bytes (its first responses)
// are read. Prompt keys can interleave (parallel Codex subagents share the
// root session's id, each with its own turn_id): a prompt seen before gets
// its own figures back, start, allowance and warning, instead of starting
// over at each switch.
func (s *Session) notePrompt(id string) {
	sp := &s.Spend
	if id == "" || id == sp.Prompt.ID {
		return
	}
	next := Prompt{ID: id, StartUSD: sp.USD}
	if i := slices.IndexFunc(sp.Prompts, func(p Prompt) bool { return p.ID == id }); i >= 0 {
		next = sp.Prompts[i]
		sp.Prompts = slices.Delete(sp.Prompts, i, i+1)
	}
	if sp.Prompt.ID != "" {
		sp.Prompts = append(sp.Prompts, sp.Prompt)
		if n := len(sp.Prompts) - promptsMax; n > 0 {
			sp.Prompts = slices.Delete(sp.Prompts, 0, n)
		}
	}
	sp.Prompt = next
}

// promptsMax bounds the other prompts a session remembers: more than the
// subagents Codex runs at once.
const promptsMax = 16

// addResponse adds one response record to the spend: its usage less what
// an earlier record of the same response counted (see transcripts). It
// returns the dollars added.
func (s *Session) addResponse(r transcripts.Response, p Pricer) float64 {
	s.Spend.Tokens = s.Spend.Tokens.Add(r.Usage).Sub(r.Counted)
	if r.Model != "" && !slices.Contains(s.Spend.Models, r.Model) && len(s.Spend.Models) < 8 {
		s.Spend.Models = append(s.Spend.Models, r.Model)
	}
	if r.Subscription {
		// The agent's plan billed it in its own units: no dollar rate
		// applies, and none is made up.
		s.Spend.Premium += r.Premium
		return 0
	}
	now, est := p.Cost(r.Model, r.Usage, r.Time)
	before, _ := p.Cost(r.Model, r.Counted, r.Time)
	s.Spend.USD += now - before
	s.Spend.Estimated = s.Spend.Estimated || est || r.Estimated
	return now - before
}

// chooseTranscript picks the file to read: the one the hook names, where
// it exists. A session whose transcript the agent moved (Claude Code on
// worktree enter and exit, /cd) or that goes on in a copy elsewhere (a
// session resumed in another project folder) keeps its totals: the readers
// follow the file to its new place and count only what they did not count
// before. Codex sends a subagent's own rollout with the root session's id,
// and the root's reader finds the subagents itself: a Codex session's
// transcript is its root rollout, the first one named while it exists.
func (s *Session) chooseTranscript(format *transcripts.Format, path string) string {
	cur := s.Spend.Transcript
	if path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if format.Main != nil {
			path = format.Main(path)
		}
	}
	if cur != "" && cur != path {
		if _, err := os.Stat(cur); err == nil {
			if path == "" || format.FirstStays || format.Subagent != nil && format.Subagent(path) {
				return cur
			}
			if _, err := os.Stat(path); err != nil {
				return cur // named before it is written: the current file still counts
			}
		}
	}
	if path != "" {
		s.Spend.Transcript = path
	}
	return path
}

// readTranscripts brings the session up to date with the new bytes of its
// transcripts: spend from responses, the failure run from tool results.
// A transcript that does not exist yet is no error (Claude Code writes it
// asynchronously). more is true when ctx cut the read short.
//
// callID is the tool call the hook is answering. The agents write the
// response that made it before they run the hook, but not always to disk
// in time (a Claude Code subagent's file can lag under load): while the call
// is not in the transcript yet, the read is tried again for a moment, so the
// spend includes the response that made the call. A call an earlier hook
// already read (the other calls of a response that asked for several, whose
// hooks run at once; a second entry or a retry of the same call) counts as
// found: nothing it waits for is still to come. A session whose transcripts
// never show the calls stops waiting after a few misses, until a call shows.
//
// Each response's dollars also go to the session's day when today counts
// them (see today).
func (s *Session) readTranscripts(ctx context.Context, h agent.ID, path, callID string, p Pricer, day today) (more bool, err error) {
	format, ok := transcripts.FormatOf(h)
	if !ok {
		return false, nil
	}
	path = s.chooseTranscript(format, path)
	if path == "" {
		return false, nil
	}
	found := callID != "" && s.Spend.sawCall(callID)
	sink := transcripts.Sink{
		Response: func(r transcripts.Response) {
			s.geminiRecorded(r, day)
			s.addDay(r, s.addResponse(r, p), day)
		},
		// Where the hook calls carry no prompt id (Gemini CLI), a prompt
		// starts at its place in the transcript, among the responses.
		Prompt:     func(pr transcripts.Prompt) { s.notePrompt("prompt:" + pr.ID) },
		ToolResult: s.addResult,
		ToolCall: func(tc transcripts.ToolCall) {
			s.Spend.noteCall(tc.ID)
			found = found || (callID != "" && tc.ID == callID)
		},
	}
	if s.counted != nil {
		sink.Counted = s.counted
	}
	wait := callID != "" && !found && s.Spend.Misses < maxMisses
	read := format.Read
	deadline := time.Now().Add(lagWait)
	for {
		// Claude Code 2.1.328 creates a session's transcript after the hooks
		// of its first calls have started (seen in e2e: the file did not
		// exist yet when the first of 6 parallel hooks began): a missing file
		// is waited for like a call not written yet.
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			if !wait {
				return false, nil
			}
		} else {
			more, err = read(ctx, path, &s.Spend.Pos, sink)
			if err != nil || more || found || !wait {
				break
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.Spend.Misses++
			return false, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(lagPoll):
		}
	}
	if found {
		s.Spend.Misses = 0
	}
	return more, err
}

// How long the hook waits for the call's response to reach the transcript,
// how often it looks, and after how many vain waits in a row a session stops
// waiting (until a call shows in its transcripts again).
const (
	lagWait   = 300 * time.Millisecond
	lagPoll   = 10 * time.Millisecond
	maxMisses = 3
)

// seenCallsMax bounds the remembered call ids: more than the calls of one
// response, or of the responses of parallel subagents whose hooks are
// still to run.
const seenCallsMax = 64

// callKey is a short, stable stand-in for a call id in the state file.
func callKey(id string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()
}

// sawCall reports whether a read already found the call id.
func (sp *Spend) sawCall(id string) bool {
	return slices.Contains(sp.SeenCalls, callKey(id))
}

// noteCall remembers a call id a read found.
func (sp *Spend) noteCall(id string) {
	if id == "" {
		return
	}
	k := callKey(id)
	if slices.Contains(sp.SeenCalls, k) {
		return
	}
	sp.SeenCalls = append(sp.SeenCalls, k)
	if n := len(sp.SeenCalls) - seenCallsMax; n > 0 {
		sp.SeenCalls = slices.Delete(sp.SeenCalls, 0, n)
	}
}

// spendWire checks the session, prompt and daily caps. daily is the spend
// of all sessions today (negative when there is no daily cap).
func spendWire(s *Session, p configs.Policy, daily float64) []Verdict {
	var out []Verdict
	id := s.SessionID
	if v, ok := capCheck(&s.Spend.WarnedCap, &s.Spend.Stopped, s.Spend.USD, s.SessionCap(p), p.WarnAt,
		"this session", "the session cap", allowCommand+id+" --add "+addHint(s.SessionCap(p)), resumeHint(s.Harness, id)); ok {
		out = append(out, v)
	}
	if s.Spend.Prompt.ID != "" {
		pr := &s.Spend.Prompt
		if v, ok := capCheck(&pr.WarnedCap, &pr.Stopped, pr.USD(s.Spend.USD), s.PromptCap(p), p.WarnAt,
			"this prompt", "the prompt cap", allowCommand+id+" --prompt --add "+addHint(s.PromptCap(p)), ""); ok {
			out = append(out, v)
		}
	}
	if p.DailyCapUSD > 0 && daily >= p.DailyCapUSD {
		fact := fmt.Sprintf("all sessions have spent %s today; the daily cap is %s", usd(daily), usd(p.DailyCapUSD))
		out = append(out, Verdict{
			Kind: Stop, Wire: "spend",
			Reason: fmt.Sprintf("runaway: %s. To go on, the person raises daily_cap_usd in %s, in their own terminal.",
				fact, p.ConfigFile()),
			ModelHint: stopHint, Fact: fact,
		})
	}
	return out
}

const stopHint = "Do not retry: runaway denies every call until the person raises the cap. Tell the person what you were doing and stop."

// Resume names the commands that resume a session of the agent: in a
// terminal, and without one (claude -p, codex exec); "" where runaway does
// not know them.
func Resume(h agent.ID, id string) (interactive, script string) {
	if r := agent.Of(h).Resume; r != nil {
		return r(id)
	}
	return "", ""
}

// resumeHint says how the stopped session goes on without a terminal; it
// follows the allow command in the stop message.
func resumeHint(h agent.ID, id string) string {
	if _, script := Resume(h, id); script != "" {
		return ", then resumes it (without a terminal: `" + script + "`)"
	}
	return ""
}

// capCheck warns once when spent crosses warnAt of cap and stops at cap.
// raise is the command that raises the cap; then, what follows it.
func capCheck(warnedCap *float64, stopped *bool, spent, cap, warnAt float64, what, capName, raise, then string) (Verdict, bool) {
	*stopped = false
	if cap <= 0 {
		return Verdict{}, false
	}
	if spent >= cap {
		*stopped = true
		fact := fmt.Sprintf("%s has spent %s; %s is %s", what, usd(spent), capName, usd(cap))
		return Verdict{
			Kind: Stop, Wire: "spend",
			Reason: fmt.Sprintf("runaway: %s. To go on, the person runs `%s` in their own terminal%s.",
				fact, raise, then),
			ModelHint: stopHint, Allow: raise, Fact: fact,
		}, true
	}
	if spent >= warnAt*cap && *warnedCap != cap {
		*warnedCap = cap
		return Verdict{
			Kind: Warn, Wire: "spend",
			Reason: fmt.Sprintf("runaway: %s has spent %s of its %s cap (%.0f%%).", what, usd(spent), usd(cap), 100*spent/cap),
		}, true
	}
	return Verdict{}, false
}

// addHint suggests raising a cap by as much again, in whole dollars.
func addHint(cap float64) string {
	return fmt.Sprintf("%g", max(1, float64(int(cap+0.5))))
}

// usd is how every dollar figure is shown (see pricing.Dollars).
func usd(v float64) string { return pricing.Dollars(v) }

// dailyLedger keeps each session's spend of one local day in one small
// file, so a hook learns the day's total across sessions without reading
// every session's state.
type dailyLedger struct {
	dir string
}

// update records this session's spend on day and returns the day's total
// across sessions. With rs, the responses read since, it first adds to
// spent those the day has not counted in any session (by their key, in
// <day>.keys beside the ledger), and returns the new spent; when the
// ledger cannot be had, every one of them is added (an overestimate
// rather than spend missed).
func (d dailyLedger) update(ctx context.Context, day, key string, spent float64, rs []dayResponse, wait time.Duration) (total, newSpent float64, err error) {
	all := spent
	for _, r := range rs {
		all += r.usd
	}
	if err := os.MkdirAll(d.dir, ownfiles.DirPerm()); err != nil {
		return 0, all, err
	}
	path := filepath.Join(d.dir, day+".json")
	lk := flock.New(path+".lock", flock.SetPermissions(ownfiles.FilePerm()))
	lctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if ok, err := lk.TryLockContext(lctx, 2*time.Millisecond); !ok {
		if err == nil {
			err = ErrLocked
		}
		return 0, all, fmt.Errorf("locking the daily ledger: %w", err)
	}
	defer lk.Unlock()
	var kerr error
	if len(rs) > 0 {
		keys := &countedKeys{path: filepath.Join(d.dir, day+".keys")}
		skipped := map[uint64]bool{}
		for _, r := range rs {
			switch {
			case r.key == 0:
			case r.more:
				if skipped[r.key] {
					continue
				}
			case keys.Has(r.key):
				skipped[r.key] = true
				continue
			default:
				keys.Add(r.key)
			}
			spent += r.usd
		}
		if err := keys.flush(); err != nil {
			// Not kept: another session may count these again, which
			// overestimates the day.
			kerr = fmt.Errorf("saving the day's counted responses: %w", err)
		}
	}
	m := map[string]float64{}
	if data, err := readRegular(path); err == nil {
		_ = json.Unmarshal(data, &m) // a damaged ledger starts the day over
	}
	m[key] = spent
	data, err := json.Marshal(m)
	if err != nil {
		return 0, spent, err
	}
	if err := writeFileAtomic(path, data); err != nil {
		return 0, spent, errors.Join(kerr, err)
	}
	for _, v := range m {
		total += v
	}
	return total, spent, kerr
}

// total is the day's spend across sessions as the ledger has it, 0 when
// there is none yet.
func (d dailyLedger) total(day string) float64 {
	m := map[string]float64{}
	if data, err := readRegular(filepath.Join(d.dir, day+".json")); err == nil {
		_ = json.Unmarshal(data, &m)
	}
	total := 0.0
	for _, v := range m {
		total += v
	}
	return total
}

// today is the local day of the hook's clock and when the daily cap's count
// starts. on: a daily cap is set, or was set (in this hook's policy or in
// another's: an agent started without the cap's variable still counts its
// spend in the day's ledger).
type today struct {
	day   string
	since time.Time
	now   time.Time
	on    bool
}

// sinceFile holds when the daily cap was first seen set.
const sinceFile = "since"

// startDay says which responses count toward the session's days. The daily
// cap counts from when it is set: when the config file was last written
// before the first call that sees the cap, or that call (a cap from the
// environment), remembered in the ledger's folder. A hook that runs without
// the cap leaves it: another agent's count goes on. A session's days start
// over when the cap's start moves.
func (h *Hook) startDay(s *Session, now time.Time, p configs.Policy) today {
	since, on := h.dailySince(now, p)
	d := today{day: now.Local().Format(time.DateOnly), now: now, since: since, on: on}
	sp := &s.Spend
	if sp.Day != "" {
		if len(sp.Days) == 0 && sp.DayUSD > 0 {
			sp.Days = []DaySpend{{Day: sp.Day, USD: sp.DayUSD}}
		}
		sp.Day, sp.DayUSD = "", 0
	}
	if !sp.DaySince.Equal(d.since) {
		sp.Days, sp.DaySince = nil, d.since
	}
	return d
}

// dailySince is when the daily cap was set, and whether it is (or was).
func (h *Hook) dailySince(now time.Time, p configs.Policy) (time.Time, bool) {
	path := filepath.Join(h.StateDir, "daily", sinceFile)
	if data, err := readRegular(path); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, string(data)); err == nil {
			return t, true
		}
	}
	if p.DailyCapUSD <= 0 {
		return time.Time{}, false
	}
	since := now
	if fi, err := os.Stat(h.ConfigPath); err == nil && fi.ModTime().Before(now) {
		since = fi.ModTime()
	}
	since = since.UTC()
	err := os.MkdirAll(filepath.Dir(path), ownfiles.DirPerm())
	if err == nil {
		err = writeFileAtomic(path, []byte(since.Format(time.RFC3339Nano)))
	}
	if err != nil {
		h.errorLog().Log("daily cap", err)
	}
	return since, true
}

// trackDay puts the responses read by this hook on their days, and records
// the session's spend of each day it changed, and of today, in the ledger;
// it returns the day's total across sessions, or -1 without a daily cap.
func (h *Hook) trackDay(ctx context.Context, s *Session, p configs.Policy, d today) (float64, error) {
	if !d.on {
		return -1, nil
	}
	ledger := dailyLedger{dir: filepath.Join(h.StateDir, "daily")}
	key := fileBase(s.Harness, s.SessionID)
	total := -1.0
	var errs []error
	byDay := map[string][]dayResponse{}
	for _, r := range s.dayPending {
		s.Spend.dayEntry(r.day)
		byDay[r.day] = append(byDay[r.day], r)
	}
	s.dayPending = nil
	s.Spend.dayEntry(d.day)
	for i := range s.Spend.Days {
		e := &s.Spend.Days[i]
		rs := byDay[e.Day]
		if len(rs) == 0 && !e.dirty && e.Day != d.day {
			continue
		}
		t, spent, err := ledger.update(ctx, e.Day, key, e.USD, rs, h.lockWait())
		e.USD, e.dirty = spent, err != nil
		if err != nil {
			errs = append(errs, err)
		}
		if e.Day == d.day && t > 0 {
			total = t
		}
	}
	if p.DailyCapUSD <= 0 {
		return -1, errors.Join(errs...)
	}
	if total < 0 {
		// The ledger could not be read: the session's own day is the least
		// the day has spent.
		total = s.Spend.dayEntry(d.day).USD
	}
	return total, errors.Join(errs...)
}
