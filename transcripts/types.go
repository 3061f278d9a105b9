package transcripts

import (
	"encoding/json"
	"time"
)

// Usage is the token use of one API response, the same for both agents.
// Its fields match pricing.Usage one for one, so a caller converts with
// pricing.Usage(u).
type Usage struct {
	// Input is uncached input: cache reads and cache writes are not in it.
	Input int64 `json:"in,omitempty"`
	// Output includes reasoning tokens.
	Output    int64 `json:"out,omitempty"`
	CacheRead int64 `json:"cr,omitempty"`
	// CacheCreation is Claude's cache_creation_input_tokens (Codex:
	// cache_write_input_tokens). CacheWrite5m and CacheWrite1h are Claude's
	// breakdown of it when present; see CacheWrite for the total.
	CacheCreation int64 `json:"cc,omitempty"`
	CacheWrite5m  int64 `json:"c5,omitempty"`
	CacheWrite1h  int64 `json:"c1,omitempty"`
	// WebSearch counts server-side web search requests.
	WebSearch int64 `json:"ws,omitempty"`
	// Speed is "fast" for Claude fast-mode requests; Geo is Claude's
	// inference_geo ("us" costs more on newer models).
	Speed string `json:"sp,omitempty"`
	Geo   string `json:"geo,omitempty"`
	// Tier is the service tier the request asked for (Codex writes it in
	// thread_settings_applied): "priority", "flex", "batch"; empty is
	// standard.
	Tier string `json:"tier,omitempty"`
}

// CacheWrite is the total of cache-write tokens: the larger of
// cache_creation_input_tokens and the 5m+1h breakdown (older Claude Code
// versions wrote 0 in one of them).
func (u Usage) CacheWrite() int64 {
	return max(u.CacheCreation, u.CacheWrite5m+u.CacheWrite1h)
}

// Total is every token of the response.
func (u Usage) Total() int64 { return u.Input + u.Output + u.CacheRead + u.CacheWrite() }

// Add returns the field-wise sum; Speed, Geo and Tier are taken from v when
// set.
func (u Usage) Add(v Usage) Usage {
	r := Usage{
		Input: u.Input + v.Input, Output: u.Output + v.Output, CacheRead: u.CacheRead + v.CacheRead,
		CacheCreation: u.CacheCreation + v.CacheCreation, CacheWrite5m: u.CacheWrite5m + v.CacheWrite5m,
		CacheWrite1h: u.CacheWrite1h + v.CacheWrite1h, WebSearch: u.WebSearch + v.WebSearch,
		Speed: u.Speed, Geo: u.Geo, Tier: u.Tier,
	}
	if v.Tier != "" {
		r.Tier = v.Tier
	}
	if v.Speed != "" {
		r.Speed = v.Speed
	}
	if v.Geo != "" {
		r.Geo = v.Geo
	}
	return r
}

// Sub returns the field-wise difference (Speed, Geo and Tier of u).
func (u Usage) Sub(v Usage) Usage {
	return Usage{
		Input: u.Input - v.Input, Output: u.Output - v.Output, CacheRead: u.CacheRead - v.CacheRead,
		CacheCreation: u.CacheCreation - v.CacheCreation, CacheWrite5m: u.CacheWrite5m - v.CacheWrite5m,
		CacheWrite1h: u.CacheWrite1h - v.CacheWrite1h, WebSearch: u.WebSearch - v.WebSearch,
		Speed: u.Speed, Geo: u.Geo, Tier: u.Tier,
	}
}

// Response is one API response's usage, as far as the file tells so far.
type Response struct {
	// File is the path of the file the record came from.
	File string
	// MessageID and RequestID identify the response (Claude: message.id and
	// requestId; Codex: the response_id of a token_usage_record, else empty).
	MessageID string
	RequestID string
	Model     string
	Time      time.Time
	// Usage is the response's usage now; Counted is what earlier records
	// already reported for the same response (zero for a new one). Add Usage
	// and subtract Counted.
	Usage   Usage
	Counted Usage
	// Estimated: the file carries no usage for this request, only what it
	// is estimated from (a Claude Code compaction: the context's size).
	Estimated bool
	// Subscription: the agent's own plan billed the request, not a
	// provider at token rates (a GitHub Copilot CLI call that is not
	// bring-your-own-key): its tokens are not priced in dollars. Premium is
	// what the plan counted for it, in Copilot's premium-request units.
	Subscription bool
	Premium      float64
	// Prompt and Candidates are Gemini CLI's own counts (tokens.input, the
	// cached part included, and tokens.output): what its model events show
	// of the same response (zero for other agents).
	Prompt, Candidates int64
}

// ToolResult is the outcome of one tool call.
type ToolResult struct {
	File      string
	ToolUseID string
	// Failed: Claude's is_error, Codex's failed status or non-zero exit code.
	// A call a hook denied also comes back failed; callers that must not
	// count their own denials match ToolUseID.
	Failed bool
	// Blocked is the reason a hook gave when it denied the call, where the
	// file says so (Gemini CLI, which sends no call id to the hook).
	Blocked string
	// Refused: the agent did not run the call because a permission check
	// said no (Claude Code's permissionDecision "reject": a hook's deny, an
	// ask nobody approved, the person's no). Unknown is false.
	Refused bool
	Time    time.Time
}

// ToolCall is one tool call the model made.
type ToolCall struct {
	File  string
	ID    string
	Name  string
	Input json.RawMessage
	Time  time.Time
}

// Prompt is a person's prompt, where the file marks one and the agent's
// hook calls carry no prompt id (Gemini CLI: a user message that is no
// tool's result): the responses after it, until the next, are its spend.
type Prompt struct {
	File string
	ID   string
	Time time.Time
}

// Sink receives the records a read finds. Nil functions are skipped.
type Sink struct {
	Response   func(Response)
	ToolResult func(ToolResult)
	// Prompt is called for each prompt the first time it is found, in file
	// order among the responses.
	Prompt func(Prompt)
	// ToolCall nil also skips looking for tool calls, which the hook's hot
	// path does not need.
	ToolCall func(ToolCall)

	// Files, when set, is called once per file of the session, in the
	// session's file order and before any record is read, and the files
	// are then read at the same time (a whole first read, such as replay's,
	// on several cores). Each file's records go in file order to the Sink
	// Files returned for it, not to the functions above; the Sinks of
	// different files are called concurrently.
	Files func(file string) Sink

	// Counted keeps the keys of the responses and tool results yielded, so
	// that a file read again from the start (replaced by a copy of itself,
	// or cut short) yields none of them twice; it is asked only then. Nil:
	// the keys are kept in the Position (8 bytes a record, 11 in JSON).
	Counted Counted
}

// Counted is a set of record keys that outlives a session's reads, such as
// a file beside the caller's state: Add is called for each record yielded,
// Has only for the records of a file read again. With Files, the Sink
// returned for a file brings its own.
type Counted interface {
	Add(key uint64)
	Has(key uint64) bool
}

func (s *Sink) response(r Response) {
	if s.Response != nil {
		s.Response(r)
	}
}

func (s *Sink) toolResult(r ToolResult) {
	if s.ToolResult != nil {
		s.ToolResult(r)
	}
}
