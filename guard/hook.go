// Package guard turns one tool call into one answer: it reads the call the
// agent sends on stdin, detects the agent, keeps the session's state under a
// lock, runs the wires, and encodes the strongest result in the agent's own
// answer format. It never breaks the agent: every error, panic, timeout or
// bad input ends in "no decision" (empty stdout) and a line in the error log.
package guard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard/tamper"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/transcripts"
)

// DefaultDeadline bounds one hook run, well under the 10 s timeout of
// runaway's settings entry: past it the hook answers "no decision".
const DefaultDeadline = 3 * time.Second

// DeadlineEnv overrides the deadline (a Go duration such as "500ms");
// LockWaitEnv how long a hook waits for the session's lock.
const (
	DeadlineEnv = "RUNAWAY_HOOK_DEADLINE"
	LockWaitEnv = "RUNAWAY_HOOK_LOCK_WAIT"
)

// The bounds of those variables. An agent can put a variable in the hook's
// environment (an env file its agent loads, a shell start-up file), so no
// value may weaken the tamper deny: a deadline too short to read the call
// would answer nothing. The upper bounds are for loaded test machines; the
// agents' own timeout (10 s in runaway's entries) ends a hook before them.
const (
	minEnvDeadline = time.Second
	maxEnvDeadline = 2 * time.Minute
	minEnvLockWait = 100 * time.Millisecond
	maxEnvLockWait = time.Minute
)

// Hook runs one hook call. The zero value is not usable: fill in the paths.
type Hook struct {
	StateDir   string              // runaway's state folder
	ConfigPath string              // runaway's config file
	BinPath    string              // runaway's installed program (the tamper wire guards it)
	Getenv     func(string) string // the environment (overrides)
	Now        func() time.Time    // the clock
	Stderr     io.Writer           // where errors go when the error log cannot be written
	Deadline   time.Duration       // 0: DefaultDeadline, or $RUNAWAY_HOOK_DEADLINE
	LockWait   time.Duration       // 0: the store's default, or $RUNAWAY_HOOK_LOCK_WAIT
	// Prices builds the pricer for a policy; nil: NewPricer.
	Prices func(configs.Policy) (Pricer, []error)
	// System: a system install guards the session. The deadline and the
	// lock wait are then not read from the environment (the agent's).
	System    bool
	extraWire func(*Session) Verdict // tests only: a wire that misbehaves
	// replay: nobody answers an ask, as in an unwatched run.
	replay  bool
	running sync.WaitGroup // runs still working after Run returned (tests wait)
}

// call is one tool call on its way through the wires.
type call struct {
	tamper Verdict // the tamper wire's, decided before the state was opened
	trip   Verdict // the tripwire's
	in     *Input
	policy configs.Policy
	sess   *Session
	now    time.Time
	Call
}

// Run reads one call from stdin and writes the answer to stdout. It never
// fails and never panics; what went wrong goes to the error log. A call
// the tamper wire denies is denied whatever fails after (a full disk, a
// panic, the deadline), and one it could not judge by the deadline is
// denied when it names anything protected.
func (h *Hook) Run(stdin io.Reader, stdout io.Writer, hint string) {
	errs := h.errorLog()
	ctx, cancel := context.WithTimeout(context.Background(), h.deadline())
	defer cancel()

	var fc failClosed
	done := make(chan []byte, 1)
	h.running.Add(1)
	go func() {
		defer h.running.Done()
		defer func() {
			if r := recover(); r != nil {
				errs.Log("hook", fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
				done <- fc.deny()
			}
		}()
		out, err := h.answer(ctx, stdin, agent.ID(hint), &fc)
		if err != nil {
			errs.Log("hook "+hint, err)
			out = fc.deny()
		}
		done <- out
	}()

	var out []byte
	select {
	case out = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil {
		// An answer that comes at the deadline is dropped too, so that the
		// outcome does not depend on which of the two select picked; a
		// tamper deny is not.
		out = fc.atDeadline(h)
		if out == nil {
			errs.Log("hook "+hint, fmt.Errorf("no answer within the hook's deadline; answered no decision"))
		} else {
			errs.Log("hook "+hint, fmt.Errorf("no answer within the hook's deadline; the tamper wire's deny holds"))
		}
	}
	if len(out) > 0 {
		_, _ = stdout.Write(out)
	}
}

// failClosed is what a run keeps for the tamper wire's sake: the call,
// once read, and the wire's deny, once decided.
type failClosed struct {
	mu     sync.Mutex
	in     *Input
	denied []byte // the tamper deny, in the agent's format
	judged bool
}

func (f *failClosed) read(in *Input) {
	f.mu.Lock()
	f.in = in
	f.mu.Unlock()
}

func (f *failClosed) decided(v Verdict, harness agent.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.judged = true
	if v.Kind == Deny {
		f.denied = Answer{Verdicts: []Verdict{v}}.Encode(harness)
	}
}

func (f *failClosed) deny() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.denied
}

// atDeadline: the tamper deny if there is one; a call read but not yet
// judged is judged by its text alone.
func (f *failClosed) atDeadline(h *Hook) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.denied != nil || f.judged || f.in == nil || !f.in.isToolCall() {
		return f.denied
	}
	r := tamper.OverBudget(h.guarded(), tamper.Call{Tool: f.in.ToolName, Input: f.in.ToolInput, Cwd: f.in.Cwd})
	if r.Kind != tamper.Deny {
		return nil
	}
	return Answer{Verdicts: []Verdict{{Kind: Deny, Wire: "tamper", Reason: r.Reason}}}.on(f.in).Encode(f.in.Harness)
}

