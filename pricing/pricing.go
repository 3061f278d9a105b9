// Package pricing prices the token use of one API response in USD.
//
// The table is embedded (prices.json: every Claude and OpenAI model the
// references list, each with its source URL, the date it was checked, and its
// release date). Users add or override prices with runaway's config field
// `prices`, a JSON object of model id → Override; see README.md.
//
//	table := pricing.Default()
//	table, err := table.With(cfg.Prices) // optional overrides
//	c := table.Cost(model, pricing.Usage(u))
//	spend += c.USD
//
// Model ids are normalised as agents write them (dated suffixes, [1m],
// provider prefixes, Bedrock/Vertex spellings). A model not in the table is
// priced like the newest model of its family by release date, else like the
// most expensive model in the table, and the Cost is marked Estimated.
package pricing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Usage is one response's token use. Its fields match transcripts.Usage one
// for one, so the guard converts with pricing.Usage(u).
type Usage struct {
	// Input is uncached input: cache reads and writes are not in it.
	Input int64 `json:"in,omitempty"`
	// Output includes reasoning tokens.
	Output    int64 `json:"out,omitempty"`
	CacheRead int64 `json:"cr,omitempty"`
	// CacheCreation is the cache-write total as reported; CacheWrite5m and
	// CacheWrite1h are Claude's breakdown of it when present.
	CacheCreation int64  `json:"cc,omitempty"`
	CacheWrite5m  int64  `json:"c5,omitempty"`
	CacheWrite1h  int64  `json:"c1,omitempty"`
	WebSearch     int64  `json:"ws,omitempty"`
	Speed         string `json:"sp,omitempty"`
	Geo           string `json:"geo,omitempty"`
}

// CacheWrite is the cache-write total: the larger of the reported total and
// the 5m+1h breakdown.
func (u Usage) CacheWrite() int64 { return max(u.CacheCreation, u.CacheWrite5m+u.CacheWrite1h) }

// Rates are USD per million tokens, web search USD per request.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cache_read"`
	CacheWrite   float64 `json:"cache_write"`
	CacheWrite1h float64 `json:"cache_write_1h,omitempty"`
}

// LongContext prices a whole request at other rates when its input
// (uncached + cache reads + cache writes) is above AboveTokens.
type LongContext struct {
	AboveTokens int64 `json:"above_tokens"`
	Rates
}

// Price is one model's entry in the table.
type Price struct {
	ID       string   `json:"id"`
	Provider string   `json:"provider"` // "anthropic" or "openai"
	Family   string   `json:"family"`
	Aliases  []string `json:"aliases,omitempty"`
	Rates
	WebSearch float64 `json:"web_search_per_request,omitempty"`
	// USMultiplier applies to every token when Claude's inference_geo is
	// "us"; FastMultiplier to every token of a fast-mode request.
	USMultiplier   float64      `json:"us_multiplier,omitempty"`
	FastMultiplier float64      `json:"fast_multiplier,omitempty"`
	LongContext    *LongContext `json:"long_context,omitempty"`
	Released       string       `json:"released"`
	ReleasedSource string       `json:"released_source,omitempty"`
	Source         string       `json:"source"`
	Checked        string       `json:"checked"`
	Note           string       `json:"note,omitempty"`
}

// Table is a set of prices. Its methods are safe for concurrent use.
type Table struct {
	models []Price
	byID   map[string]int // normalised id or alias → index in models
}

// The table's source is prices.json; table.go holds it compiled in, so that
// the hook does not parse 25 KB of JSON on every tool call (about 0.6 ms).
//go:generate go run ./gentable

// defaultTable is the built-in table.
var defaultTable = &Table{models: builtin, byID: builtinIDs}

// Default returns the built-in table (prices.json). Do not modify it; With
// makes a changed copy.
func Default() *Table { return defaultTable }

func newTable(models []Price) *Table {
	t := &Table{models: models, byID: map[string]int{}}
	for i, p := range models {
		t.byID[Normalize(p.ID)] = i
		for _, a := range p.Aliases {
			t.byID[Normalize(a)] = i
		}
	}
	return t
}

