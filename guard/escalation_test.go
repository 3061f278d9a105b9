package guard

import (
	"fmt"
	"testing"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

func loopAsk() Verdict {
	return Verdict{Kind: Ask, Wire: "loop", Reason: "runaway: the same Bash call 5 times in a row"}
}

// Only a refusal escalates: an ask whose result is not in the transcript
// yet, or was approved, leaves the next trigger an ask.
func TestEscalationNeedsRefusal(t *testing.T) {
	var e Escalation
	e.enterPrompt("p1")
	if v := e.escalate(loopAsk(), agent.Claude, "t5", false); v.Kind != Ask {
		t.Fatalf("first trigger: %v", v.Kind)
	}
	if v := e.escalate(loopAsk(), agent.Claude, "t10", false); v.Kind != Ask {
		t.Fatalf("trigger with the earlier ask unsettled: %v, want ask", v.Kind)
	}
	e.settle(transcripts.ToolResult{ToolUseID: "t10", Failed: true}) // approved; ran and failed
	if len(e.Asks) != 0 {
		t.Fatalf("an approved ask is forgotten: %+v", e.Asks)
	}
	e.escalate(loopAsk(), agent.Claude, "t15", false)
	e.settle(transcripts.ToolResult{ToolUseID: "other", Refused: true})
	e.settle(transcripts.ToolResult{ToolUseID: "t15", Refused: true})
	if v := e.escalate(Verdict{Kind: Ask, Wire: "failure", Reason: "runaway: failed"}, agent.Claude, "t16", false); v.Kind != Ask {
		t.Fatalf("another wire's refused ask escalated: %v", v.Kind)
	}
	v := e.escalate(loopAsk(), agent.Claude, "t20", false)
	if v.Kind != Stop || v.Wire != "loop" {
		t.Fatalf("after a refusal: %+v, want a loop stop", v)
	}
	if h := e.halted("p1"); h.Kind != Stop {
		t.Fatalf("later calls of the prompt: %v, want stop", h.Kind)
	}
	if h := e.halted("p2"); h.Kind != None {
		t.Fatalf("another prompt's call: %v, want none", h.Kind)
	}
	e.enterPrompt("p2")
	if e.Halt != "" || len(e.Asks) != 0 {
		t.Fatalf("a new prompt starts over: %+v", e)
	}
}

// Without a prompt key the turn's end cannot be told: the escalated call
// is stopped, later calls are not.
func TestEscalationWithoutPromptKey(t *testing.T) {
	var e Escalation
	e.escalate(loopAsk(), agent.Codex, "c1", true)
	if v := e.escalate(loopAsk(), agent.Codex, "c2", true); v.Kind != Stop {
		t.Fatalf("codex, second deny: %v, want stop", v.Kind)
	}
	if h := e.halted(""); h.Kind != None {
		t.Fatalf("halted without a prompt key: %+v", h)
	}
}

// Codex's parallel subagents interleave their turn_ids with the root's:
// each prompt keeps its own asks and halt across the switches.
func TestEscalationInterleavedPrompts(t *testing.T) {
	var e Escalation
	e.enterPrompt("root")
	e.escalate(loopAsk(), agent.Codex, "c1", true)
	e.enterPrompt("sub")
	if v := e.escalate(loopAsk(), agent.Codex, "c2", true); v.Kind != Ask {
		t.Fatalf("the subagent's first loop: %v, want its own first deny (ask)", v.Kind)
	}
	e.enterPrompt("root")
	if v := e.escalate(loopAsk(), agent.Codex, "c3", true); v.Kind != Stop {
		t.Fatalf("the root's second loop after a switch: %v, want stop", v.Kind)
	}
	e.enterPrompt("sub")
	if h := e.halted("sub"); h.Kind != None {
		t.Fatalf("the subagent is halted by the root's stop: %+v", h)
	}
	e.enterPrompt("root")
	if h := e.halted("root"); h.Kind != Stop {
		t.Fatalf("the root's halt was lost in the switch: %+v", h)
	}
	for i := range 2 * promptsMax {
		e.enterPrompt(fmt.Sprint("p", i))
	}
	if len(e.Others) > promptsMax {
		t.Fatalf("%d other prompts kept, want at most %d", len(e.Others), promptsMax)
	}
}