func (h *Hook) errorLog() *ownfiles.ErrorLog {
	return &ownfiles.ErrorLog{Path: filepath.Join(h.StateDir, ownfiles.ErrorLogName), Fallback: h.Stderr, Now: h.now}
}

func (h *Hook) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *Hook) getenv(k string) string {
	if h.Getenv != nil {
		return h.Getenv(k)
	}
	return os.Getenv(k)
}

func (h *Hook) deadline() time.Duration {
	if h.Deadline > 0 {
		return h.Deadline
	}
	return h.duration(DeadlineEnv, DefaultDeadline, minEnvDeadline, maxEnvDeadline)
}

// duration reads a positive duration from the environment variable env,
// held within [lo, hi].
func (h *Hook) duration(env string, def, lo, hi time.Duration) time.Duration {
	if h.System {
		// The agent's environment must not stretch the deadline or the
		// lock wait of a system install.
		return def
	}
	s := h.getenv(env)
	if s == "" {
		return def
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		h.errorLog().Log("hook", fmt.Errorf("%s=%q is not a positive duration; using %s", env, s, def))
		return def
	}
	if b := min(max(d, lo), hi); b != d {
		h.errorLog().Log("hook", fmt.Errorf("%s=%s is outside %s…%s; using %s", env, s, lo, hi, b))
		return b
	}
	return d
}

// answer is the hook's work: returns the bytes to print, or an error for
// the log (and no decision).
func (h *Hook) answer(ctx context.Context, stdin io.Reader, hint agent.ID, fc *failClosed) ([]byte, error) {
	if hint != "" && (!knownDialect(hint) || dialectOf(hint).stayOut) {
		h.errorLog().Log("hook", fmt.Errorf("unknown harness %q on the command line; telling it from the input", hint))
		hint = ""
	}
	in, err := ReadInput(stdin, hint)
	if err != nil {
		return nil, err
	}
	d := dialectOf(in.Harness)
	if d.stayOut {
		return d.encode(Answer{}), nil
	}
	if in.TranscriptPath == "" && d.transcript != nil {
		in.TranscriptPath = d.transcript(in, h.getenv)
	}
	// Before a model request or a prompt, only the spend wire answers.
	model := in.isModelRequest() || in.isPromptSubmit()
	if !in.isToolCall() && !model {
		return nil, nil
	}
	if in.isModelChunk() && (in.LLMResponse == nil || in.LLMResponse.Usage == nil) {
		// A chunk without usage changes nothing: no state is opened.
		return nil, nil
	}

	// The tamper wire needs no state: it runs first, so that an agent that
	// locks or breaks runaway's state cannot get past it that way, and its
	// deny holds whatever fails after (see Run).
	var tamper Verdict
	if !model {
		fc.read(in)
		tamper = h.tamperWire(in)
		fc.decided(tamper, in.Harness)
	}

	policy, problems := configs.LoadPolicy(h.ConfigPath, h.getenv)
	for _, p := range problems {
		h.errorLog().Log("config", p)
	}

	store := &Store{Dir: h.StateDir, LockWait: h.lockWait()}
	locked, err := store.Open(ctx, in.Harness, in.SessionID)
	if errors.Is(err, ErrNotKept) {
		// Answered from the call and the transcripts alone.
		h.errorLog().Log("hook "+string(in.Harness), err)
		err = nil
	}
	if err != nil {
		if tamper.Kind != None {
			h.errorLog().Log("hook "+string(in.Harness), err)
			return Answer{Verdicts: []Verdict{tamper}}.on(in).Encode(in.Harness), nil
		}
		if v, ok := h.stopWhileLocked(err, store, in.Harness, in.SessionID); ok {
			h.errorLog().Log("hook "+string(in.Harness), err)
			return Answer{Verdicts: []Verdict{v}}.Encode(in.Harness), nil
		}
		return nil, err
	}
	defer locked.Close()

	c := &call{in: in, policy: policy, sess: locked.Session, now: h.now(), tamper: tamper, trip: h.tripwire()}
	if h.System && c.in.OpenCode == nil {
		c.sess.holdTranscript(in.Harness, in.TranscriptPath)
	}
	daily := h.readSpend(ctx, c)
	var ans Answer
	if model {
		c.Call.Tool = in.ToolName
		ans = h.beforeModel(c, daily)
		if in.isModelChunk() && ans.Kind() == Stop {
			c.sess.geminiStopped()
		}
	} else {
		c.Call = Call{Fingerprint: Fingerprint(in.ToolName, in.ToolInput), Tool: in.ToolName, Summary: Summarize(in.ToolName, in.ToolInput)}
		ans = h.runWires(c, daily)
		if d.stopsLater != nil && d.stopsLater(in.ToolName) {
			ans = c.sess.deferStop(ans, c.now)
		}
	}

	if err := ctx.Err(); err != nil {
		// Too late: the answer would not be printed; keep state as it was.
		return nil, err
	}
	// The answer stands whether or not it can be recorded: a decision the
	// wires made (a stop due, a loop found) is not dropped for a full disk.
	// A stop the answer cannot carry (Codex) is carried out by runaway,
	// after everything is saved: the agent may kill the hook within
	// milliseconds of it.
	end := h.planEnd(c, ans)
	if end != nil {
		c.sess.Ended = end.record(c.now)
	}
	if err := h.record(c, ans); err != nil {
		h.errorLog().Log("hook "+string(in.Harness), err)
	}
	note := notification(c, ans, end)
	if err := locked.Save(); err != nil && !errors.Is(err, ErrNotKept) {
		h.errorLog().Log("hook "+string(in.Harness), fmt.Errorf("%w (the answer was given; the next call counts again from what was last written): %w", ErrNotKept, err))
	}
	h.notify(c.policy, note)
	if end != nil {
		end.carryOut(ctx, func(err error) { h.errorLog().Log("hook "+string(in.Harness), err) })
	}
	switch {
	case in.isPromptSubmit():
		return ans.EncodePrompt(in.Harness), nil
	case in.isBatchEnd():
		return ans.encodeBatchEnd(), nil
	case in.isModelChunk():
		return ans.encodeGeminiChunk(), nil
	}
	return ans.on(in).Encode(in.Harness), nil
}

