package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
)

// codexUsage is the usage a fake Responses API answer reports. As in the
// real API, Cached is part of Input and Reasoning part of Output.
type codexUsage struct {
	Input, Cached, Output, Reasoning int
}

func (u codexUsage) json() map[string]any {
	return map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.Output,
	}
}

// codexTurn is one scripted answer: a shell command, or with Cmd empty a
// final plain message.
type codexTurn struct {
	Cmd   string
	Text  string
	Usage codexUsage
}

// codexScript scripts the fake model for Codex. The answer is chosen by how
// many tool outputs the session has had (the request's, plus those before
// a compaction); after the scripted turns the model ends with a plain
// message.
type codexScript struct {
	Turns []codexTurn
	// Resumed are the turns once a prompt holding resumeMarker arrives
	// (`codex exec resume … "<marker> …"`), counted from that prompt on.
	Resumed []codexTurn
	End     codexUsage
}

// resumeMarker in a prompt starts the script's Resumed turns.
const resumeMarker = "E2E-RESUME"

// compactionUsage is what a compaction request reports: small, so a
// compaction never leads to another one.
var compactionUsage = codexUsage{Input: 2000, Output: 200}

// titleUsage is what the TUI's thread-title request reports.
var titleUsage = codexUsage{Input: 1000, Output: 10}

// openaiServer is a fake OpenAI Responses API on 127.0.0.1.
type openaiServer struct {
	*fakeServer
	script codexScript

	mu        sync.Mutex
	requests  []openaiRequestLog
	perSess   map[string]int // requests per session
	compacted map[string]int // tool outputs before the session's last compaction
	resumedAt map[string]int // the session's step when the resume prompt came
}

// openaiRequestLog is what the tests can see of each request.
type openaiRequestLog struct {
	Session     string
	Kind        string // "turn", "compaction" or "title"
	Model       string
	ToolOutputs int    // in the request (they count from 0 again after a compaction)
	Answer      string // the command run, or "text"
	Usage       codexUsage
	ServiceTier string // the service_tier the request asked for
}

func newOpenAIServer(t *testing.T, script codexScript) *openaiServer {
	s := &openaiServer{script: script, perSess: map[string]int{}, compacted: map[string]int{}, resumedAt: map[string]int{}}
	s.fakeServer = startFakeServer(t, http.HandlerFunc(s.serve))
	return s
}

type responsesRequest struct {
	Model       string `json:"model"`
	ServiceTier string `json:"service_tier"`
	Input       []struct {
		Type string `json:"type"`
	} `json:"input"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

func (s *openaiServer) serve(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		s.notFound(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	var meta struct {
		RequestKind  string `json:"request_kind"`
		ThreadSource string `json:"thread_source"`
	}
	_ = json.Unmarshal([]byte(r.Header.Get("x-codex-turn-metadata")), &meta)
	session := r.Header.Get("session-id")
	outputs := 0
	for _, it := range req.Input {
		if it.Type == "function_call_output" {
			outputs++
		}
	}
	kind := "turn"
	switch {
	case meta.ThreadSource == "thread_title":
		// The TUI's extra request that names a new thread: it writes no
		// rollout, so its usage is in none.
		kind = "title"
	case meta.RequestKind == "compaction" || len(req.Tools) == 0:
		kind = "compaction"
	}

	s.mu.Lock()
	s.perSess[session]++
	// A compaction replaces the history with a summary, so the tool outputs
	// in later requests count from 0 again: the outputs the compacted
	// history held are added back. Past a bound on requests a session only
	// gets final messages, whatever the agent does.
	overrun := s.perSess[session] > 2*(len(s.script.Turns)+len(s.script.Resumed))+10
	step, turns := s.compacted[session]+outputs, s.script.Turns
	if bytes.Contains(body, []byte(resumeMarker)) {
		if _, ok := s.resumedAt[session]; !ok {
			s.resumedAt[session] = step
		}
		step, turns = step-s.resumedAt[session], s.script.Resumed
	}
	turn := codexTurn{Text: "Done.", Usage: s.script.End}
	switch {
	case kind == "compaction":
		s.compacted[session] = s.compacted[session] + outputs
		turn = codexTurn{Text: "Summary: the commands were run.", Usage: compactionUsage}
	case kind == "title":
		turn = codexTurn{Text: "Scripted commands", Usage: titleUsage}
	case !overrun && step < len(turns):
		turn = turns[step]
	}
	answer := turn.Cmd
	if answer == "" {
		answer = "text"
	}
	s.requests = append(s.requests, openaiRequestLog{Session: session, Kind: kind, Model: req.Model, ToolOutputs: outputs, Answer: answer, Usage: turn.Usage, ServiceTier: req.ServiceTier})
	n := len(s.requests)
	s.mu.Unlock()

	respID := fmt.Sprintf("resp_%s_%04d", s.nonce, n)
	var item map[string]any
	if turn.Cmd != "" {
		name, args := shellCall(req, turn.Cmd)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%04d", s.nonce, n), "call_id": fmt.Sprintf("call_%s_%04d", s.nonce, n), "name": name, "arguments": args}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_%s_%04d", s.nonce, n), "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}}}
	}
	resp := map[string]any{"id": respID, "object": "response", "status": "in_progress", "model": req.Model, "output": []any{}}
	sse := newSSE(w)
	seq := 0
	ev := func(name string, data map[string]any) {
		data["type"] = name
		data["sequence_number"] = seq
		seq++
		sse.event(name, data)
	}
	ev("response.created", map[string]any{"response": resp})
	ev("response.in_progress", map[string]any{"response": resp})
	added := map[string]any{}
	for k, v := range item {
		added[k] = v
	}
	added["status"] = "in_progress"
	if turn.Cmd != "" {
		added["arguments"] = ""
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": added})
		ev("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": 0, "delta": item["arguments"]})
		ev("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": 0, "arguments": item["arguments"]})
	} else {
		added["content"] = []any{}
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": added})
		part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		ev("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "part": part})
		ev("response.output_text.delta", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "delta": turn.Text})
		ev("response.output_text.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "text": turn.Text})
		part["text"] = turn.Text
		ev("response.content_part.done", map[string]any{"item_id": item["id"], "output_index": 0, "content_index": 0, "part": part})
	}
	item["status"] = "completed"
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	done := map[string]any{"id": respID, "object": "response", "status": "completed", "model": req.Model, "output": []any{item}, "usage": turn.Usage.json()}
	ev("response.completed", map[string]any{"response": done})
}

// shellCall makes the call of the shell tool the request advertises, with
// that tool's own argument shape.
func shellCall(req responsesRequest, cmd string) (name, args string) {
	for _, t := range req.Tools {
		var a any
		switch t.Name {
		case "exec_command":
			a = map[string]any{"cmd": cmd}
		case "shell_command":
			a = map[string]any{"command": cmd}
		case "shell":
			a = map[string]any{"command": []string{"bash", "-lc", cmd}}
		default:
			continue
		}
		b, _ := json.Marshal(a)
		return t.Name, string(b)
	}
	b, _ := json.Marshal(map[string]any{"cmd": cmd})
	return "exec_command", string(b)
}

func (s *openaiServer) log() []openaiRequestLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]openaiRequestLog(nil), s.requests...)
}

// reported sums the usage the server reported over all its answers.
func (s *openaiServer) reported() codexUsage {
	var sum codexUsage
	for _, r := range s.log() {
		sum.Input += r.Usage.Input
		sum.Cached += r.Usage.Cached
		sum.Output += r.Usage.Output
		sum.Reasoning += r.Usage.Reasoning
	}
	return sum
}
