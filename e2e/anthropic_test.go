package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// claudeUsage is the usage a fake Anthropic response reports.
type claudeUsage struct {
	Input, Output, CacheRead int
	// CacheWrite is cache_creation_input_tokens; when 0 it is the sum of the
	// 5m/1h split, as the real API sends it.
	CacheWrite                 int
	CacheWrite5m, CacheWrite1h int
	WebSearches                int
}

func (u claudeUsage) json() map[string]any {
	write := u.CacheWrite
	if write == 0 {
		write = u.CacheWrite5m + u.CacheWrite1h
	}
	return map[string]any{
		"input_tokens":                u.Input,
		"cache_creation_input_tokens": write,
		"cache_read_input_tokens":     u.CacheRead,
		"cache_creation": map[string]any{
			"ephemeral_5m_input_tokens": u.CacheWrite5m,
			"ephemeral_1h_input_tokens": u.CacheWrite1h,
		},
		"output_tokens":   u.Output,
		"server_tool_use": map[string]any{"web_search_requests": u.WebSearches},
		"service_tier":    "standard",
	}
}

// claudeTurn is one scripted answer of the fake model: a tool call, or,
// with Tool empty, a final plain message.
type claudeTurn struct {
	Tool  string // "Bash", "Agent", … ; "" ends the conversation with Text
	Input any    // the tool's input
	Text  string // a text block before the tool call, or the final message
	Usage claudeUsage
	// Also are more tool calls in the same response (Tool and Input of
	// each), as models ask for several calls at once.
	Also []claudeTurn
}

// bash is a scripted Bash call.
func bash(cmd string, u claudeUsage) claudeTurn {
	return claudeTurn{Tool: "Bash", Input: map[string]any{"command": cmd, "description": "run " + cmd}, Usage: u}
}

// subagentMarker in a prompt marks the conversation as the subagent's: the
// subagent's requests come to the same server, and its first user message
// holds the prompt the main conversation gave the Agent tool.
const subagentMarker = "E2E-SUBAGENT"

// claudeScript scripts a fake Anthropic model. A conversation's answer is
// chosen by how many tool results its request already carries, so a resumed
// session goes on where it stopped and a retried request gets the same
// answer. After the scripted turns the model ends with a plain message.
type claudeScript struct {
	Main []claudeTurn
	Sub  []claudeTurn // the subagent's turns
	// End is the final message's usage (main and subagent alike).
	End claudeUsage
	// Side is the usage of requests without tools (titles, summaries).
	Side claudeUsage
	// Compact is the usage of a compaction request (its last message asks
	// for the conversation's summary); zero: answered as any other.
	Compact claudeUsage
	// Observe, when set, is called once per main-conversation request
	// with its number of tool results, before it is answered: the calls
	// before it have finished and the next has not been asked for.
	Observe func(results int)
}

// anthropicServer is a fake Anthropic Messages API on 127.0.0.1.
type anthropicServer struct {
	*fakeServer
	script claudeScript

	mu       sync.Mutex
	requests []anthropicRequestLog
	observed map[int]bool
}

// anthropicRequestLog is what the tests can see of each request.
type anthropicRequestLog struct {
	Model       string
	Role        string // "main", "sub" or "side" (no tools: title, summaries…)
	ToolResults int
	Answer      string // the tool called, or "text"
	System      string // the start of the system prompt
	Last        string // the end of the last message
}

func newAnthropicServer(t *testing.T, script claudeScript) *anthropicServer {
	s := &anthropicServer{script: script}
	s.fakeServer = startFakeServer(t, http.HandlerFunc(s.serve))
	return s
}

type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

func (s *anthropicServer) serve(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	default:
		s.notFound(w, r)
		return
	}
	var req anthropicRequest
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	role, results := "side", countToolResults(req)
	if len(req.Tools) > 0 && len(req.Messages) > 0 {
		role = "main"
		if bytes.Contains(req.Messages[0].Content, []byte(subagentMarker)) {
			role = "sub"
		}
	}
	var last string
	if n := len(req.Messages); n > 0 {
		last = string(req.Messages[n-1].Content)
		if len(last) > 400 {
			last = last[len(last)-400:]
		}
	}
	if role == "main" && s.script.Observe != nil {
		s.mu.Lock()
		first := !s.observed[results]
		if s.observed == nil {
			s.observed = map[int]bool{}
		}
		s.observed[results] = true
		s.mu.Unlock()
		if first {
			s.script.Observe(results)
		}
	}
	turn := claudeTurn{Text: "Done.", Usage: s.script.Side}
	switch role {
	case "main":
		turn = s.turn(s.script.Main, results)
	case "sub":
		turn = s.turn(s.script.Sub, results)
	}
	if isCompaction(req) && s.script.Compact != (claudeUsage{}) {
		role, turn = "compact", claudeTurn{Text: "<analysis>Two commands.</analysis>\n<summary>The commands ran.</summary>", Usage: s.script.Compact}
	}
	answer := turn.Tool
	if answer == "" {
		answer = "text"
	}
	s.mu.Lock()
	s.requests = append(s.requests, anthropicRequestLog{Model: req.Model, Role: role, ToolResults: results, Answer: answer, System: truncate(string(req.System), 200), Last: last})
	n := len(s.requests)
	s.mu.Unlock()

	msgID := fmt.Sprintf("msg_%s_%04d", s.nonce, n)
	toolID := fmt.Sprintf("toolu_%s_%04d", s.nonce, n)
	var blocks []map[string]any
	if turn.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": turn.Text})
	}
	stop := "end_turn"
	if turn.Tool != "" {
		stop = "tool_use"
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": toolID, "name": turn.Tool, "input": turn.Input})
		for i, also := range turn.Also {
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("%s_%d", toolID, i+1), "name": also.Tool, "input": also.Input})
		}
	}
	usage := turn.Usage.json()
	if !req.Stream {
		writeJSON(w, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	sse := newSSE(w)
	startUsage := turn.Usage.json()
	startUsage["output_tokens"] = 1
	sse.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": startUsage,
	}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			input, _ := json.Marshal(b["input"])
			sse.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			sse.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		sse.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse.event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage})
	sse.event("message_stop", map[string]any{"type": "message_stop"})
}

// turn picks the answer after `results` tool results: the scripted turn,
// or the final message once the script is used up.
func (s *anthropicServer) turn(turns []claudeTurn, results int) claudeTurn {
	if results < len(turns) {
		return turns[results]
	}
	return claudeTurn{Text: "Done.", Usage: s.script.End}
}

// isCompaction reports a request of Claude Code's compaction: its last
// message asks for a summary of the conversation.
func isCompaction(req anthropicRequest) bool {
	n := len(req.Messages)
	return n > 0 && bytes.Contains(bytes.ToLower(req.Messages[n-1].Content), []byte("summary"))
}

// countToolResults counts the tool_result blocks in the request's messages.
func countToolResults(req anthropicRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue // a plain string content
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				n++
			}
		}
	}
	return n
}

// log returns a copy of the requests seen so far.
func (s *anthropicServer) log() []anthropicRequestLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]anthropicRequestLog(nil), s.requests...)
}

// count returns how many requests of the role the server answered.
func (s *anthropicServer) count(role string) int {
	n := 0
	for _, r := range s.log() {
		if r.Role == role {
			n++
		}
	}
	return n
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return strings.TrimSpace(s)
}

// summary shows the requests in order as role:answer, e.g. "main:Agent sub:Bash".
func (s *anthropicServer) summary() string {
	var parts []string
	for _, r := range s.log() {
		parts = append(parts, r.Role+":"+r.Answer)
	}
	return strings.Join(parts, " ")
}