// readSpend brings the session's spend and failure run up to date with its
// transcripts' new bytes, within a share of the deadline: a huge first read
// goes on at the next call. It returns the day's spend across sessions, or
// -1 without a daily cap. Errors are logged; the wires work with what was read.
func (h *Hook) readSpend(ctx context.Context, c *call) float64 {
	s := c.sess
	s.notePrompt(c.in.promptKey())
	s.Escalation.enterPrompt(c.in.promptKey())
	day := h.startDay(s, c.now, c.policy)
	pr := h.pricer(c.policy)
	if r := c.in.OpenCode; r != nil {
		// OpenCode keeps no transcript: its plugin reports the session's
		// cost, which grew now.
		before := s.Spend.USD
		s.applyOpenCode(r, pr)
		s.addDay(transcripts.Response{Time: c.now}, s.Spend.USD-before, day)
	} else {
		rctx, cancel := context.WithTimeout(ctx, h.readBudget(ctx))
		defer cancel()
		if _, err := s.readTranscripts(rctx, c.in.Harness, c.in.TranscriptPath, c.in.ToolUseID, pr, day); err != nil {
			h.errorLog().Log("transcript", err)
		}
	}
	// Gemini CLI's model events: the response on its way (gemini.go).
	switch {
	case c.in.isModelChunk():
		s.geminiChunkSeen(c.in, pr, c.now, day)
	case c.in.Harness == agent.Gemini && c.in.HookEventName == geminiBeforeModel:
		s.geminiRequestBegins()
	}
	daily, err := h.trackDay(ctx, s, c.policy, day)
	if err != nil {
		h.errorLog().Log("daily cap", err)
	}
	return daily
}

// readBudget leaves a third of what remains of the deadline for the rest
// of the hook.
func (h *Hook) readBudget(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return DefaultDeadline
	}
	return time.Until(dl) * 2 / 3
}

func (h *Hook) pricer(p configs.Policy) Pricer {
	build := h.Prices
	if build == nil {
		build = NewPricer
	}
	pr, errs := build(p)
	for _, err := range errs {
		h.errorLog().Log("config", err)
	}
	return pr
}

func (h *Hook) lockWait() time.Duration {
	if h.LockWait > 0 {
		return h.LockWait
	}
	return h.duration(LockWaitEnv, defaultLockWait, minEnvLockWait, maxEnvLockWait)
}

