package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/transcripts"
)

// maxSessionID bounds a session id: the agents send UUIDs.
const maxSessionID = 256

// MaxInput bounds what the hook reads from stdin. Tool inputs are small;
// anything larger is not a tool call runaway should spend time on.
const MaxInput = 8 << 20

// Input is one PreToolUse (Gemini CLI: BeforeTool) call as the agents send
// it. Field names are the union of Claude Code's, Codex's, Cursor's and
// Gemini CLI's (see shared/reference).
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolCallID     string          `json:"tool_call_id"`   // Qwen Code: the model's call id
	PromptID       string          `json:"prompt_id"`      // Claude Code, per user prompt
	TurnID         string          `json:"turn_id"`        // Codex, per turn
	Model          string          `json:"model"`          // Codex and Cursor
	AgentID        string          `json:"agent_id"`       // inside a subagent
	CursorVersion  string          `json:"cursor_version"` // Cursor only
	ConversationID string          `json:"conversation_id"`
	// OpenCode is what runaway's OpenCode plugin adds (see opencode.go).
	OpenCode *OpenCodeReport `json:"opencode"`
	// GitHub Copilot CLI's own camelCase fields, read into those above
	// (dialect_copilot.go).
	copilotFields
	// LLMRequest and LLMResponse are Gemini CLI's BeforeModel and
	// AfterModel request, as raw bytes, and AfterModel's stream chunk (see
	// gemini.go).
	LLMRequest  json.RawMessage `json:"llm_request"`
	LLMResponse *geminiChunk    `json:"llm_response"`

	// Harness is detected from the fields above, not decoded.
	Harness agent.ID `json:"-"`
}

var llmRequestKey = []byte(`"llm_request"`)

var (
	errEmptyInput = errors.New("empty input on stdin")
	errTooLarge   = fmt.Errorf("input on stdin is larger than %d bytes", MaxInput)
	errNoSession  = errors.New("input has no session_id")
	errLongID     = fmt.Errorf("input's session_id is longer than %d bytes", maxSessionID)
)

// ReadInput reads and decodes one call from r, bounded by MaxInput, and
// detects the harness. hint is the harness named on the command line; the
// input itself wins, since Cursor runs Claude Code's hooks too.
func ReadInput(r io.Reader, hint agent.ID) (*Input, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(data) > MaxInput {
		return nil, errTooLarge
	}
	return ParseInput(data, hint)
}

// ParseInput decodes one call and detects its harness.
func ParseInput(data []byte, hint agent.ID) (*Input, error) {
	if len(data) == 0 {
		return nil, errEmptyInput
	}
	var in Input
	// Gemini CLI's model events carry the whole conversation under
	// llm_request, once per chunk of every response: it is kept as bytes
	// (hashed, its model read) and left out of the decoding, which would
	// cost more than the rest of the hook.
	var request []byte
	if bytes.Contains(data, llmRequestKey) {
		if start, end, ok := transcripts.FieldSpan(data, "llm_request"); ok {
			request = data[start:end]
			data = slices.Concat(data[:start], []byte("null"), data[end:])
		}
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("input is not a JSON object: %w", err)
	}
	if request != nil {
		in.LLMRequest = request
	}
	in.Harness = detect(&in, hint)
	if d := dialectOf(in.Harness); d.adopt != nil {
		d.adopt(&in)
	}
	if !dialectOf(in.Harness).stayOut && in.SessionID == "" {
		return nil, errNoSession
	}
	if len(in.SessionID) > maxSessionID {
		// Session ids are UUIDs; a huge one would go into every log line.
		return nil, errLongID
	}
	return &in, nil
}

// detect tells the agent from the input: the first dialect that claims
// it, else Claude Code.
func detect(in *Input, hint agent.ID) agent.ID {
	for _, d := range dialects {
		if d.claims != nil && d.claims(in, hint) {
			return d.id
		}
	}
	return agent.Claude
}

// isToolCall reports whether the input is a call before a tool runs
// (PreToolUse; Gemini CLI's BeforeTool; OpenCode's tool.execute.before);
// runaway's entry is only installed for those events, but a hand-made
// entry may send others, and those get no decision.
func (in *Input) isToolCall() bool {
	switch in.HookEventName {
	case "", "PreToolUse", "preToolUse", "tool.execute.before", geminiBeforeTool, SkillShellEvent:
		return in.ToolName != ""
	}
	return false
}

// SkillShellEvent is Claude Code's PreSkillShellCommand: its input is a
// Bash (or PowerShell) call whose tool_use_id names no call in the
// transcript; the command runs unless the answer is deny (Claude Code takes
// an ask as deny: a skill cannot wait), and continue:false ends the turn.
const SkillShellEvent = configs.ClaudeSkillShellEvent

// isSkillShell reports whether the input is a skill's shell command.
func (in *Input) isSkillShell() bool { return in.HookEventName == SkillShellEvent }

// isModelRequest reports whether the input comes before a model request
// (OpenCode's chat.params, Gemini CLI's BeforeModel): only the spend wire
// answers it, so that a session past its cap stops before it spends more.
func (in *Input) isModelRequest() bool {
	return in.HookEventName == "chat.params" || in.HookEventName == geminiBeforeModel || in.isBatchEnd() || in.isPermissionStop() || in.isModelChunk()
}

// isPermissionStop reports whether the input is GitHub Copilot CLI's
// permissionRequest, which follows preToolUse for the calls that need a
// permission (shell commands, file writes): its deny can end the turn with
// no further model request, so a stop is answered there.
func (in *Input) isPermissionStop() bool {
	return in.HookEventName == copilotPermission
}

// isModelChunk reports whether the input is Gemini CLI's AfterModel: one
// chunk of a response, with its usage so far. A stop there ends the run
// before the response's calls run and before another request (see
// gemini.go).
func (in *Input) isModelChunk() bool {
	return in.HookEventName == geminiAfterModel
}

// isBatchEnd reports whether the input is Claude Code's PostToolBatch: the
// response's calls ran, and the next model request is still to come. A
// response written to the transcript after its calls' hooks ran is read
// here, and a stop ends the turn before the model is asked again.
func (in *Input) isBatchEnd() bool {
	return in.HookEventName == claudeBatchEnd
}

const claudeBatchEnd = "PostToolBatch"

// isPromptSubmit reports whether the input is a user's prompt on its way to
// the model (Claude Code's and Codex's UserPromptSubmit): a session over its
// cap is blocked there, before the agent sends a paid request.
func (in *Input) isPromptSubmit() bool {
	return in.HookEventName == "UserPromptSubmit"
}

// promptKey names the user prompt the call belongs to, for the prompt cap:
// Claude Code's prompt_id, Codex's turn_id, "" when the agent sends neither.
func (in *Input) promptKey() string {
	if in.PromptID != "" {
		return in.PromptID
	}
	return in.TurnID
}
