package guard

import (
	"context"
	"encoding/json"

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
// the calls before. The daily and prompt caps are left out (a recording
// carries no day of other sessions, and older transcripts no prompt ids).
// It returns the decisions and the number of tool calls.
func Replay(ctx context.Context, agent transcripts.Agent, path string, p configs.Policy, pr Pricer) ([]ReplayDecision, int, error) {
	h := Claude
	read := transcripts.ReadClaude
	if agent == transcripts.Codex {
		h, read = Codex, transcripts.ReadCodex
	}
	p.DailyCapUSD, p.PromptCapUSD = 0, 0
	sess := &Session{Version: stateVersion, Harness: h, SessionID: "replay"}
	hook := &Hook{}
	var out []ReplayDecision
	calls := 0
	decide := func(tc transcripts.ToolCall) {
		calls++
		in := hookView(h, tc)
		c := &call{in: in, policy: p, sess: sess}
		c.Call = Call{Fingerprint: Fingerprint(in.ToolName, in.ToolInput), Tool: in.ToolName, Summary: Summarize(in.ToolName, in.ToolInput)}
		ans := hook.runWires(c, -1)
		for _, v := range ans.Verdicts {
			out = append(out, ReplayDecision{
				Call: calls, Tool: in.ToolName, Summary: c.Summary, Wire: v.Wire,
				Decision: received(h, v.Kind), SpendUSD: sess.Spend.USD, Reason: v.Reason,
			})
		}
	}
	// A Claude Code line holds a response's usage and its tool calls
	// together. Codex writes a call before the usage of the response that
	// made it: its calls wait for that usage (or for their own results).
	var pending []transcripts.ToolCall
	flush := func() {
		for _, tc := range pending {
			decide(tc)
		}
		pending = pending[:0]
	}
	sink := transcripts.Sink{
		Response: func(r transcripts.Response) {
			sess.addResponse(r, pr)
			flush()
		},
		ToolResult: func(r transcripts.ToolResult) {
			flush()
			sess.addResult(r)
		},
		ToolCall: func(tc transcripts.ToolCall) {
			if h == Codex {
				pending = append(pending, tc)
				return
			}
			decide(tc)
		},
	}
	var pos transcripts.Position
	if _, err := read(ctx, path, &pos, sink); err != nil {
		return nil, calls, err
	}
	flush()
	return out, calls, nil
}

// received is the decision as the agent gets it: Codex has no ask.
func received(h Harness, k Kind) string {
	if h == Codex && k == Ask {
		return Deny.String()
	}
	return k.String()
}

// hookView turns a recorded tool call into the input the hook would have
// received: Codex records its shell tool by its model-facing name
// (exec_command, shell) and arguments, and sends hooks "Bash" with a
// command string.
func hookView(h Harness, tc transcripts.ToolCall) *Input {
	in := &Input{Harness: h, SessionID: "replay", ToolName: tc.Name, ToolInput: tc.Input, ToolUseID: tc.ID}
	if h != Codex {
		return in
	}
	switch tc.Name {
	case "exec_command", "shell", "local_shell", "container.exec", "shell_command":
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
	case "apply_patch":
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
	return in
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
