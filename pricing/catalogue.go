package pricing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// LiteLLMURL is where `runaway prices update` fetches the field's shared
// price catalogue (ccusage reads the same file).
const LiteLLMURL = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json"

// Imported is a catalogue taken into runaway's form: the file `runaway
// prices update` writes into runaway's config folder, and the table in use
// is the embedded one with these rows over it.
type Imported struct {
	Source  string  `json:"source"`
	Fetched string  `json:"fetched"` // YYYY-MM-DD
	Models  []Price `json:"models"`
}

// maxRate bounds a sane rate in USD per million tokens (the dearest model
// the embedded table lists is $270 per million, long-context output of
// gpt-5.4-pro): a figure above it is a catalogue error, not a price.
const maxRate = 10_000

// minKnown is how many of the embedded table's models a catalogue must
// price for runaway to take it: fewer, and it is not the catalogue meant.
const minKnown = 10

// liteLLMEntry is the part of one catalogue entry runaway reads, USD per
// token. The long-context (…_above_<N>k_tokens) and tier (…_priority,
// …_flex, …_batches) fields are read by name from the raw entry.
type liteLLMEntry struct {
	Provider string   `json:"litellm_provider"`
	Mode     string   `json:"mode"`
	Input    *float64 `json:"input_cost_per_token"`
	Output   *float64 `json:"output_cost_per_token"`
	// Search is USD per query by context size.
	Search map[string]float64 `json:"search_context_cost_per_query"`
	// Multipliers: "us" (data residency), "fast" (Claude's fast mode).
	Multipliers map[string]float64 `json:"provider_specific_entry"`
}

var liteLLMProviders = map[string]string{"anthropic": "anthropic", "openai": "openai", "gemini": "google"}

// ImportLiteLLM takes LiteLLM's model_prices_and_context_window.json into
// runaway's form, on the day (YYYY-MM-DD) it was fetched, over the
// embedded table: the chat models of Anthropic, OpenAI and Google's Gemini
// API. A model the embedded table knows keeps what the catalogue has no
// field for: its dated periods (the catalogue's figures are the rates of
// the day it was fetched, and go to the period holding that day), its fast
// and data-residency multipliers, its family and release date. Anything
// that does not look like the catalogue (not JSON, a negative or absurd
// rate, too few known models) is refused with the reason; nothing is
// half taken.
func ImportLiteLLM(data []byte, source, day string) (*Imported, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("not a price catalogue (a JSON object of model → prices): %v", err)
	}
	type found struct {
		key   string
		price Price
	}
	byID := map[string]found{}
	known := 0
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if key == "sample_spec" {
			continue
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw[key], &fields) != nil {
			continue // not an object: not a model entry
		}
		var e liteLLMEntry
		if err := json.Unmarshal(raw[key], &e); err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		prov, ok := liteLLMProviders[e.Provider]
		if !ok || (e.Mode != "chat" && e.Mode != "responses") || e.Input == nil || e.Output == nil {
			continue
		}
		// Provider-prefixed duplicates (azure/…, openrouter/…) are other
		// sellers' prices; gemini/… is Google's own.
		if strings.Contains(key, "/") && !strings.HasPrefix(key, "gemini/") {
			continue
		}
		p, err := liteLLMPrice(key, prov, fields, e)
		if err != nil {
			return nil, err
		}
		id := Normalize(key)
		// Of the spellings of one model (claude-sonnet-4-5 and its dated
		// id), the one already in normal form wins.
		if prev, ok := byID[id]; ok && Normalize(prev.key) == prev.key {
			continue
		}
		byID[id] = found{key, p}
	}
	base := Default()
	var out []Price
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		f := byID[id]
		p := f.price
		p.ID, p.Source, p.Checked = id, source+" ("+f.key+")", day
		if i, ok := base.byID[id]; ok {
			known++
			p = mergeKnown(base.models[i], p, day)
		} else {
			p.Family, p.Released = familyOf(id), day
			p.ReleasedSource = "not in runaway's table: the day the catalogue was fetched"
		}
		out = append(out, p)
	}
	if known < minKnown {
		return nil, fmt.Errorf("it prices %d of the models runaway knows (at least %d expected): not LiteLLM's catalogue", known, minKnown)
	}
	return &Imported{Source: source, Fetched: day, Models: out}, nil
}

