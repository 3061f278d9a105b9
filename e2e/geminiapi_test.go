package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// geminiUsage is the usageMetadata a fake Gemini API answer reports. As in
// the real API, Cached is part of Prompt; Thoughts are billed as output.
type geminiUsage struct {
	Prompt, Cached, Candidates, Thoughts int
}

func (u geminiUsage) json() map[string]any {
	return map[string]any{
		"promptTokenCount":        u.Prompt,
		"cachedContentTokenCount": u.Cached,
		"candidatesTokenCount":    u.Candidates,
		"thoughtsTokenCount":      u.Thoughts,
		"totalTokenCount":         u.Prompt + u.Candidates + u.Thoughts,
	}
}

// geminiScript scripts the fake model for Gemini CLI. The main agent's
// answer is chosen by how many function responses its request holds:
// Turns[i] for the i-th, then a final text. A subagent (its tools hold
// complete_task) makes SubTurns shell calls, then complete_task.
type geminiScript struct {
	Turns    []geminiTurn
	SubTurns []string
	Usage    geminiUsage // every answer's
	// Resume are the turns after a later prompt (a resumed session's):
	// from the last user text equal to ResumePrompt, the calls are counted
	// from there.
	Resume []geminiTurn
	// EveryChunkUsage streams as the real API does, with the usage so far
	// on every chunk: the text with half the candidates (and every thought),
	// then the call with the finish reason and the whole usage
	// (stopping-observed.md §3; the stock form has usage on the last chunk
	// only, and the call in the first).
	EveryChunkUsage bool
}

// geminiResumePrompt is the prompt a resumed run sends.
const geminiResumePrompt = "go on"

// geminiTurn is one scripted call: a shell command, or an invoke_agent
// of the generalist subagent.
type geminiTurn struct {
	Cmd      string
	Subagent bool
}

// geminiServer is a fake Gemini API (generativelanguage v1beta) on
// 127.0.0.1, the calls gemini-cli-observed.md §2 lists.
type geminiServer struct {
	*fakeServer
	script geminiScript

	mu       sync.Mutex
	requests []geminiRequestLog
}

// geminiRequestLog is what the tests can see of each request.
type geminiRequestLog struct {
	Kind      string // "main", "subagent" or "utility"
	Model     string
	Responses int    // function responses in the request
	Answer    string // the call made, or "text"
	Usage     geminiUsage
}

func newGeminiServer(t *testing.T, script geminiScript) *geminiServer {
	s := &geminiServer{script: script}
	s.fakeServer = startFakeServer(t, http.HandlerFunc(s.serve))
	return s
}

type geminiRequest struct {
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text             string          `json:"text"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

func (r *geminiRequest) hasTool(name string) bool {
	for _, t := range r.Tools {
		for _, f := range t.FunctionDeclarations {
			if f.Name == name {
				return true
			}
		}
	}
	return false
}

// functionResponses counts the function responses in the request's
// contents from the from-th on.
func (r *geminiRequest) functionResponses(from int) int {
	n := 0
	for _, c := range r.Contents[from:] {
		for _, p := range c.Parts {
			if len(p.FunctionResponse) > 0 {
				n++
			}
		}
	}
	return n
}

// lastPrompt is the index of the last user content with a text part equal
// to text, -1 when there is none.
func (r *geminiRequest) lastPrompt(text string) int {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		for _, p := range r.Contents[i].Parts {
			if r.Contents[i].Role == "user" && strings.TrimSpace(p.Text) == text {
				return i
			}
		}
	}
	return -1
}

func (s *geminiServer) serve(w http.ResponseWriter, r *http.Request) {
	if !s.admit(w) {
		return
	}
	// POST /v1beta/models/<model>:streamGenerateContent?alt=sse, or
	// :generateContent for utility calls.
	model, method, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/v1beta/models/"), ":")
	if r.Method != http.MethodPost || !ok || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		s.notFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if method == "generateContent" {
		// A utility call (model router, next-speaker check): one small JSON
		// answer that suits both.
		u := geminiUsage{Prompt: 100, Candidates: 10}
		s.record(geminiRequestLog{Kind: "utility", Model: model, Answer: "text", Usage: u})
		writeJSON(w, map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": `{"complexity_reasoning":"simple","complexity_score":10,"next_speaker":"user","reasoning":"done"}`}}},
				"finishReason": "STOP", "index": 0,
			}},
			"usageMetadata": u.json(),
		})
		return
	}
	if method != "streamGenerateContent" {
		s.notFound(w, r)
		return
	}
	n := req.functionResponses(0)
	turns := s.script.Turns
	if i := req.lastPrompt(geminiResumePrompt); i >= 0 && s.script.Resume != nil {
		n, turns = req.functionResponses(i), s.script.Resume
	}
	log := geminiRequestLog{Kind: "main", Model: model, Responses: n, Usage: s.script.Usage}
	var parts []any
	switch {
	case req.hasTool("complete_task"):
		log.Kind = "subagent"
		if n < len(s.script.SubTurns) {
			log.Answer = s.script.SubTurns[n]
			parts = []any{map[string]any{"text": "Checking."}, shellCallPart(s.script.SubTurns[n])}
		} else {
			log.Answer = "complete_task"
			parts = []any{map[string]any{"functionCall": map[string]any{"name": "complete_task", "args": map[string]any{"result": map[string]any{"response": "looked around"}}}}}
		}
	case n < len(turns) && turns[n].Subagent:
		log.Answer = "invoke_agent"
		parts = []any{map[string]any{"functionCall": map[string]any{"name": "invoke_agent", "args": map[string]any{"agent_name": "generalist", "prompt": "look around the project"}}}}
	case n < len(turns):
		log.Answer = turns[n].Cmd
		parts = []any{map[string]any{"text": "Trying again."}, shellCallPart(turns[n].Cmd)}
	default:
		log.Answer = "text"
		parts = []any{map[string]any{"text": "Done."}}
	}
	s.record(log)
	// Two chunks, as the real API streams them: the content, then the
	// finish reason with the usage.
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	chunks := []map[string]any{
		{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}}, "modelVersion": model},
		{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": ""}}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": s.script.Usage.json(), "modelVersion": model},
	}
	if s.script.EveryChunkUsage {
		half := s.script.Usage
		half.Candidates /= 2
		text, call := parts[:len(parts)-1], parts[len(parts)-1:]
		if len(text) == 0 {
			text = []any{map[string]any{"text": "Well."}}
		}
		chunks = []map[string]any{
			{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": text}, "index": 0}},
				"usageMetadata": half.json(), "modelVersion": model},
			{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": call}, "finishReason": "STOP", "index": 0}},
				"usageMetadata": s.script.Usage.json(), "modelVersion": model},
		}
	}
	for _, chunk := range chunks {
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if f != nil {
			f.Flush()
		}
	}
}

func shellCallPart(cmd string) map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": cmd, "description": "run it"}}}
}

func (s *geminiServer) record(l geminiRequestLog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, l)
}

func (s *geminiServer) log() []geminiRequestLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]geminiRequestLog(nil), s.requests...)
}

// served counts the requests of a kind ("" for all).
func (s *geminiServer) served(kind string) int {
	n := 0
	for _, l := range s.log() {
		if kind == "" || l.Kind == kind {
			n++
		}
	}
	return n
}
