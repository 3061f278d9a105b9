package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/transcripts"
)

// ReplayDecision is one decision runaway would have made on a recorded
// session.
type ReplayDecision struct {
	Call     int     `json:"call"` // 1-based index of the tool call
	Tool     string  `json:"tool"`
	Summary  string  `json:"summary,omitempty"`
	Wire     string  `json:"wire"`
	Decision string  `json:"decision"` // as the agent would have received it
	SpendUSD float64 `json:"spend_usd"`
	Reason   string  `json:"reason"`
}

// Replay runs a recorded session call by call through the wires with the
// given policy, as the hook would have seen it: at each tool call, the
// responses up to and including the one that made it, and the results of
// the calls before. Where the recording goes on past a stop, the replay
// does as if the person had raised the cap by as much again. The daily and prompt caps are left out (a recording
// carries no day of other sessions, and older transcripts no prompt ids).
// It returns the decisions and the number of tool calls. each, when not
// nil, is called with every response record the read yields, so that a
// caller totals the cost in the same pass.
func Replay(ctx context.Context, h agent.ID, path string, p configs.Policy, pr Pricer, each func(transcripts.Response)) ([]ReplayDecision, int, error) {
	format, ok := transcripts.FormatOf(h)
	if !ok {
		return nil, 0, fmt.Errorf("runaway reads no session file of %s: %s", h.Name(), noTranscriptWhy(h))
	}
	read := format.Read
	p.DailyCapUSD, p.PromptCapUSD = 0, 0
	id := replaySessionID(path)
	if format.SessionID != nil {
		if sid := format.SessionID(path); sid != "" {
			id = sid
		}
	}
	sess := &Session{Version: stateVersion, Harness: h, SessionID: id}
	hook := &Hook{replay: true}
	var out []ReplayDecision
	calls := 0
	var judged map[*transcripts.ToolCall]judgedCall
	decide := func(tc *transcripts.ToolCall) {
		calls++
		j := judged[tc]
		in := j.in
		c := &call{in: in, policy: p, sess: sess, tamper: j.tamper}
		c.Call = j.call
		ans := hook.runWires(c, -1)
		for _, v := range ans.Verdicts {
			out = append(out, ReplayDecision{
				Call: calls, Tool: in.ToolName, Summary: c.Summary, Wire: v.Wire,
				Decision: received(h, v.Kind), SpendUSD: roundMicro(sess.Spend.USD), Reason: v.Reason,
			})
		}
		if sess.Spend.Stopped {
			// The recording went on: as if the person had run the allow
			// the stop message names, so the replay shows the next stop.
			sess.Spend.Allowed += p.SessionCapUSD
		}
	}
	// A Claude Code line holds a response's usage and its tool calls
	// together. Codex writes a call before the usage of the response that
	// made it: its calls wait for that usage (or for their own results).
	var pending []*transcripts.ToolCall
	flush := func() {
		for _, tc := range pending {
			decide(tc)
		}
		pending = pending[:0]
	}
	events, err := readEvents(ctx, read, path, each)
	if err != nil {
		return nil, 0, err
	}
	judged = judgeCalls(hook, h, events)
	for _, e := range events {
		switch {
		case e.resp != nil:
			sess.addResponse(*e.resp, pr)
			flush()
		case e.result != nil:
			flush()
			sess.addResult(*e.result)
		case !judged[e.call].hooked:
			// The agent runs no hook for this tool.
		case dialectOf(h).callBeforeUsage:
			pending = append(pending, e.call)
		default:
			decide(e.call)
		}
	}
	flush()
	return out, calls, nil
}

// judgedCall is what a tool call's hook would make of the call alone,
// before the session's state: its input as the hook gets it, the tamper
// wire's verdict, the loop wire's fingerprint and the summary.
type judgedCall struct {
	in     *Input
	hooked bool // the agent runs its hook for this call
	tamper Verdict
	call   Call
}

// judgeCalls judges every tool call of a recording on all cores: these
// depend on the call alone (the tamper wire reads a shell command fully,
// which is most of a replay's time on a long session), while the wires
// that follow the session's state run in order after.
func judgeCalls(hook *Hook, h agent.ID, events []replayEvent) map[*transcripts.ToolCall]judgedCall {
	var tcs []*transcripts.ToolCall
	for _, e := range events {
		if e.call != nil {
			tcs = append(tcs, e.call)
		}
	}
	out := make([]judgedCall, len(tcs))
	next := make(chan int, len(tcs))
	for i := range tcs {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(tcs), 1)) {
		wg.Go(func() {
			for i := range next {
				in, hooked := hookView(h, *tcs[i])
				out[i] = judgedCall{in: in, hooked: hooked, tamper: hook.tamperWire(in),
					call: Call{Fingerprint: Fingerprint(in.ToolName, in.ToolInput), Tool: in.ToolName, Summary: Summarize(in.ToolName, in.ToolInput)}}
			}
		})
	}
	wg.Wait()
	judged := make(map[*transcripts.ToolCall]judgedCall, len(tcs))
	for i, tc := range tcs {
		judged[tc] = out[i]
	}
	return judged
}

