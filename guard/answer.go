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
	// Fact is what a spend stop found ("this session has spent $0.56; the
	// session cap is $0.50"), for the messages that tell the person.
	Fact string
}

// Answer is the combined result of all wires for one call: the strongest
// kind wins (stop > deny > ask > warn), and the messages are combined.
type Answer struct {
	Verdicts []Verdict
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

// claudeOutput is Claude Code's hook answer.
type claudeOutput struct {
	Continue           *bool       `json:"continue,omitempty"`
	StopReason         string      `json:"stopReason,omitempty"`
	SystemMessage      string      `json:"systemMessage,omitempty"`
	HookSpecificOutput *preToolUse `json:"hookSpecificOutput,omitempty"`
}

// codexOutput holds only the fields Codex accepts: it marks a hook that
// sends anything else (ask, continue, stopReason, …) as failed and runs the
// tool anyway.
type codexOutput struct {
	SystemMessage      string      `json:"systemMessage,omitempty"`
	HookSpecificOutput *preToolUse `json:"hookSpecificOutput,omitempty"`
}

// openCodeOutput is what runaway's OpenCode plugin reads: Deny refuses
// the call (the plugin throws it, and OpenCode hands it to the model as the
// tool's error; before a model request it ends the session), Stop says the
// cause lasts until the person acts, Message is shown to the person.
type openCodeOutput struct {
	Deny    string `json:"deny,omitempty"`
	Stop    bool   `json:"stop,omitempty"`
	Message string `json:"message,omitempty"`
}

// geminiOutput is Gemini CLI's BeforeTool answer. It has no "ask" that
// works headless (the run waits for a confirmation forever), so asks are
// denials that tell the model to ask the person, as for Codex.
type geminiOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	Continue      *bool  `json:"continue,omitempty"`
	StopReason    string `json:"stopReason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// Encode renders the answer in the harness's own format. An answer with
// nothing to say is no output at all (Cursor: `{}`), which every harness
// reads as "no decision".
func (a Answer) Encode(h agent.ID) []byte {
	switch h {
	case agent.Cursor:
		// Cursor runs Claude Code's hooks, but its transcripts carry no
		// usage and its answer format differs: runaway stays out of the way.
		return []byte("{}\n")
	case agent.Codex:
		return a.encodeCodex()
	case agent.OpenCode:
		return a.encodeOpenCode()
	case agent.Gemini:
		return a.encodeGemini()
	default:
		return a.encodeClaude()
	}
}

func (a Answer) encodeClaude() []byte {
	var out claudeOutput
	switch k := a.Kind(); k {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	case Ask:
		// The reason of an ask is shown to the person.
		out.HookSpecificOutput = decision("ask", a.reasons(Ask, Ask, false))
		out.SystemMessage = a.reasons(Warn, Warn, false)
	case Deny, Stop:
		// The reason of a deny is shown to the model; warnings and asks
		// that came with it go to the person.
		out.HookSpecificOutput = decision("deny", a.reasons(Deny, Stop, true))
		out.SystemMessage = a.reasons(Warn, Ask, false)
		if k == Stop {
			f := false
			out.Continue = &f
			out.StopReason = a.reasons(Stop, Stop, false)
		}
	}
	return marshal(out)
}

func (a Answer) encodeCodex() []byte {
	var out codexOutput
	switch a.Kind() {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	default:
		// Codex has no ask and no way to end the turn from this hook: deny,
		// and tell the model to stop and ask the person. Later calls are
		// denied again while the cause lasts.
		// Codex shows it as "<reason>. Command: <cmd>": no period of ours
		// before its own.
		reason := strings.TrimSuffix(strings.TrimSpace(a.reasons(Ask, Stop, true)), ".")
		out.HookSpecificOutput = decision("deny", reason)
		out.SystemMessage = a.reasons(Warn, Warn, false)
	}
	return marshal(out)
}

// received names the decision as the agent gets it, for what people read
// (status, replay, the decision log): Codex, Gemini CLI and OpenCode have
// no ask, they get a deny.
func received(h agent.ID, k Kind) string {
	if (h == agent.Codex || h == agent.Gemini || h == agent.OpenCode) && k == Ask {
		return Deny.String()
	}
	return k.String()
}

func (a Answer) encodeOpenCode() []byte {
	k := a.Kind()
	if k == None {
		return nil
	}
	// A plugin cannot ask the person: as with Codex, an ask is a deny that
	// tells the model to stop and ask.
	out := openCodeOutput{Message: a.reasons(Warn, Warn, false), Stop: k == Stop}
	if k >= Ask {
		out.Deny = a.reasons(Ask, Stop, true)
	}
	return marshal(out)
}

func (a Answer) encodeGemini() []byte {
	var out geminiOutput
	switch k := a.Kind(); k {
	case None:
		return nil
	case Warn:
		out.SystemMessage = a.reasons(Warn, Warn, false)
	default:
		// The reason goes to the model as the tool's error; the system
		// message to the person. continue: false ends the run.
		out.Decision = "deny"
		out.Reason = a.reasons(Ask, Stop, true)
		out.SystemMessage = a.reasons(Warn, Warn, false)
		if k == Stop {
			f := false
			out.Continue = &f
			out.StopReason = a.reasons(Stop, Stop, false)
		}
	}
	return marshal(out)
}

// promptOutput is the answer to UserPromptSubmit that Claude Code and
// Codex (0.169) both read: decision "block" with a reason keeps the prompt
// from the model, and the agent shows the reason to the person.
type promptOutput struct {
	Decision      string `json:"decision,omitempty"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
}

// EncodePrompt renders the answer to a user's prompt: a stop blocks it, a
// warning is shown; nothing else applies before the model is asked.
func (a Answer) EncodePrompt(h agent.ID) []byte {
	switch {
	case h == agent.Cursor:
		return []byte("{}\n")
	case h == agent.OpenCode:
		return a.encodeOpenCode()
	}
	out := promptOutput{SystemMessage: a.reasons(Warn, Warn, false)}
	if a.Kind() >= Deny {
		out.Decision, out.Reason = "block", a.reasons(Deny, Stop, false)
	}
	if out == (promptOutput{}) {
		return nil
	}
	return marshal(out)
}

func decision(d, reason string) *preToolUse {
	return &preToolUse{HookEventName: "PreToolUse", PermissionDecision: d, PermissionDecisionReason: reason}
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
