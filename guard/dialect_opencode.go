package guard

import "github.com/runaway-guard/runaway/agent"

// openCodeDialect: runaway's plugin cannot ask the person. It sends the
// user message as the prompt: later calls are denied, and before the next
// model request the session ends.
var openCodeDialect = dialect{
	id: agent.OpenCode, encode: Answer.encodeOpenCode, encodePrompt: Answer.encodeOpenCode,
	// Only runaway's plugin runs `hook opencode`, and it always sends its
	// object; its answer format is the one to use either way.
	claims:    func(in *Input, hint agent.ID) bool { return in.OpenCode != nil || hint == agent.OpenCode },
	escalated: "runaway denied this earlier in this prompt and the agent went on the same way: runaway ends the session.",
	// The plugin sends OpenCode's spend with the call: no session file.
	sample: func(string) (string, string) {
		return `{"hook_event_name":"tool.execute.before","session_id":"doctor-live-test","cwd":"/","tool_name":"bash","tool_input":{"command":"true","description":"doctor's live test"},"tool_use_id":"call_doctor","opencode":{"plugin":1,"instance":"doctor","seq":1,"cost_usd":0,"tokens":{}}}`, ""
	},
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
