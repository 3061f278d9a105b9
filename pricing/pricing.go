// Package pricing prices the token use of one API response in USD.
//
// The table is compiled in (table.go, generated from prices.json by
// gentable: every Claude and OpenAI model the references list, and the Gemini models of Google's pricing page, each with its source URL, the date it was checked, and its
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
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync/atomic"
	"time"
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
	// Tier is the service tier the request asked for: "priority" (Codex's
	// fast mode), "flex", "batch"; empty is standard.
	Tier string `json:"tier,omitempty"`
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

// Period is the days a rate holds, From and Until included (YYYY-MM-DD,
// UTC); an empty end is open.
type Period struct {
	From  string `json:"from,omitempty"`
	Until string `json:"until,omitempty"`
}

// Holds reports whether the day (YYYY-MM-DD) is in the period.
func (p Period) Holds(day string) bool {
	return (p.From == "" || day >= p.From) && (p.Until == "" || day <= p.Until)
}

// Dated is a model's rates for a period other than the row's own: an
// introductory price, a rule that changed. It replaces the row's token
// rates, fast multiplier and long-context rule whole.
type Dated struct {
	Period
	Rates
	FastMultiplier float64      `json:"fast_multiplier,omitempty"`
	LongContext    *LongContext `json:"long_context,omitempty"`
	Source         string       `json:"source"`
	Note           string       `json:"note,omitempty"`
}

// Price is one model's entry in the table.
type Price struct {
	ID       string   `json:"id"`
	Provider string   `json:"provider"` // "anthropic", "openai" or "google"
	Family   string   `json:"family"`
	Aliases  []string `json:"aliases,omitempty"`
	// Period is when the row's own rates hold; Dated holds the others. A
	// response is priced at the rates of its own day.
	Period
	Rates
	Dated     []Dated `json:"dated,omitempty"`
	WebSearch float64 `json:"web_search_per_request,omitempty"`
	// PerRequest is a fee per request, on top of the tokens.
	PerRequest float64 `json:"per_request,omitempty"`
	// USMultiplier applies to every token when Claude's inference_geo is
	// "us"; FastMultiplier to every token of a fast-mode request.
	USMultiplier   float64      `json:"us_multiplier,omitempty"`
	FastMultiplier float64      `json:"fast_multiplier,omitempty"`
	LongContext    *LongContext `json:"long_context,omitempty"`
	// Tiers are the service tiers' multipliers of every token rate where
	// they differ from the provider's (see TierMultiplier).
	Tiers map[string]float64 `json:"tiers,omitempty"`
	// Scale multiplies the whole cost: Claude Code's managed
	// modelPricing.multiplier (a contracted discount or markup).
	Scale          float64 `json:"scale,omitempty"`
	Released       string  `json:"released"`
	ReleasedSource string  `json:"released_source,omitempty"`
	Source         string  `json:"source"`
	Checked        string  `json:"checked"`
	Note           string  `json:"note,omitempty"`
}

// At is the price as it was on the day (YYYY-MM-DD): the row with the
// rates of the dated period that holds the day, if one does.
func (p Price) At(day string) Price {
	for _, d := range p.Dated {
		if d.Holds(day) {
			p.Rates, p.FastMultiplier, p.LongContext = d.Rates, d.FastMultiplier, d.LongContext
			p.Period = d.Period
			p.Dated = nil
			return p
		}
	}
	return p
}

// Service tiers as the agents write them.
const (
	TierPriority = "priority"
	TierFlex     = "flex"
	TierBatch    = "batch"
)

// providerTiers are the tier multipliers each provider bills unless a
// model's row says otherwise. OpenAI: priority processing is 2x the
// standard rate on the GPT-5 and GPT-6 lines (https://openai.com/api-priority-processing/,
// apidog's GPT-6 Astra guide citing OpenAI's model page: "Batch and Flex
// are half price, Fast mode is double"); Anthropic and Google: the batch
// API is half price (the Claude pricing page's "Batch processing";
// Google's pricing page).
var providerTiers = map[string]map[string]float64{
	"openai":    {TierPriority: 2, TierFlex: 0.5, TierBatch: 0.5},
	"anthropic": {TierBatch: 0.5},
	"google":    {TierBatch: 0.5},
}