// Models returns the table's entries.
func (t *Table) Models() []Price { return append([]Price(nil), t.models...) }

// Override is the JSON shape of one entry of runaway's config field
// `prices`: USD per million tokens (web_search_per_request: USD per
// request). For a model already in the table, fields left out keep the
// table's value; for a new model, input and output are required and the
// cache rates default to Anthropic's multipliers of input (reads 0.1×,
// writes 1.25×, 1-hour writes 2×).
type Override struct {
	Input               *float64 `json:"input"`
	Output              *float64 `json:"output"`
	CacheRead           *float64 `json:"cache_read"`
	CacheWrite          *float64 `json:"cache_write"`
	CacheWrite1h        *float64 `json:"cache_write_1h"`
	WebSearchPerRequest *float64 `json:"web_search_per_request"`
}

// With returns a table with the overrides applied; t is left unchanged.
func (t *Table) With(overrides map[string]Override) (*Table, error) {
	if len(overrides) == 0 {
		return t, nil
	}
	models := append([]Price(nil), t.models...)
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, model := range keys {
		o := overrides[model]
		for _, v := range []*float64{o.Input, o.Output, o.CacheRead, o.CacheWrite, o.CacheWrite1h, o.WebSearchPerRequest} {
			if v != nil && (*v < 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
				return nil, fmt.Errorf("prices: %s: a price must be a number ≥ 0", model)
			}
		}
		i, ok := t.byID[Normalize(model)]
		var p Price
		if ok {
			p = models[i]
		} else {
			if o.Input == nil || o.Output == nil {
				return nil, fmt.Errorf("prices: %s is not in runaway's table: give at least input and output", model)
			}
			p = Price{ID: model, Provider: providerOf(Normalize(model)), Family: familyOf(Normalize(model)),
				Rates: Rates{CacheRead: *o.Input * 0.1, CacheWrite: *o.Input * 1.25, CacheWrite1h: *o.Input * 2}}
		}
		set := func(dst *float64, v *float64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&p.Input, o.Input)
		set(&p.Output, o.Output)
		set(&p.CacheRead, o.CacheRead)
		set(&p.CacheWrite, o.CacheWrite)
		set(&p.CacheWrite1h, o.CacheWrite1h)
		set(&p.WebSearch, o.WebSearchPerRequest)
		// A user's price is the price: no long-context or multiplier rules
		// the user did not state.
		p.LongContext, p.Source, p.Checked = nil, "runaway config (prices)", ""
		if ok {
			models[i] = p
		} else {
			models = append(models, p)
		}
	}
	return newTable(models), nil
}

// Cost is what one response cost.
type Cost struct {
	USD float64
	// PricedAs is the table entry used; Estimated is true when the model
	// was not in the table and PricedAs stands in for it.
	PricedAs  string
	Estimated bool
}

// Cost prices usage u of model.
func (t *Table) Cost(model string, u Usage) Cost {
	p, estimated := t.Lookup(model)
	return Cost{USD: p.cost(u), PricedAs: p.ID, Estimated: estimated}
}

// Lookup returns the price used for model and whether it is an estimate.
func (t *Table) Lookup(model string) (Price, bool) {
	id := Normalize(model)
	if i, ok := t.byID[id]; ok {
		return t.models[i], false
	}
	return t.fallback(id), true
}

func (t *Table) fallback(id string) Price {
	fam, prov := familyOf(id), providerOf(id)
	best := -1
	for _, try := range []string{fam, baseFamily(fam)} {
		for i, p := range t.models {
			if try != "" && p.Family == try && p.Provider == prov && (best < 0 || newer(p, t.models[best])) {
				best = i
			}
		}
		if best >= 0 {
			return t.models[best]
		}
	}
	for i, p := range t.models {
		if best < 0 || p.Input+p.Output > t.models[best].Input+t.models[best].Output {
			best = i
		}
	}
	return t.models[best]
}

func newer(a, b Price) bool {
	if a.Released != b.Released {
		return a.Released > b.Released
	}
	return a.ID > b.ID
}