// roundMicro drops float noise below a millionth of a dollar.
func roundMicro(usd float64) float64 { return math.Round(usd*1e6) / 1e6 }

// replayEvent is one record of a recording, in the order the hook would
// have seen it.
type replayEvent struct {
	at     time.Time
	resp   *transcripts.Response
	result *transcripts.ToolResult
	call   *transcripts.ToolCall
}

// readEvents reads a session's files, all at once, and orders their records
// by time: the hook of a main-session call also sees what the subagents had
// written by then. A record without a time takes the time of the record
// before it in its file. each sees every response in the session's file
// order, as a file-by-file read yields them.
func readEvents(ctx context.Context, read func(context.Context, string, *transcripts.Position, transcripts.Sink) (bool, error), path string, each func(transcripts.Response)) ([]replayEvent, error) {
	var files []*[]replayEvent // per file, in the session's file order
	sink := transcripts.Sink{Files: func(string) transcripts.Sink {
		events := new([]replayEvent)
		files = append(files, events)
		var last time.Time
		add := func(t time.Time, e replayEvent) {
			if t.IsZero() {
				t = last
			}
			last = t
			e.at = t
			*events = append(*events, e)
		}
		return transcripts.Sink{
			Response:   func(r transcripts.Response) { add(r.Time, replayEvent{resp: &r}) },
			ToolResult: func(r transcripts.ToolResult) { add(r.Time, replayEvent{result: &r}) },
			ToolCall:   func(c transcripts.ToolCall) { add(c.Time, replayEvent{call: &c}) },
		}
	}}
	var pos transcripts.Position
	if _, err := read(ctx, path, &pos, sink); err != nil {
		return nil, err
	}
	var events []replayEvent
	for _, f := range files {
		events = append(events, *f...)
	}
	if each != nil {
		for _, e := range events {
			if e.resp != nil {
				each(*e.resp)
			}
		}
	}
	if len(files) > 1 {
		sort.SliceStable(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	}
	return events, nil
}

// replaySessionID is the session id a recording's file name carries
// (<id>.jsonl for Claude Code, rollout-<time>-<id>.jsonl for Codex).
func replaySessionID(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".zst"), ".jsonl")
	if strings.HasPrefix(base, "rollout-") && len(base) > 36 {
		return base[len(base)-36:]
	}
	return base
}

// codexShellTools are the names Codex's shell tool has had; Codex runs
// PreToolUse hooks for them (as "Bash"), for apply_patch and for MCP tools,
// and for nothing else (update_plan, write_stdin, view_image, …).
var codexShellTools = map[string]bool{"exec_command": true, "shell": true, "local_shell": true, "container.exec": true, "shell_command": true}

func codexRunsHook(name string) bool {
	return codexShellTools[name] || name == "apply_patch" || strings.HasPrefix(name, "mcp__")
}

// hookView turns a recorded tool call into the input the hook would have
// received: Codex records its shell tool by its model-facing name
// (exec_command, shell) and arguments, and sends hooks "Bash" with a
// command string.
func hookView(h agent.ID, tc transcripts.ToolCall) (*Input, bool) {
	in := &Input{Harness: h, SessionID: "replay", ToolName: tc.Name, ToolInput: tc.Input, ToolUseID: tc.ID}
	if r := dialectOf(h).replay; r != nil {
		return in, r(in, tc)
	}
	return in, true
}

// codexReplay: Codex records its shell tool by its model-facing name
// (exec_command, shell) and arguments, and sends hooks "Bash" with a
// command string; it runs hooks for its shell tool, apply_patch and MCP
// tools only.
func codexReplay(in *Input, tc transcripts.ToolCall) bool {
	switch {
	case codexShellTools[tc.Name]:
		var args struct {
			Cmd     json.RawMessage `json:"cmd"`
			Command json.RawMessage `json:"command"`
		}
		_ = json.Unmarshal(tc.Input, &args)
		cmd := args.Cmd
		if len(cmd) == 0 {
			cmd = args.Command
		}
		var s string
		if json.Unmarshal(cmd, &s) != nil {
			var argv []string
			if json.Unmarshal(cmd, &argv) == nil {
				s = joinArgv(argv)
			}
		}
		in.ToolName = "Bash"
		in.ToolInput, _ = json.Marshal(map[string]string{"command": s})
	case tc.Name == "apply_patch":
		// The hook gets the raw patch as tool_input.command; the rollout
		// has it as the call's input string or its "input" argument.
		var patch string
		if json.Unmarshal(tc.Input, &patch) != nil {
			var args struct {
				Input string `json:"input"`
			}
			_ = json.Unmarshal(tc.Input, &args)
			patch = args.Input
		}
		in.ToolInput, _ = json.Marshal(map[string]string{"command": patch})
	}
	return codexRunsHook(tc.Name)
}

// joinArgv shows an argv as the command it runs: Codex's older shell tool
// sent ["bash", "-lc", "<command>"].
func joinArgv(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	s := ""
	for i, a := range argv {
		if i > 0 {
			s += " "
		}
		s += a
	}
	return s
}

func noTranscriptWhy(h agent.ID) string {
	why, _ := transcripts.NoTranscript(h)
	return why
}