// TierMultiplier is what the tier multiplies every token rate by. Standard
// ("", "default", "standard", "auto") is 1; "fast" is Codex's name for
// priority; a tier runaway does not know is priced like the dearest tier
// the model has, never lower than standard.
func (p Price) TierMultiplier(tier string) float64 {
	switch tier {
	case "", "default", "standard", "auto":
		return 1
	case "fast":
		tier = TierPriority
	}
	if m, ok := p.Tiers[tier]; ok {
		return m
	}
	if m, ok := providerTiers[p.Provider][tier]; ok {
		return m
	}
	dearest := 1.0
	for _, set := range []map[string]float64{providerTiers[p.Provider], p.Tiers} {
		for _, m := range set {
			dearest = max(dearest, m)
		}
	}
	return dearest
}

// Table is a set of prices. Its methods are safe for concurrent use.
type Table struct {
	models []Price
	byID   map[string]int // normalised id or alias → index in models
	// last is the most recent lookup: a session names one or two models,
	// and a replay prices tens of thousands of responses.
	last atomic.Pointer[lookup]
}

type lookup struct {
	model     string
	price     *Price
	estimated bool
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
		p.LongContext, p.USMultiplier, p.FastMultiplier, p.Dated, p.Scale = nil, 0, 0, nil, 0
		p.Source, p.Checked = "runaway config (prices)", ""
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

// Cost prices usage u of model at the rates of the day at falls on (UTC);
// a zero at is today.
func (t *Table) Cost(model string, u Usage, at time.Time) Cost {
	p, estimated := t.lookup(model)
	return Cost{USD: p.At(Day(at)).cost(u), PricedAs: p.ID, Estimated: estimated}
}

// Day is the UTC day of at as the table's periods write it; a zero at is
// today.
func Day(at time.Time) string {
	if at.IsZero() {
		at = time.Now()
	}
	return at.UTC().Format(time.DateOnly)
}

// Lookup returns the price used for model and whether it is an estimate.
func (t *Table) Lookup(model string) (Price, bool) {
	p, est := t.lookup(model)
	return *p, est
}

func (t *Table) lookup(model string) (*Price, bool) {
	if l := t.last.Load(); l != nil && l.model == model {
		return l.price, l.estimated
	}
	l := &lookup{model: model}
	id := Normalize(model)
	if i, ok := t.byID[id]; ok {
		l.price = &t.models[i]
	} else {
		l.price, l.estimated = &t.models[t.fallback(id)], true
	}
	t.last.Store(l)
	return l.price, l.estimated
}

// fallback is the index of the price used for an id not in the table,
// chosen among its family's models (opus, gpt-5-mini, …). A Codex variant
// (gpt-<major>-codex) is also compared with its major's mainline, as
// OpenAI prices them alike (gpt-5.5-codex is gpt-5.5): gpt-5.6-codex is
// never priced below gpt-5.5. A family with no model in the table stands
// in for its major (gpt-6.9-ultra: the gpt-6 line).
//
// A model newer than every model compared (by the version in its id) is a
// new release: priced like the newest of them, the dearest of those
// released that day. Any other is priced like the dearest of them, since
// the newest may be the cheapest and, when unsure, runaway never prices
// lower. Without a family: the most expensive model in the table.
func (t *Table) fallback(id string) int {
	fam, prov := familyOf(id), providerOf(id)
	base := baseFamily(fam)
	codex := base != "" && fam == base+"-codex"
	v := versionOf(id)
	for _, try := range []string{fam, base} {
		if try == "" {
			continue
		}
		newest, dearest := -1, -1
		var top []int
		for i, p := range t.models {
			if p.Provider != prov || (p.Family != try && !(codex && try == fam && p.Family == base)) {
				continue
			}
			if newest < 0 || newer(p, t.models[newest]) {
				newest = i
			}
			if dearest < 0 || dearer(p, t.models[dearest]) {
				dearest = i
			}
			if pv := versionOf(p.ID); compareVersions(pv, top) > 0 {
				top = pv
			}
		}
		if newest < 0 {
			continue
		}
		if v != nil && compareVersions(v, top) > 0 {
			// The dearest of the newest release day's models.
			pick := newest
			for i, p := range t.models {
				if p.Provider == prov && p.Released == t.models[newest].Released &&
					(p.Family == try || (codex && try == fam && p.Family == base)) && dearer(p, t.models[pick]) {
					pick = i
				}
			}
			return pick
		}
		return dearest
	}
	best := -1
	for i, p := range t.models {
		if best < 0 || p.Input+p.Output > t.models[best].Input+t.models[best].Output {
			best = i
		}
	}
	return best
}

// dearer reports whether a costs more than b (input + output), the newer
// on a tie.
func dearer(a, b Price) bool {
	if a.Input+a.Output != b.Input+b.Output {
		return a.Input+a.Output > b.Input+b.Output
	}
	return newer(a, b)
}

// versionOf is the version in a model id: its runs of one or two digits
// (claude-3-5-sonnet and claude-sonnet-3-5 → 3.5, gpt-5.1-codex → 5.1,
// o3-pro → 3); longer runs are dates. Nil when the id has none.
func versionOf(id string) []int {
	var v []int
	for i := 0; i < len(id); {
		n := digits(id[i:])
		if n == 0 {
			i++
			continue
		}
		if n <= 2 {
			x := 0
			for _, c := range id[i : i+n] {
				x = x*10 + int(c-'0')
			}
			v = append(v, x)
		}
		i += n
	}
	return v
}

// compareVersions compares two versions part by part, a missing part as 0.
func compareVersions(a, b []int) int {
	for i := range max(len(a), len(b)) {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x > y {
				return 1
			}
			return -1
		}
	}
	return 0
}

