package pricing

import "time"

// Ledger is a running total of spend per model, the shape `runaway replay
// --json` prints. The guard can keep one in its session state: add every
// record a transcripts read yields.
type Ledger struct {
	CostUSD   float64                `json:"cost_usd"`
	Estimated bool                   `json:"estimated"`
	Models    map[string]*ModelSpend `json:"models"`
}

// ModelSpend is one model's share of a Ledger. Token fields mean the same
// for every agent: input excludes cache reads and writes, output includes
// reasoning.
type ModelSpend struct {
	InputTokens       int64   `json:"input_tokens"`
	OutputTokens      int64   `json:"output_tokens"`
	CacheReadTokens   int64   `json:"cache_read_tokens"`
	CacheWriteTokens  int64   `json:"cache_write_tokens"`
	WebSearchRequests int64   `json:"web_search_requests,omitempty"`
	CostUSD           float64 `json:"cost_usd"`
	// PricedAs names the table entry used; Estimated marks a model that
	// was not in the table.
	PricedAs  string `json:"priced_as"`
	Estimated bool   `json:"estimated,omitempty"`
}

// UnknownModel is the Ledger key for usage whose model the file does not
// name (a Codex rollout without turn_context).
const UnknownModel = "(unknown)"

// Add counts one response record: usage u, of which counted was already
// added by an earlier record for the same response (zero for a new one).
// It returns the cost added, at the rates of the day at (the response's
// time). Pricing cost(u) − cost(counted) keeps whole-request rules (long
// context) right.
func (l *Ledger) Add(t *Table, model string, u, counted Usage, at time.Time) float64 {
	if l.Models == nil {
		l.Models = map[string]*ModelSpend{}
	}
	key := model
	if key == "" {
		key = UnknownModel
	}
	ms := l.Models[key]
	if ms == nil {
		ms = &ModelSpend{}
		l.Models[key] = ms
	}
	c := t.Cost(model, u, at)
	usd := c.USD - t.Cost(model, counted, at).USD
	ms.InputTokens += u.Input - counted.Input
	ms.OutputTokens += u.Output - counted.Output
	ms.CacheReadTokens += u.CacheRead - counted.CacheRead
	ms.CacheWriteTokens += u.CacheWrite() - counted.CacheWrite()
	ms.WebSearchRequests += u.WebSearch - counted.WebSearch
	ms.CostUSD += usd
	ms.PricedAs, ms.Estimated = c.PricedAs, c.Estimated
	l.CostUSD += usd
	l.Estimated = l.Estimated || c.Estimated
	return usd
}
