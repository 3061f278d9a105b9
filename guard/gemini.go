package guard

import (
	"encoding/json"
	"hash/fnv"
	"slices"
	"time"

	"github.com/runaway-guard/runaway/transcripts"
)

// Gemini CLI writes a response to its session file only once its stream
// ended: a response its loop detector aborts, and the one runaway stops at
// the cap, are billed but never written. Its AfterModel event runs the hook
// once per stream chunk, and each chunk carries the response's usage so far
// (the real API sends it on every chunk), so runaway counts each response
// from its chunks as they come and, when its record reaches the session
// file, counts the record instead: the file has the exact figures (cached
// and thought tokens, which the event drops). A response never written
// stays counted from its chunks, an estimate: its cached input is taken to
// be what the session file's latest response had cached (the prefix a
// request shares with the one before it, seconds earlier), and it is seen
// only as far as Gemini CLI read it. See stopping-observed.md §3.

// geminiAfterModel is the event after each chunk of a model response.
const geminiAfterModel = "AfterModel"

// geminiChunk is what an AfterModel input holds of the chunk: its
// candidates' finish reasons and usageMetadata (only the prompt, candidates
// and total counts: Gemini CLI drops the others).
type geminiChunk struct {
	Candidates []struct {
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	Usage *struct {
		Prompt     int64 `json:"promptTokenCount"`
		Candidates int64 `json:"candidatesTokenCount"`
		Total      int64 `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

func (c *geminiChunk) finished() bool {
	for _, cand := range c.Candidates {
		if cand.FinishReason != "" {
			return true
		}
	}
	return false
}

// geminiStreams are the responses the session's model events showed whose
// record the session file does not hold (yet): in the order they came.
type geminiStreams struct {
	Open []geminiStream `json:"open,omitempty"`
	// Cached is the cached input of the latest response the session file
	// showed: the estimate of a streaming response's.
	Cached int64 `json:"cached,omitempty"`
}

// geminiStream is one response as its chunks showed it.
type geminiStream struct {
	// Request is a hash of the request the chunks answer: a new one is a
	// new response.
	Request    uint64 `json:"request"`
	Model      string `json:"model,omitempty"`
	Prompt     int64  `json:"prompt"`
	Candidates int64  `json:"candidates"`
	// Cached is the estimate of the prompt's cached part (see Cached in
	// geminiStreams): the event does not carry it.
	Cached int64 `json:"cached,omitempty"`
	// Rest is total less prompt and candidates: thoughts (and the prompt
	// of server-side tool use), billed as output.
	Rest int64     `json:"rest,omitempty"`
	Time time.Time `json:"time"`
	// USD is what the response adds to the session's spend now.
	USD float64 `json:"usd"`
	// Finished: a chunk carried a finish reason. Closed: a later request
	// began, so no more chunks come. Unwritten: it never reaches the
	// session file (cut short, or stopped by runaway).
	Finished  bool `json:"finished,omitempty"`
	Closed    bool `json:"closed,omitempty"`
	Unwritten bool `json:"unwritten,omitempty"`
}

func (g geminiStream) usage() transcripts.Usage {
	cached := min(g.Cached, g.Prompt)
	return transcripts.Usage{Input: g.Prompt - cached, CacheRead: cached, Output: g.Candidates + g.Rest}
}

// geminiOpenMax bounds the responses kept waiting for their record; the
// oldest past it stays counted from its chunks and is matched no more (its
// record, should it still come, counts again: an overestimate).
const geminiOpenMax = 16

// geminiRequestKey tells requests apart by their bytes.
func geminiRequestKey(raw json.RawMessage) uint64 {
	h := fnv.New64a()
	h.Write(raw)
	return h.Sum64()
}

// geminiModelOf is the model the request names, read without decoding its
// messages.
func geminiModelOf(raw json.RawMessage) string {
	start, end, ok := transcripts.FieldSpan(raw, "model")
	if !ok {
		return ""
	}
	var model string
	_ = json.Unmarshal(raw[start:end], &model)
	return model
}

// geminiRequestBegins is BeforeModel, after the session file was read: the
// responses before it get no more chunks, and Gemini CLI writes a response
// as its stream ends, so one still waiting for its record was never
// written (aborted by Gemini CLI: its loop detector, an error): it stays
// counted from its chunks, an estimate.
func (s *Session) geminiRequestBegins() {
	g := s.Spend.Gemini
	if g == nil {
		return
	}
	for i := range g.Open {
		o := &g.Open[i]
		o.Closed = true
		if !o.Unwritten {
			o.Unwritten, s.Spend.Estimated = true, true
		}
	}
}

// geminiChunkSeen counts a chunk's usage: the response it belongs to (the
// latest, while it answers the same request and its counts only grow) is
// priced again from it.
func (s *Session) geminiChunkSeen(in *Input, p Pricer, now time.Time, day today) {
	u := in.LLMResponse.Usage
	key := geminiRequestKey(in.LLMRequest)
	g := s.Spend.Gemini
	if g == nil {
		g = &geminiStreams{}
		s.Spend.Gemini = g
	}
	var cur *geminiStream
	if n := len(g.Open); n > 0 {
		last := &g.Open[n-1]
		if !last.Closed && last.Request == key && u.Prompt == last.Prompt && u.Candidates >= last.Candidates {
			cur = last
		} else if !last.Finished && !last.Closed {
			last.Unwritten, s.Spend.Estimated = true, true // cut short: a new response began
		}
		last.Closed = cur == nil
	}
	if cur == nil {
		if len(g.Open) == geminiOpenMax {
			g.Open = slices.Delete(g.Open, 0, 1)
			s.Spend.Estimated = true
		}
		g.Open = append(g.Open, geminiStream{Request: key, Model: geminiModelOf(in.LLMRequest), Time: now, Cached: g.Cached})
		cur = &g.Open[len(g.Open)-1]
	}
	before := cur.usage()
	cur.Prompt, cur.Candidates = max(u.Prompt, 0), max(u.Candidates, 0)
	cur.Rest = max(u.Total-u.Prompt-u.Candidates, 0)
	cur.Finished = cur.Finished || in.LLMResponse.finished()
	usd, est := p.Cost(cur.Model, cur.usage(), cur.Time)
	added := usd - cur.USD
	cur.USD = usd
	s.Spend.USD += added
	s.Spend.Estimated = s.Spend.Estimated || est
	s.Spend.Tokens = s.Spend.Tokens.Add(cur.usage()).Sub(before)
	if cur.Model != "" && !slices.Contains(s.Spend.Models, cur.Model) && len(s.Spend.Models) < 8 {
		s.Spend.Models = append(s.Spend.Models, cur.Model)
	}
	s.addDay(transcripts.Response{Time: cur.Time}, added, day)
}

// geminiRecorded takes a response's first record in the session file: the
// response its chunks counted, if any, is counted from the record instead
// (the record's own dollars are added by the caller). The match is the
// first response waiting with the same prompt count whose candidates the
// record's reach, one whose stream finished first; never one cut short
// (a later request began before it finished), which is never written.
func (s *Session) geminiRecorded(r transcripts.Response, day today) {
	if r.Prompt == 0 && r.Candidates == 0 {
		return // not Gemini CLI's
	}
	g := s.Spend.Gemini
	if g == nil {
		g = &geminiStreams{}
		s.Spend.Gemini = g
	}
	g.Cached = r.Usage.CacheRead
	if len(g.Open) == 0 || r.Counted != (transcripts.Usage{}) {
		return
	}
	match := func(finished bool) int {
		return slices.IndexFunc(g.Open, func(o geminiStream) bool {
			return !o.Unwritten && o.Prompt == r.Prompt && o.Candidates <= r.Candidates && (o.Finished || !finished)
		})
	}
	i := match(true)
	if i < 0 {
		i = match(false)
	}
	if i < 0 {
		return
	}
	o := g.Open[i]
	g.Open = slices.Delete(g.Open, i, i+1)
	s.Spend.USD -= o.USD
	s.Spend.Tokens = s.Spend.Tokens.Sub(o.usage())
	s.addDay(transcripts.Response{Time: o.Time}, -o.USD, day)
}

// geminiStopped: runaway stopped the run at this chunk, so the response is
// never written: it stays counted from its chunks, an estimate.
func (s *Session) geminiStopped() {
	if g := s.Spend.Gemini; g != nil && len(g.Open) > 0 {
		last := &g.Open[len(g.Open)-1]
		last.Closed, last.Unwritten = true, true
		s.Spend.Estimated = true
	}
}