// tamperWire asks the tamper wire about the call (see package tamper).
func (h *Hook) tamperWire(in *Input) Verdict {
	r := tamper.Check(h.guarded(), tamper.Call{Tool: in.ToolName, Input: in.ToolInput, Cwd: in.Cwd})
	if r.Err != nil {
		h.errorLog().Log("tamper", r.Err)
	}
	switch r.Kind {
	case tamper.Deny:
		return Verdict{Kind: Deny, Wire: "tamper", Reason: r.Reason}
	case tamper.Ask:
		return Verdict{Kind: Ask, Wire: "tamper", Reason: r.Reason,
			ModelHint: "Stop and ask the person whether runaway's settings may change this way."}
	}
	return Verdict{}
}

// guarded is what the tamper wire guards, and its share of the deadline.
func (h *Hook) guarded() tamper.Guarded {
	return tamper.Guarded{
		ConfigDir: filepath.Dir(h.ConfigPath),
		StateDir:  h.StateDir,
		BinPath:   h.BinPath,
		Getenv:    h.getenv,
		Budget:    min(tamper.DefaultBudget, h.deadline()/3),
	}
}

// runWires updates the session with the call and runs every wire on it.
func (h *Hook) runWires(c *call, daily float64) Answer {
	s := c.sess
	if s.Started.IsZero() {
		s.Started = c.now
	}
	s.Updated = c.now
	s.Calls++
	if c.in.Cwd != "" {
		s.Cwd = c.in.Cwd
	}
	var ans Answer
	add := func(v Verdict) {
		if v.Kind != None {
			ans.Verdicts = append(ans.Verdicts, v)
		}
	}
	halt := s.Escalation.halted(c.in.promptKey())
	add(halt)
	// An ask of the loop or failure wire becomes a stop when the same
	// wire's ask was refused before in this prompt (see Escalation).
	asks := func(v Verdict) Verdict {
		if v.Kind != Ask || !c.policy.Escalate || halt.Kind != None {
			return v
		}
		// Where the agent cannot ask, its deny is refused as it is made.
		cannotAsk := received(c.in.Harness, Ask) != Ask.String()
		return s.Escalation.escalate(v, c.in.Harness, c.in.ToolUseID, cannotAsk || h.replay)
	}
	add(asks(loopWire(s, c.Call, c.policy.RepeatRun)))
	add(asks(failureWire(s, c.policy.FailureRun)))
	for _, v := range spendWire(s, c.policy, daily) {
		add(v)
	}
	add(c.tamper)
	add(c.trip)
	add(s.tamperedVerdict())
	if h.extraWire != nil {
		add(h.extraWire(s))
	}
	if ans.Kind() >= Ask {
		// Its result comes back failed; the failure wire must not count it.
		s.noteOurs(c.in.ToolUseID)
	}
	return ans
}

// beforeModel answers a call that comes before a model request or a
// user's prompt reaches the model: only the spend wire runs, and no tool
// call is counted.
func (h *Hook) beforeModel(c *call, daily float64) Answer {
	s := c.sess
	if s.Started.IsZero() {
		s.Started = c.now
	}
	s.Updated = c.now
	if c.in.Cwd != "" {
		s.Cwd = c.in.Cwd
	}
	var ans Answer
	// A prompt whose turn runaway ended (see Escalation) ends here too,
	// before the model is asked again.
	if v := s.Escalation.halted(c.in.promptKey()); v.Kind != None {
		ans.Verdicts = append(ans.Verdicts, v)
	}
	ans.Verdicts = append(ans.Verdicts, spendWire(s, c.policy, daily)...)
	if c.in.isPermissionStop() {
		ans.Verdicts = s.takeDeferred(ans.Verdicts, c.now)
	}
	if v := s.tamperedVerdict(); v.Kind != None {
		ans.Verdicts = append(ans.Verdicts, v)
	}
	if c.trip.Kind != None {
		ans.Verdicts = append(ans.Verdicts, c.trip)
	}
	return ans
}

// record keeps what the answer decided in the session and the decision log.
func (h *Hook) record(c *call, ans Answer) error {
	var last *Decision
	lastKind := None
	for _, v := range ans.Verdicts {
		// The decision as the agent received it (Codex has no ask).
		d := Decision{
			Time: c.now.UTC(), Harness: c.in.Harness, Session: c.in.SessionID,
			Wire: v.Wire, Decision: received(c.in.Harness, v.Kind), Tool: c.Tool, Summary: v.Reason,
		}
		if err := ownfiles.AppendDecision(filepath.Join(h.StateDir, ownfiles.DecisionLogName), d); err != nil {
			return fmt.Errorf("writing decision log: %w", err)
		}
		if last == nil || v.Kind >= lastKind {
			dd := d
			last, lastKind = &dd, v.Kind
		}
	}
	if last != nil {
		c.sess.Last = last
	}
	return nil
}
