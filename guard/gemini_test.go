package guard

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/transcripts"
)

// chunkInput is an AfterModel input for request req with the usage so far.
func chunkInput(t *testing.T, req string, prompt, candidates int64, finished bool) *Input {
	t.Helper()
	fr := ""
	if finished {
		fr = `,"finishReason":"STOP"`
	}
	raw := `{"session_id":"s","hook_event_name":"AfterModel","llm_request":{"model":"m","messages":[` + req + `]},` +
		`"llm_response":{"candidates":[{"content":{"role":"model","parts":[]}` + fr + `}],` +
		`"usageMetadata":{"promptTokenCount":` + jsonInt(prompt) + `,"candidatesTokenCount":` + jsonInt(candidates) + `,"totalTokenCount":` + jsonInt(prompt+candidates) + `}}}`
	in, err := ParseInput([]byte(raw), "gemini")
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Responses as Gemini CLI's loop detector leaves them: the same prompt
// count every time (the fake's), the 2nd cut after its first chunk and
// never written. The 1st and 3rd records match their own streams (the
// finished ones first), the cut one stays counted from its chunk, and the
// spend is marked estimated. dollarPerMillion prices input only: 1M prompt
// tokens a response, $1 each.
func TestGeminiStreamsMatchRecordsAndKeepTheCutOnes(t *testing.T) {
	s := &Session{}
	var p dollarPerMillion
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	record := func(id string) {
		r := transcripts.Response{MessageID: id, Model: "m", Time: now, Usage: transcripts.Usage{Input: 1_000_000, Output: 500}, Prompt: 1_000_000, Candidates: 500}
		s.geminiRecorded(r, today{})
		s.addResponse(r, p)
	}
	spent := func(want float64, what string) {
		t.Helper()
		if math.Abs(s.Spend.USD-want) > 1e-9 {
			t.Fatalf("%s: $%.6f, want $%.6f (open %+v)", what, s.Spend.USD, want, s.Spend.Gemini)
		}
	}

	s.geminiRequestBegins()
	s.geminiChunkSeen(chunkInput(t, `"a"`, 1_000_000, 200, false), p, now, today{})
	s.geminiChunkSeen(chunkInput(t, `"a"`, 1_000_000, 500, true), p, now, today{})
	spent(1, "response 1 from its chunks")
	record("g1")
	spent(1, "response 1 from its record")
	if s.Spend.Estimated || len(s.Spend.Gemini.Open) != 0 {
		t.Fatalf("a written response left: estimated %v, open %+v", s.Spend.Estimated, s.Spend.Gemini.Open)
	}

	s.geminiRequestBegins()
	s.geminiChunkSeen(chunkInput(t, `"a","b"`, 1_000_000, 200, false), p, now, today{})
	s.geminiRequestBegins() // cut: the next request begins
	if !s.Spend.Estimated {
		t.Error("a response cut short is not marked estimated")
	}
	s.geminiChunkSeen(chunkInput(t, `"a","b"`, 1_000_000, 200, false), p, now, today{})
	s.geminiChunkSeen(chunkInput(t, `"a","b"`, 1_000_000, 500, true), p, now, today{})
	spent(3, "response 2 (cut) and 3 from their chunks")
	record("g3")
	spent(3, "response 3 from its record, 2 from its chunk")
	if open := s.Spend.Gemini.Open; len(open) != 1 || open[0].Finished || open[0].Candidates != 200 {
		t.Fatalf("the record matched the cut response, not its own: open %+v", open)
	}
	if s.Spend.Tokens.Input != 3_000_000 {
		t.Errorf("tokens in %d, want 3M", s.Spend.Tokens.Input)
	}

	// A record no stream showed (no AfterModel entry) just counts.
	record("g4")
	spent(4, "a record without chunks")
}

// The open responses are bounded: the oldest is matched no more, and stays
// counted.
func TestGeminiStreamsBounded(t *testing.T) {
	s := &Session{}
	var p dollarPerMillion
	for i := range geminiOpenMax + 3 {
		s.geminiRequestBegins()
		s.geminiChunkSeen(chunkInput(t, jsonInt(int64(i)), 1_000_000, 10, true), p, time.Time{}, today{})
	}
	if n := len(s.Spend.Gemini.Open); n != geminiOpenMax {
		t.Fatalf("%d open responses kept, want %d", n, geminiOpenMax)
	}
	if s.Spend.USD != geminiOpenMax+3 || !s.Spend.Estimated {
		t.Fatalf("$%v (estimated %v), want $%d estimated", s.Spend.USD, s.Spend.Estimated, geminiOpenMax+3)
	}
}

// The event carries no cached count: a streaming response is taken to
// have cached what the session file's latest response had (dollarPerMillion
// prices uncached input only).
func TestGeminiStreamCachedFromTheLatestRecord(t *testing.T) {
	s := &Session{}
	var p dollarPerMillion
	r := transcripts.Response{MessageID: "g1", Model: "m", Usage: transcripts.Usage{Input: 400_000, CacheRead: 600_000}, Prompt: 1_000_000, Candidates: 10}
	s.geminiRecorded(r, today{})
	s.addResponse(r, p)
	s.geminiRequestBegins()
	s.geminiChunkSeen(chunkInput(t, `"b"`, 1_100_000, 10, true), p, time.Time{}, today{})
	if math.Abs(s.Spend.USD-0.9) > 1e-9 {
		t.Fatalf("$%v, want $0.90: $0.40 + the stream's 500k uncached", s.Spend.USD)
	}
}
