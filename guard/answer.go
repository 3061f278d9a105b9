package guard

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// Kind is what a wire wants done with a call, weakest first.
type Kind int

const (
	None Kind = iota
	Warn      // tell the person, let the call run
	Ask       // ask the person before the call runs
	Deny      // refuse the call; the model reads the reason
	Stop      // refuse the call and end the turn
)

func (k Kind) String() string {
	switch k {
	case Warn:
		return "warn"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	case Stop:
		return "stop"
	}
	return "none"
}

// Verdict is one wire's result for one call.
type Verdict struct {
	Kind   Kind
	Wire   string // loop, failure, spend, tamper
	Reason string // for people; starts with "runaway: "
	// ModelHint is added to the reason where the model, not the person,
	// reads it (Codex, which has no "ask"): what the model should do.
	ModelHint string
	// Allow is the command that raises the cap behind a spend stop.
	Allow string
	// Fact is what a spend stop, or an escalated loop or failure stop,
	// found ("this session has spent $0.56; the session cap is $0.50"), for
	// the messages that tell the person.
	Fact string
}

// Answer is the combined result of all wires for one call: the strongest
// kind wins (stop > deny > ask > warn), and the messages are combined.
type Answer struct {
	Verdicts []Verdict
	// event is the agent's event when it is not PreToolUse: Claude Code
	// reads hookSpecificOutput under the event it sent.
	event string
}

// on returns the answer to in's event.
func (a Answer) on(in *Input) Answer {
	if in != nil && (in.isSkillShell() || in.isPermissionStop()) {
		a.event = in.HookEventName
	}
	return a
}

// hookEvent is the event the answer's hookSpecificOutput names.
func (a Answer) hookEvent() string {
	if a.event != "" {
		return a.event
	}
	return "PreToolUse"
}

// Kind is the strongest kind among the verdicts.
func (a Answer) Kind() Kind {
	k := None
	for _, v := range a.Verdicts {
		k = max(k, v.Kind)
	}
	return k
}

// reasons joins the reasons of the verdicts of at least kind min (and at
// most max), in the order the wires ran.
func (a Answer) reasons(lo, hi Kind, withHints bool) string {
	var parts []string
	for _, v := range a.Verdicts {
		if v.Kind < lo || v.Kind > hi {
			continue
		}
		r := v.Reason
		if withHints && v.ModelHint != "" {
			if !strings.HasSuffix(r, ".") {
				r += "."
			}
			r += " " + v.ModelHint
		}
		parts = append(parts, r)
	}
	return strings.Join(parts, "\n")
}

// preToolUse is the hookSpecificOutput both Claude Code and Codex read.
type preToolUse struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// promptOutput is the answer to UserPromptSubmit that Claude Code and
// Codex (0.169) both read: decision "block" with a reason keeps the prompt
// from the model, and the agent shows the reason to the person.
type promptOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// Encode renders the answer in the agent's own format (its dialect). An
// answer with nothing to say is no output at all (Cursor: `{}`), which
// every agent reads as "no decision".
func (a Answer) Encode(h agent.ID) []byte { return dialectOf(h).encode(a) }

// EncodePrompt renders the answer to a user's prompt: a stop blocks it, a
// warning is shown; nothing else applies before the model is asked.
func (a Answer) EncodePrompt(h agent.ID) []byte {
	if d := dialectOf(h); d.encodePrompt != nil {
		return d.encodePrompt(a)
	}
	return a.encodePrompt()
}

// encodePrompt is the answer to UserPromptSubmit that Claude Code and
// Codex read.
func (a Answer) encodePrompt() []byte {
	out := promptOutput{SystemMessage: a.reasons(Warn, Warn, false)}
	if a.Kind() >= Deny {
		out.Decision, out.Reason = "block", a.reasons(Deny, Stop, false)
	}
	if out == (promptOutput{}) {
		return nil
	}
	return marshal(out)
}

// received names the decision as the agent gets it, for what people read
// (status, replay, the decision log): an agent that cannot ask gets a deny.
func received(h agent.ID, k Kind) string {
	if k == Ask && !dialectOf(h).canAsk {
		return Deny.String()
	}
	return k.String()
}

func decision(event, d, reason string) *preToolUse {
	return &preToolUse{HookEventName: event, PermissionDecision: d, PermissionDecisionReason: reason}
}

func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // reasons quote commands: keep `<`, `>`, `&` readable
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return buf.Bytes()
}