func (p Price) cost(u Usage) float64 {
	cw := u.CacheWrite()
	oneHour := min(u.CacheWrite1h, cw)
	rest := cw - oneHour
	r := p.Rates
	if lc := p.LongContext; lc != nil && u.Input+u.CacheRead+cw > lc.AboveTokens {
		r = lc.Rates
		if r.CacheRead == 0 {
			r.CacheRead = p.CacheRead
		}
		if r.CacheWrite == 0 {
			r.CacheWrite = p.CacheWrite
		}
		if r.CacheWrite1h == 0 {
			r.CacheWrite1h = p.CacheWrite1h
		}
	}
	w1h := r.CacheWrite1h
	if w1h == 0 {
		w1h = r.CacheWrite
	}
	w := r.CacheWrite
	if w == 0 && p.Provider == "openai" {
		w = r.Input // OpenAI cache writes are input unless a rate says otherwise
	}
	usd := (float64(u.Input)*r.Input + float64(u.Output)*r.Output + float64(u.CacheRead)*r.CacheRead +
		float64(rest)*w + float64(oneHour)*w1h) / 1e6
	if u.Speed == "fast" && p.FastMultiplier > 0 {
		usd *= p.FastMultiplier
	}
	if u.Geo == "us" && p.USMultiplier > 0 {
		usd *= p.USMultiplier
	}
	return usd + float64(u.WebSearch)*p.WebSearch
}

var (
	dateSuffix   = regexp.MustCompile(`(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2})$`)
	bedrockVer   = regexp.MustCompile(`-v\d+(?::\d+)?$`)
	claudeDotVer = regexp.MustCompile(`(claude-[a-z]+-\d)\.(\d)`)
	legacyClaude = regexp.MustCompile(`^claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)`)
	claudeFamily = regexp.MustCompile(`^claude-(opus|sonnet|haiku|fable|mythos)`)
	gptFamily    = regexp.MustCompile(`^gpt-(\d+)(?:\.\d+)?((?:-[a-z]+)*)$`)
)

// Normalize turns a model id as an agent writes it into the table's form:
// lower case, without [1m]-style suffixes, provider prefixes
// (anthropic/, us.anthropic., converse/…), Bedrock -v1:0 and date suffixes,
// -latest/-fast, and with claude-opus-4.5 written claude-opus-4-5.
func Normalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.Index(m, "["); i > 0 {
		m = m[:i]
	}
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.LastIndex(m, "anthropic."); i >= 0 {
		m = m[i+len("anthropic."):]
	}
	m = bedrockVer.ReplaceAllString(m, "")
	m = dateSuffix.ReplaceAllString(m, "")
	for _, s := range []string{"-latest", "-fast"} {
		if strings.HasSuffix(m, s) && m != "codex-mini-latest" {
			m = strings.TrimSuffix(m, s)
		}
	}
	m = claudeDotVer.ReplaceAllString(m, "$1-$2")
	return m
}

func providerOf(id string) string {
	if strings.HasPrefix(id, "claude") {
		return "anthropic"
	}
	return "openai"
}

func familyOf(id string) string {
	if m := legacyClaude.FindStringSubmatch(id); m != nil {
		return m[3]
	}
	if m := claudeFamily.FindStringSubmatch(id); m != nil {
		return m[1]
	}
	if m := gptFamily.FindStringSubmatch(id); m != nil {
		return "gpt-" + m[1] + m[2]
	}
	return ""
}

// baseFamily drops a variant suffix: gpt-5-codex-mini → gpt-5.
func baseFamily(fam string) string {
	if strings.HasPrefix(fam, "gpt-") {
		if i := strings.Index(fam[4:], "-"); i >= 0 {
			return fam[:4+i]
		}
	}
	return ""
}

// WithJSON is With for overrides as runaway's config holds them: model id →
// the JSON of an Override.
func (t *Table) WithJSON(raw map[string]json.RawMessage) (*Table, error) {
	overrides := make(map[string]Override, len(raw))
	for model, b := range raw {
		var o Override
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return nil, fmt.Errorf("prices: %s: %v (fields: input, output, cache_read, cache_write, cache_write_1h, web_search_per_request)", model, err)
		}
		overrides[model] = o
	}
	return t.With(overrides)
}