// liteLLMPrice reads one entry's rates, USD per million tokens.
func liteLLMPrice(key, prov string, fields map[string]json.RawMessage, e liteLLMEntry) (Price, error) {
	perM := func(name string) (float64, bool, error) {
		v, ok := fields[name]
		if !ok || bytes.Equal(v, []byte("null")) {
			return 0, false, nil
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return 0, false, fmt.Errorf("%s: %s is not a number", key, name)
		}
		f = math.Round(f*1e6*1e9) / 1e9 // per million, without float noise (1e-07 → 0.1)
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) || f > maxRate {
			return 0, false, fmt.Errorf("%s: %s is %g USD per million tokens: not a price (0 to %d)", key, name, f, maxRate)
		}
		return f, true, nil
	}
	read := func(suffix string) (r Rates, ok bool, err error) {
		for _, f := range []struct {
			dst  *float64
			name string
		}{
			{&r.Input, "input_cost_per_token" + suffix},
			{&r.Output, "output_cost_per_token" + suffix},
			{&r.CacheRead, "cache_read_input_token_cost" + suffix},
			{&r.CacheWrite, "cache_creation_input_token_cost" + suffix},
		} {
			v, has, err := perM(f.name)
			if err != nil {
				return r, false, err
			}
			*f.dst, ok = v, ok || has
		}
		return r, ok, nil
	}
	r, _, err := read("")
	if err != nil {
		return Price{}, err
	}
	if r.CacheWrite1h, _, err = perM("cache_creation_input_token_cost_above_1hr"); err != nil {
		return Price{}, err
	}
	if r.CacheRead == 0 {
		r.CacheRead = r.Input // no cached rate: cached input as input, never lower
	}
	if r.CacheWrite == 0 && prov == "anthropic" {
		r.CacheWrite = r.Input * 1.25
	}
	p := Price{Provider: prov, Rates: r}
	// Long context: the lowest …_above_<N>k_tokens threshold the entry has.
	above := int64(0)
	for name := range fields {
		rest, ok := strings.CutPrefix(name, "input_cost_per_token_above_")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSuffix(rest, "k_tokens"), 10, 64); err == nil && strings.HasSuffix(rest, "k_tokens") && (above == 0 || n*1000 < above) {
			above = n * 1000
		}
	}
	if above > 0 {
		suffix := fmt.Sprintf("_above_%dk_tokens", above/1000)
		lc, _, err := read(suffix)
		if err != nil {
			return Price{}, err
		}
		if lc.CacheWrite1h, _, err = perM("cache_creation_input_token_cost_above_1hr" + suffix); err != nil {
			return Price{}, err
		}
		p.LongContext = &LongContext{AboveTokens: above, Rates: lc}
	}
	// Tiers as multipliers of the standard rate: the larger of the input
	// and output ratios, so that no part is priced lower than billed.
	for tier, suffix := range map[string]string{TierPriority: "_priority", TierFlex: "_flex", TierBatch: "_batches"} {
		in, hasIn, err := perM("input_cost_per_token" + suffix)
		if err != nil {
			return Price{}, err
		}
		out, hasOut, err := perM("output_cost_per_token" + suffix)
		if err != nil {
			return Price{}, err
		}
		m := 0.0
		if hasIn && r.Input > 0 {
			m = in / r.Input
		}
		if hasOut && r.Output > 0 {
			m = max(m, out/r.Output)
		}
		if m > 0 {
			if p.Tiers == nil {
				p.Tiers = map[string]float64{}
			}
			p.Tiers[tier] = round6(m)
		}
	}
	for _, v := range e.Search {
		if v < 0 || v > maxRate {
			return Price{}, fmt.Errorf("%s: search_context_cost_per_query %g is not a price", key, v)
		}
		p.WebSearch = max(p.WebSearch, v)
	}
	if p.PerRequest, _, err = perM("input_cost_per_request"); err != nil {
		return Price{}, err
	}
	p.PerRequest /= 1e6 // a fee per request, not per token
	for name, v := range e.Multipliers {
		if v < 0 || v > 100 {
			return Price{}, fmt.Errorf("%s: provider_specific_entry.%s %g is not a multiplier", key, name, v)
		}
	}
	p.USMultiplier, p.FastMultiplier = e.Multipliers["us"], e.Multipliers["fast"]
	return p, nil
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// mergeKnown is an embedded row with a catalogue's rates of the day: they
// go to the period that holds the day (the row's own, or a dated one);
// every other period, the multipliers, family and release stay.
func mergeKnown(known, cat Price, day string) Price {
	p := known
	p.Source, p.Checked = cat.Source, cat.Checked
	p.Dated = append([]Dated(nil), known.Dated...)
	placed := false
	for i, d := range p.Dated {
		if d.Holds(day) {
			d.Rates, d.Source = fillRates(cat.Rates, d.Rates), cat.Source
			if cat.LongContext != nil {
				d.LongContext = cat.LongContext
			}
			p.Dated[i], placed = d, true
		}
	}
	if !placed {
		p.Rates = fillRates(cat.Rates, known.Rates)
		if cat.LongContext != nil {
			p.LongContext = cat.LongContext
		}
	}
	if len(cat.Tiers) > 0 {
		p.Tiers = map[string]float64{}
		for k, v := range known.Tiers {
			p.Tiers[k] = v
		}
		for k, v := range cat.Tiers {
			p.Tiers[k] = v
		}
	}
	if cat.WebSearch > 0 {
		p.WebSearch = cat.WebSearch
	}
	if cat.PerRequest > 0 {
		p.PerRequest = cat.PerRequest
	}
	return p
}

