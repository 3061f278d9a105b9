package pricing

import (
	"encoding/json"
	"fmt"
	"math"
)

// ClaudeCodePricing is what changes the dollars Claude Code itself reports
// (/cost, the status line, total_cost_usd, --max-budget-usd), read from
// its files so that runaway's figure matches the one the person sees. As
// Claude Code 2.1.332's bundled code applies them:
//
//   - managed settings' modelPricing (MDM, managed-settings.json; ignored
//     in user and project settings): overrides, model id → USD per million
//     tokens {input, output, cacheRead, cacheWrite}, charged exactly as
//     written (cacheWrite for 5-minute and 1-hour writes alike, no fast-mode
//     or US surcharge on top); a built-in model's id covers its dated and
//     provider spellings. multiplier in (0, 10] scales every computed cost,
//     overridden or not.
//   - the model costs its server sent (additional_model_costs), which it
//     keeps in its global config (.claude.json) as additionalModelCostsCache.
type ClaudeCodePricing struct {
	Multiplier  float64                    `json:"multiplier,omitempty"`
	Overrides   map[string]ClaudeCodeRates `json:"overrides,omitempty"`
	ServerCosts map[string]ClaudeCodeCosts `json:"-"`
}

// ClaudeCodeRates is one modelPricing.overrides row.
type ClaudeCodeRates struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cacheRead"`
	CacheWrite *float64 `json:"cacheWrite"`
}

// ClaudeCodeCosts is one model's costs as Claude Code's server sends them,
// USD per million tokens (web search: per request).
type ClaudeCodeCosts struct {
	Input        float64 `json:"inputTokens"`
	Output       float64 `json:"outputTokens"`
	CacheWrite   float64 `json:"promptCacheWriteTokens"`
	CacheWrite1h float64 `json:"promptCacheWrite1hTokens"`
	CacheRead    float64 `json:"promptCacheReadTokens"`
	WebSearch    float64 `json:"webSearchRequests"`
	LongPrompt   *struct {
		Above        int64   `json:"abovePromptTokens"`
		Input        float64 `json:"inputTokens"`
		Output       float64 `json:"outputTokens"`
		CacheWrite   float64 `json:"promptCacheWriteTokens"`
		CacheWrite1h float64 `json:"promptCacheWrite1hTokens"`
		CacheRead    float64 `json:"promptCacheReadTokens"`
	} `json:"longPrompt"`
}

// maxClaudeCodeRate is the most a modelPricing rate may be (Claude Code's
// own bound).
const maxClaudeCodeRate = 10_000

// ParseClaudeCodeModelPricing reads a managed settings file's modelPricing
// as Claude Code takes it: an invalid multiplier or row is left out (Claude
// Code reports and skips it), the rest applies.
func ParseClaudeCodeModelPricing(raw json.RawMessage) (ClaudeCodePricing, []error) {
	var cp ClaudeCodePricing
	var problems []error
	var doc struct {
		Multiplier *float64                   `json:"multiplier"`
		Overrides  map[string]json.RawMessage `json:"overrides"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return cp, []error{fmt.Errorf("modelPricing: %v", err)}
	}
	if m := doc.Multiplier; m != nil {
		if *m > 0 && *m <= 10 {
			cp.Multiplier = *m
		} else {
			problems = append(problems, fmt.Errorf("modelPricing.multiplier %g is not in (0, 10]: left out, as Claude Code does", *m))
		}
	}
	for model, b := range doc.Overrides {
		var r ClaudeCodeRates
		err := json.Unmarshal(b, &r)
		ok := err == nil
		for _, v := range []*float64{r.Input, r.Output, r.CacheRead, r.CacheWrite} {
			ok = ok && v != nil && *v >= 0 && *v <= maxClaudeCodeRate && !math.IsNaN(*v)
		}
		if !ok {
			problems = append(problems, fmt.Errorf("modelPricing.overrides.%s: needs input, output, cacheRead and cacheWrite, each 0 to %d: left out, as Claude Code does", model, maxClaudeCodeRate))
			continue
		}
		if cp.Overrides == nil {
			cp.Overrides = map[string]ClaudeCodeRates{}
		}
		cp.Overrides[model] = r
	}
	return cp, problems
}

// Empty reports whether cp changes nothing.
func (cp ClaudeCodePricing) Empty() bool {
	return cp.Multiplier == 0 && len(cp.Overrides) == 0 && len(cp.ServerCosts) == 0
}

// WithClaudeCode is the table priced as Claude Code prices: its server's
// costs for the models it sent, then the managed overrides, then the
// multiplier on every Claude model and every override.
func (t *Table) WithClaudeCode(cp ClaudeCodePricing) *Table {
	if cp.Empty() {
		return t
	}
	models := append([]Price(nil), t.models...)
	index := map[string]int{}
	for k, v := range t.byID {
		index[k] = v
	}
	put := func(id string, p Price) int {
		if i, ok := index[Normalize(id)]; ok {
			p.ID, p.Aliases, p.Family, p.Released = models[i].ID, models[i].Aliases, models[i].Family, models[i].Released
			models[i] = p
			return i
		}
		p.ID, p.Family = Normalize(id), familyOf(Normalize(id))
		models = append(models, p)
		index[p.ID] = len(models) - 1
		return len(models) - 1
	}
	for id, c := range cp.ServerCosts {
		p := Price{Provider: "anthropic", Rates: Rates{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite, CacheWrite1h: c.CacheWrite1h},
			WebSearch: c.WebSearch, Source: "Claude Code's server (additionalModelCostsCache in .claude.json)"}
		if i, ok := index[Normalize(id)]; ok {
			old := models[i]
			p.USMultiplier, p.FastMultiplier, p.Checked = old.USMultiplier, old.FastMultiplier, old.Checked
		}
		if lp := c.LongPrompt; lp != nil && lp.Above > 0 {
			p.LongContext = &LongContext{AboveTokens: lp.Above, Rates: Rates{Input: lp.Input, Output: lp.Output, CacheRead: lp.CacheRead, CacheWrite: lp.CacheWrite, CacheWrite1h: lp.CacheWrite1h}}
		}
		put(id, p)
	}
	overridden := map[int]bool{}
	for id, r := range cp.Overrides {
		web := 0.0
		if i, ok := index[Normalize(id)]; ok {
			web = models[i].WebSearch
		}
		p := Price{Provider: "anthropic", WebSearch: web,
			Rates:  Rates{Input: *r.Input, Output: *r.Output, CacheRead: *r.CacheRead, CacheWrite: *r.CacheWrite, CacheWrite1h: *r.CacheWrite},
			Source: "Claude Code managed settings (modelPricing.overrides)"}
		overridden[put(id, p)] = true
	}
	if cp.Multiplier > 0 {
		for i := range models {
			if models[i].Provider == "anthropic" || overridden[i] {
				models[i].Scale = cp.Multiplier
			}
		}
	}
	return newTable(models)
}
