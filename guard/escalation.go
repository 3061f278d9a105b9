package guard

import (
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// Escalation is where the session stands on going on after a refused ask.
// An ask stops only the one call, and with nobody to answer it (claude -p,
// a script) the agent is refused and tries again. So when a loop or failure
// wire triggers again within the same prompt after its ask was refused (in
// Codex, which cannot ask, after its deny), runaway ends the turn: Claude
// Code's stop; in Codex, whose hook answers cannot end a turn, runaway
// interrupts the codex process as at a spend stop (stop_codex.go), and
// denies every call until the next prompt where it cannot (end_agent off,
// an app-server).
type Escalation struct {
	// Prompt is the prompt (Claude Code's prompt_id, Codex's turn_id) the
	// asks below were made in; a new prompt starts everything over.
	Prompt string  `json:"prompt,omitempty"`
	Asks   []Asked `json:"asks,omitempty"`
	// Halt is the reason the turn was ended, and HaltWire its wire: every
	// later call of the same prompt is stopped with it.
	Halt     string `json:"halt,omitempty"`
	HaltWire string `json:"halt_wire,omitempty"`
	// HaltFact is what the wire found, for the lines runaway prints where
	// it ends the agent itself (Codex).
	HaltFact string `json:"halt_fact,omitempty"`
	// Others are the other prompts seen last, as the fields above: Codex's
	// parallel subagents interleave their turn_ids with the root's, and each
	// keeps its own asks and halt (at most promptsMax, oldest dropped).
	Others []Escalation `json:"others,omitempty"`
}

// Asked is a wire's latest ask in the prompt.
type Asked struct {
	Wire      string `json:"wire"`
	ToolUseID string `json:"id,omitempty"`
	// Refused: the asked call did not run. Settled: that is known (Claude
	// Code tells it with the call's result; a Codex deny is refused when
	// made).
	Refused bool `json:"refused,omitempty"`
	Settled bool `json:"settled,omitempty"`
}

// enterPrompt switches to the prompt's own asks and halt when the call
// belongs to another prompt than the one before: a new prompt starts over,
// one seen lately (an interleaved subagent's) goes on where it was.
func (e *Escalation) enterPrompt(key string) {
	if key == e.Prompt {
		return
	}
	others := e.Others
	cur := *e
	cur.Others = nil
	next := Escalation{Prompt: key}
	if i := slices.IndexFunc(others, func(o Escalation) bool { return o.Prompt == key }); i >= 0 {
		next = others[i]
		others = slices.Delete(others, i, i+1)
	}
	if cur.Prompt != "" || len(cur.Asks) > 0 {
		others = append(others, cur)
		if n := len(others) - promptsMax; n > 0 {
			others = slices.Delete(others, 0, n)
		}
	}
	next.Others = others
	*e = next
}

// settle learns from a tool result whether an asked call was refused. An
// approved ask is forgotten: the wire's run starts over as if it had not
// asked.
func (e *Escalation) settle(r transcripts.ToolResult) {
	for j := range e.Others {
		e.Others[j].settle(r)
	}
	i := slices.IndexFunc(e.Asks, func(a Asked) bool { return !a.Settled && a.ToolUseID != "" && a.ToolUseID == r.ToolUseID })
	if i < 0 {
		return
	}
	if !r.Refused {
		e.Asks = slices.Delete(e.Asks, i, i+1)
		return
	}
	e.Asks[i].Refused, e.Asks[i].Settled = true, true
}

// halted is the stop for a call of a prompt whose turn runaway ended.
func (e *Escalation) halted(promptKey string) Verdict {
	if e.Halt == "" || e.Prompt != promptKey {
		return Verdict{}
	}
	return Verdict{Kind: Stop, Wire: e.HaltWire, Reason: e.Halt, ModelHint: haltHint, Fact: e.HaltFact}
}

const haltHint = "Do not retry: runaway refuses every call until the person sends a new prompt. Tell the person what you tried and why it did not work, and stop."

// escalate turns an ask of a loop or failure wire into a stop when the
// same wire's last ask in this prompt was refused; otherwise it records the
// ask. settled says the ask is refused as it is made (Codex, Gemini CLI and
// OpenCode, which deny instead; a replay, where nobody answers).
func (e *Escalation) escalate(v Verdict, h agent.ID, toolUseID string, settled bool) Verdict {
	i := slices.IndexFunc(e.Asks, func(a Asked) bool { return a.Wire == v.Wire })
	if i >= 0 && e.Asks[i].Refused {
		e.Asks = slices.Delete(e.Asks, i, i+1)
		what := dialectOf(h).escalated
		stop := Verdict{Kind: Stop, Wire: v.Wire, Reason: strings.TrimSuffix(v.Reason, ".") + "; " + what, ModelHint: haltHint,
			Fact: strings.TrimSuffix(strings.TrimPrefix(v.Reason, "runaway: "), ".")}
		if e.Prompt != "" {
			// Without a prompt key the end of the turn cannot be told:
			// only this call is stopped.
			e.Halt, e.HaltWire, e.HaltFact = stop.Reason, stop.Wire, stop.Fact
		}
		return stop
	}
	a := Asked{Wire: v.Wire, ToolUseID: toolUseID, Refused: settled, Settled: settled}
	if i >= 0 {
		e.Asks[i] = a
	} else {
		e.Asks = append(e.Asks, a)
	}
	return v
}