// fillRates is the catalogue's rates, with the ones it leaves out (a 1-hour
// cache write) taken from the embedded row.
func fillRates(cat, known Rates) Rates {
	if cat.CacheWrite1h == 0 {
		cat.CacheWrite1h = known.CacheWrite1h
	}
	if cat.CacheWrite == 0 {
		cat.CacheWrite = known.CacheWrite
	}
	return cat
}

// WithImported is the table with an imported catalogue's rows over it: a
// row for a model the table has replaces it, the others are added.
func (t *Table) WithImported(im *Imported) *Table {
	if im == nil || len(im.Models) == 0 {
		return t
	}
	models := append([]Price(nil), t.models...)
	for _, p := range im.Models {
		if i, ok := t.byID[Normalize(p.ID)]; ok {
			models[i] = p
		} else {
			models = append(models, p)
		}
	}
	return newTable(models)
}

// ParseImported reads the file `runaway prices update` wrote.
func ParseImported(data []byte) (*Imported, error) {
	var im Imported
	if err := json.Unmarshal(data, &im); err != nil {
		return nil, err
	}
	for _, p := range im.Models {
		for _, v := range []float64{p.Input, p.Output, p.CacheRead, p.CacheWrite, p.CacheWrite1h, p.WebSearch, p.PerRequest} {
			if v < 0 || v > maxRate || math.IsNaN(v) {
				return nil, fmt.Errorf("%s: a rate of %g is not a price", p.ID, v)
			}
		}
		if p.Input <= 0 && p.Output <= 0 {
			// Zero prices switch the cap off: never taken from a file.
			return nil, fmt.Errorf("%s: priced at nothing", p.ID)
		}
	}
	return &im, nil
}

// Change is one difference between two tables.
type Change struct {
	Model string
	What  string // "added", "removed", or the fields that changed
}

// Diff lists what changed from table a to b, model by model, at the day's
// rates.
func Diff(a, b *Table, day string) []Change {
	var out []Change
	seen := map[string]bool{}
	for _, q := range b.models {
		seen[q.ID] = true
		i, ok := a.byID[Normalize(q.ID)]
		if !ok {
			out = append(out, Change{q.ID, fmt.Sprintf("added: %s", ratesText(q.At(day).Rates))})
			continue
		}
		p := a.models[i].At(day)
		qd := q.At(day)
		var parts []string
		for _, f := range []struct {
			name   string
			pv, qv float64
		}{
			{"input", p.Input, qd.Input}, {"output", p.Output, qd.Output}, {"cache read", p.CacheRead, qd.CacheRead},
			{"cache write", p.CacheWrite, qd.CacheWrite}, {"1h cache write", p.CacheWrite1h, qd.CacheWrite1h},
			{"web search", p.WebSearch, qd.WebSearch},
		} {
			if math.Abs(f.pv-f.qv) > 1e-9 {
				parts = append(parts, fmt.Sprintf("%s %s → %s", f.name, num(f.pv), num(f.qv)))
			}
		}
		if (p.LongContext == nil) != (qd.LongContext == nil) || (p.LongContext != nil && *p.LongContext != *qd.LongContext) {
			parts = append(parts, "long-context rule")
		}
		for _, tier := range []string{TierPriority, TierFlex, TierBatch} {
			if pm, qm := p.TierMultiplier(tier), qd.TierMultiplier(tier); math.Abs(pm-qm) > 1e-9 {
				parts = append(parts, fmt.Sprintf("%s %s× → %s×", tier, num(pm), num(qm)))
			}
		}
		if len(parts) > 0 {
			out = append(out, Change{q.ID, strings.Join(parts, ", ")})
		}
	}
	for _, p := range a.models {
		if !seen[p.ID] {
			if _, ok := b.byID[Normalize(p.ID)]; !ok {
				out = append(out, Change{p.ID, "removed"})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

func ratesText(r Rates) string {
	return fmt.Sprintf("$%s in, $%s out, $%s cache read", num(r.Input), num(r.Output), num(r.CacheRead))
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
