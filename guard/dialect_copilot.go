package guard

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/transcripts"
)

// copilotDialect: GitHub Copilot CLI (shared/reference/copilot-cli.md)
// sends camelCase fields, no call id and no transcript path; its session
// file is $COPILOT_HOME/session-state/<session id>/events.jsonl. Its ask
// is a deny in -p and autopilot, where nobody answers, so runaway denies
// instead. A deny at preToolUse only refuses the call, and the model is
// asked again; a deny with interrupt at permissionRequest ends the turn, so
// a stop of a call that reaches one (a shell command, a file write) is
// answered there.
var copilotDialect = dialect{
	id: agent.Copilot, encode: Answer.encodeCopilot,
	claims: func(in *Input, hint agent.ID) bool {
		return hint == agent.Copilot || in.copilotFields.SessionID != "" && in.copilotFields.ToolName != ""
	},
	escalated:  "runaway denied this earlier and the agent went on the same way: runaway ends the turn.",
	adopt:      adoptCopilot,
	transcript: copilotTranscript,
	stopsLater: copilotStopsLater,
	replay: func(in *Input, tc transcripts.ToolCall) bool {
		in.HookEventName = configs.CopilotToolEvent
		return true
	},
	sample: func(t string) (string, string) {
		return `{"sessionId":"doctor-live-test","timestamp":1767225601000,"cwd":"/","toolName":"bash","toolArgs":{"command":"true","description":"doctor's live test"},"transcriptPath":` + jsonString(t) + `}`,
			`{"type":"session.start","data":{"sessionId":"doctor-live-test","producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-01-01T00:00:00.000Z"},"id":"doctor-0","timestamp":"2026-01-01T00:00:00.000Z","parentId":null}` + "\n" +
				`{"type":"session.usage_record","data":{"usage":{"model":"gpt-5-mini","inputTokens":0,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0,"cost":0,"isByok":true}},"id":"doctor-1","timestamp":"2026-01-01T00:00:00.500Z","parentId":"doctor-0"}` + "\n" +
				`{"type":"assistant.message","data":{"messageId":"doctor-msg","model":"gpt-5-mini","content":"","toolRequests":[{"toolCallId":"call_doctor","name":"bash","arguments":{"command":"true","description":"doctor's live test"}}]},"id":"doctor-2","timestamp":"2026-01-01T00:00:00.600Z","parentId":"doctor-1"}` + "\n"
	},
}

// copilotPermission is Copilot CLI's event after preToolUse for a call
// that needs a permission.
const copilotPermission = configs.CopilotPermissionEvent

// copilotFields are the fields Copilot CLI sends in its camelCase
// payloads. A subagent's calls carry the subagent's id as sessionId and the
// session's as parentAgentId; its permission requests the session's id.
type copilotFields struct {
	SessionID      string          `json:"sessionId"`
	HookName       string          `json:"hookName"`
	ToolName       string          `json:"toolName"`
	ToolArgs       json.RawMessage `json:"toolArgs"`
	ToolInput      json.RawMessage `json:"toolInput"`
	AgentID        string          `json:"agentId"`
	ParentAgentID  string          `json:"parentAgentId"`
	TranscriptPath string          `json:"transcriptPath"`
}

// adoptCopilot reads Copilot CLI's fields into Input's.
func adoptCopilot(in *Input) {
	c := &in.copilotFields
	if in.SessionID == "" {
		in.SessionID = c.SessionID
		if c.ParentAgentID != "" {
			in.SessionID, in.AgentID = c.ParentAgentID, c.AgentID
		}
	}
	if in.ToolName == "" {
		in.ToolName = c.ToolName
	}
	if in.HookEventName == "" {
		switch {
		case c.HookName == copilotPermission:
			in.HookEventName, in.ToolInput = copilotPermission, c.ToolInput
		case c.ToolName != "":
			in.HookEventName, in.ToolInput = configs.CopilotToolEvent, c.ToolArgs
		}
	}
	if in.TranscriptPath == "" {
		in.TranscriptPath = c.TranscriptPath
	}
}

// copilotTranscript is the session's events.jsonl under Copilot CLI's
// folder; "" for an id that is not one folder's name.
func copilotTranscript(in *Input, env agent.Env) string {
	id := in.SessionID
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return ""
	}
	dir := agent.Of(agent.Copilot).ConfigDir(env)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "session-state", id, transcripts.CopilotEventsName)
}

// copilotStopsLater: the tools whose calls Copilot CLI 1.0.102 sends to
// permissionRequest (under --allow-all-tools too); reads (view, grep,
// glob), subagents (task) and the rest get none, and are denied at once.
func copilotStopsLater(tool string) bool {
	switch tool {
	case "bash", "powershell", "create", "edit":
		return true
	}
	return false
}

// copilotToolOutput is Copilot CLI's preToolUse answer.
type copilotToolOutput struct {
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// copilotPermissionOutput is its permissionRequest answer: a deny with
// interrupt ends the turn.
type copilotPermissionOutput struct {
	Behavior  string `json:"behavior"`
	Message   string `json:"message,omitempty"`
	Interrupt bool   `json:"interrupt,omitempty"`
}

func (a Answer) encodeCopilot() []byte {
	k := a.Kind()
	if k < Ask {
		// No field of its answers reaches the person: a warning goes by
		// notify_command and status only.
		return nil
	}
	reason := a.reasons(Ask, Stop, true)
	if a.event == copilotPermission {
		return marshal(copilotPermissionOutput{Behavior: "deny", Message: reason, Interrupt: k == Stop})
	}
	return marshal(copilotToolOutput{PermissionDecision: "deny", PermissionDecisionReason: reason})
}