func newer(a, b Price) bool {
	if a.Released != b.Released {
		return a.Released > b.Released
	}
	return a.ID > b.ID
}

func (p Price) cost(u Usage) float64 {
	cw := u.CacheWrite()
	if u.Input+u.Output+u.CacheRead+cw+u.WebSearch == 0 {
		// No request, no fee (the ledger prices a response's growth as
		// cost(now) − cost(counted before), counted being zero at first).
		return 0
	}
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
	usd *= p.TierMultiplier(u.Tier)
	usd += float64(u.WebSearch)*p.WebSearch + p.PerRequest
	if p.Scale > 0 {
		usd *= p.Scale
	}
	return usd
}

// The model-id rules below are written out by hand rather than as regular
// expressions: the hook links this package, and Go compiles a package's
// regexps at every process start (pricing_test.go checks them against the
// regexps they replace).

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
	m = trimBedrockVersion(m)
	// -fast and -latest come before or after a date.
	m = trimDate(trimSuffixes(m))
	return claudeDotVersion(trimSuffixes(m))
}

// trimSuffixes drops -latest and -fast (codex-mini-latest is a model's
// name).
func trimSuffixes(m string) string {
	for _, s := range []string{"-latest", "-fast"} {
		if strings.HasSuffix(m, s) && m != "codex-mini-latest" {
			m = strings.TrimSuffix(m, s)
		}
	}
	return m
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// digits is the length of the run of digits at the start of s.
func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// allDigits reports whether s is n digits.
func allDigits(s string, n int) bool { return len(s) == n && digits(s) == n }

// trimBedrockVersion drops a trailing -v<n> or -v<n>:<n> (Bedrock's -v1:0).
func trimBedrockVersion(m string) string {
	i := strings.LastIndex(m, "-v")
	if i < 0 {
		return m
	}
	rest := m[i+2:]
	n := digits(rest)
	if n == 0 {
		return m
	}
	if rest = rest[n:]; rest != "" && (rest[0] != ':' || !allDigits(rest[1:], len(rest)-1) || len(rest) == 1) {
		return m
	}
	return m[:i]
}

// trimDate drops a trailing -YYYYMMDD, @YYYYMMDD or -YYYY-MM-DD.
func trimDate(m string) string {
	if n := len(m); n >= 9 && (m[n-9] == '-' || m[n-9] == '@') && allDigits(m[n-8:], 8) {
		return m[:n-9]
	}
	if n := len(m); n >= 11 && m[n-11] == '-' && allDigits(m[n-10:n-6], 4) && m[n-6] == '-' &&
		allDigits(m[n-5:n-3], 2) && m[n-3] == '-' && allDigits(m[n-2:], 2) {
		return m[:n-11]
	}
	return m
}

// claudeDotVersion writes claude-<name>-<d>.<d> as claude-<name>-<d>-<d>,
// wherever it occurs.
func claudeDotVersion(m string) string {
	var b []byte
	for i := 0; i+len("claude-") <= len(m); {
		j := strings.Index(m[i:], "claude-")
		if j < 0 {
			break
		}
		i += j
		k := i + len("claude-")
		for k < len(m) && isLower(m[k]) {
			k++
		}
		if k > i+len("claude-") && k+3 < len(m) && m[k] == '-' && isDigit(m[k+1]) && m[k+2] == '.' && isDigit(m[k+3]) {
			if b == nil {
				b = []byte(m)
			}
			b[k+2] = '-'
			i = k + 4
			continue
		}
		i++
	}
	if b == nil {
		return m
	}
	return string(b)
}

func providerOf(id string) string {
	switch {
	case strings.HasPrefix(id, "claude"):
		return "anthropic"
	case strings.HasPrefix(id, "gemini"):
		return "google"
	}
	return "openai"
}

// geminiFamily is gemini-pro, gemini-flash or gemini-flash-lite for a
// Gemini model id (gemini-<version>-<variant>[-preview…]), else "".
func geminiFamily(id string) string {
	rest, ok := strings.CutPrefix(id, "gemini-")
	if !ok {
		return ""
	}
	rest = strings.TrimLeft(rest, "0123456789.")
	rest, ok = strings.CutPrefix(rest, "-")
	if !ok {
		return ""
	}
	for _, v := range []string{"flash-lite", "flash", "pro"} {
		if rest == v || strings.HasPrefix(rest, v+"-") {
			return "gemini-" + v
		}
	}
	return ""
}

// familyOf is a model id's family: opus, sonnet, haiku, … for Claude
// (claude-3-5-sonnet and claude-sonnet-4 alike), gpt-<major>[-variant] for
// OpenAI (gpt-5.1-codex-mini → gpt-5-codex-mini), gemini-pro, gemini-flash
// or gemini-flash-lite for Gemini; "" when it has none.
func familyOf(id string) string {
	if f := geminiFamily(id); f != "" {
		return f
	}
	if rest, ok := strings.CutPrefix(id, "claude-"); ok {
		// The older naming: claude-<d>[-<d>]-<family>.
		if n := digits(rest); n == 1 {
			r := rest[1:]
			if len(r) >= 2 && r[0] == '-' && digits(r[1:]) == 1 {
				r = r[2:]
			}
			if r, ok := strings.CutPrefix(r, "-"); ok {
				for _, f := range []string{"opus", "sonnet", "haiku"} {
					if strings.HasPrefix(r, f) {
						return f
					}
				}
			}
		}
		for _, f := range []string{"opus", "sonnet", "haiku", "fable", "mythos"} {
			if strings.HasPrefix(rest, f) {
				return f
			}
		}
		return ""
	}
	rest, ok := strings.CutPrefix(id, "gpt-")
	n := digits(rest)
	if !ok || n == 0 {
		return ""
	}
	major, rest := rest[:n], rest[n:]
	if r, ok := strings.CutPrefix(rest, "."); ok {
		if d := digits(r); d > 0 {
			rest = r[d:]
		}
	}
	// The variant: any number of -<letters>, and nothing else.
	for r := rest; r != ""; {
		if r[0] != '-' {
			return ""
		}
		k := 1
		for k < len(r) && isLower(r[k]) {
			k++
		}
		if k == 1 {
			return ""
		}
		r = r[k:]
	}
	return "gpt-" + major + rest
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
