package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// chatUsage is the usage a fake Chat Completions answer reports. As in the
// real API, Cached is part of Prompt.
type chatUsage struct {
	Prompt, Cached, Completion int
}

func (u chatUsage) json() map[string]any {
	return map[string]any{
		"prompt_tokens":         u.Prompt,
		"completion_tokens":     u.Completion,
		"total_tokens":          u.Prompt + u.Completion,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.Cached},
	}
}

// chatScript scripts the fake model for OpenCode: while a request offers
// the bash tool, the answer is chosen by how many tool results the
// conversation holds: Cmds[n] as one bash call, then a plain "Done.".
// A request without tools (OpenCode's title agent) gets a title.
type chatScript struct {
	// Tool is the shell tool the calls are made to ("": OpenCode's bash;
	// Qwen Code's is run_shell_command).
	Tool  string
	Cmds  []string
	Usage chatUsage // every answer's
	// SubMark marks a subagent's conversation: a request whose user
	// messages hold it is answered from Sub, with SubUsage. A command
	// "agent:<task>" is a call to Qwen Code's agent tool, run in the
	// foreground, with SubMark and the task as its prompt.
	SubMark  string
	Sub      []string
	SubUsage chatUsage
	// UsageDelay holds back a tool call's finish and usage chunks for a
	// while after the call itself, as a slow stream end.
	UsageDelay time.Duration
}

// chatTitleUsage is what the title agent's answer reports.
var chatTitleUsage = chatUsage{Prompt: 100, Completion: 5}

// chatServer is a fake OpenAI Chat Completions API on 127.0.0.1, the one
// OpenCode's bundled @ai-sdk/openai-compatible provider talks to.
type chatServer struct {
	*fakeServer
	script chatScript

	mu       sync.Mutex
	requests []chatRequestLog
}

// chatRequestLog is what the tests can see of each request.
type chatRequestLog struct {
	Model       string
	Tools       bool     // the request offered tools (not the title agent)
	ToolResults []string // the contents of its role:"tool" messages
	Answer      string   // the command called, "text" or "title"
	Sub         bool     // a subagent's request (see chatScript.SubMark)
	Time        time.Time
}

func newChatServer(t *testing.T, script chatScript) *chatServer {
	s := &chatServer{script: script}
	s.fakeServer = startFakeServer(t, http.HandlerFunc(s.serve))
	return s
}

type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		s.notFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	tool := s.script.Tool
	if tool == "" {
		tool = "bash"
	}
	hasBash := false
	for _, t := range req.Tools {
		hasBash = hasBash || t.Function.Name == tool
	}
	entry := chatRequestLog{Model: req.Model, Tools: len(req.Tools) > 0, Time: time.Now()}
	cmds, usage := s.script.Cmds, s.script.Usage
	for _, m := range req.Messages {
		if s.script.SubMark != "" && m.Role == "user" && strings.Contains(string(m.Content), s.script.SubMark) {
			entry.Sub, cmds, usage = true, s.script.Sub, s.script.SubUsage
		}
	}
	for _, m := range req.Messages {
		if m.Role != "tool" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			text = string(m.Content)
		}
		entry.ToolResults = append(entry.ToolResults, text)
	}
	cmd, text := "", "Done."
	switch n := len(entry.ToolResults); {
	case !hasBash:
		text = "Fake title"
		entry.Answer = "title"
	case n < len(cmds):
		cmd = cmds[n]
		entry.Answer = cmd
	default:
		entry.Answer = "text"
	}
	s.mu.Lock()
	s.requests = append(s.requests, entry)
	n := len(s.requests)
	s.mu.Unlock()

	id := fmt.Sprintf("chatcmpl_%s_%04d", s.nonce, n)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	data := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f != nil {
			f.Flush()
		}
	}
	if cmd != "" {
		name, args := tool, []byte(nil)
		if task, ok := strings.CutPrefix(cmd, "agent:"); ok {
			name = "agent"
			args, _ = json.Marshal(map[string]any{"description": "scripted subagent", "prompt": s.script.SubMark + " " + task,
				"subagent_type": "general-purpose", "run_in_background": false})
		} else {
			args, _ = json.Marshal(map[string]any{"command": cmd, "description": "scripted call"})
		}
		call := map[string]any{"index": 0, "id": fmt.Sprintf("call_%s_%04d", s.nonce, n), "type": "function",
			"function": map[string]any{"name": name, "arguments": string(args)}}
		data(chunk(map[string]any{"role": "assistant", "tool_calls": []any{call}}, nil))
		time.Sleep(s.script.UsageDelay)
		data(chunk(map[string]any{}, "tool_calls"))
	} else {
		data(chunk(map[string]any{"role": "assistant", "content": text}, nil))
		data(chunk(map[string]any{}, "stop"))
	}
	if !hasBash {
		usage = chatTitleUsage
	}
	data(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": req.Model, "choices": []any{}, "usage": usage.json()})
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f != nil {
		f.Flush()
	}
}

func (s *chatServer) log() []chatRequestLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequestLog(nil), s.requests...)
}

// steps are the requests of the agent's own steps (not the title's).
func (s *chatServer) steps() []chatRequestLog {
	var out []chatRequestLog
	for _, r := range s.log() {
		if r.Tools {
			out = append(out, r)
		}
	}
	return out
}

// toolResultsContain reports whether any request carried a tool result
// holding text: what the model was told.
func (s *chatServer) toolResultsContain(text string) bool {
	for _, r := range s.log() {
		for _, res := range r.ToolResults {
			if strings.Contains(res, text) {
				return true
			}
		}
	}
	return false
}
