package pricing

import (
	"encoding/json"
	"math"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// testDay is the day the tests price at, so that they do not change with
// the calendar (rates that hold for a period are tested in dated_test.go).
var testDay = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func TestCost(t *testing.T) {
	tests := []struct {
		name  string
		model string
		u     Usage
		want  float64
	}{
		{"input and output", "claude-sonnet-4-5-20250929", Usage{Input: 100_000, Output: 10_000}, 0.3 + 0.15},
		{"cache read", "claude-opus-4-5-20251101", Usage{CacheRead: 1_000_000}, 0.5},
		{"cache write without split: 5m rate", "claude-sonnet-4-6", Usage{CacheCreation: 1_000_000}, 3.75},
		{"split: 1h part at 1h rate, rest at 5m", "claude-sonnet-4-6", Usage{CacheCreation: 1_000_000, CacheWrite5m: 300_000, CacheWrite1h: 700_000}, 0.3*3.75 + 0.7*6},
		{"split present but zero: all at 5m", "claude-sonnet-4-6", Usage{CacheCreation: 1_000_000}, 3.75},
		{"total is max(creation, 5m+1h)", "claude-sonnet-4-6", Usage{CacheCreation: 0, CacheWrite5m: 200_000, CacheWrite1h: 500_000}, 0.2*3.75 + 0.5*6},
		{"creation above split: the rest at 5m", "claude-sonnet-4-6", Usage{CacheCreation: 1_000_000, CacheWrite1h: 400_000}, 0.6*3.75 + 0.4*6},
		{"web search per request", "claude-sonnet-4-6", Usage{WebSearch: 3}, 0.03},
		{"us geo on 4.6+: 1.1x tokens, not searches", "claude-opus-4-8", Usage{Input: 1_000_000, WebSearch: 1, Geo: "us"}, 5*1.1 + 0.01},
		{"us geo before 4.6: no premium", "claude-haiku-4-5", Usage{Input: 1_000_000, Geo: "us"}, 1},
		{"fast mode 2x on Opus 4.8", "claude-opus-4-8", Usage{Output: 1_000_000, Speed: "fast"}, 50},
		{"fast on Opus 4.6 bills standard", "claude-opus-4-6", Usage{Output: 1_000_000, Speed: "fast"}, 25},
		{"long context: whole request at premium", "claude-sonnet-4-5", Usage{Input: 150_000, CacheRead: 40_000, CacheCreation: 20_000, Output: 10_000},
			(150_000*6 + 40_000*0.6 + 20_000*7.5 + 10_000*22.5) / 1e6},
		{"long context: at 200k exactly, standard", "claude-sonnet-4-5", Usage{Input: 200_000}, 0.6},
		{"no long-context premium on 4.6", "claude-sonnet-4-6", Usage{Input: 300_000}, 0.9},
		{"codex: cached at cached rate", "gpt-5.1-codex", Usage{Input: 40_000, CacheRead: 60_000, Output: 5_000}, (40_000*1.25 + 60_000*0.125 + 5_000*10) / 1e6},
		{"openai >272K input tier", "gpt-5.4", Usage{Input: 100_000, CacheRead: 200_000, Output: 1_000}, (100_000*5 + 200_000*0.5 + 1_000*22.5) / 1e6},
		{"openai at 272K, standard", "gpt-5.4", Usage{Input: 272_000}, 0.272 * 2.5},
		{"openai cache write rate", "gpt-5.6-sol", Usage{CacheCreation: 100_000}, 0.625},
		{"bedrock spelling", "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", Usage{Input: 1_000_000}, 1},
		{"1m suffix", "claude-opus-5-5[1m]", Usage{Output: 1_000_000}, 20},
		{"gpt-5.5-codex alias", "gpt-5.5-codex", Usage{Output: 1_000_000}, 30},
		{"gemini: cached input at the cached rate, thoughts in output", "gemini-3.8-flash", Usage{Input: 40_000, CacheRead: 60_000, Output: 7_000}, (40_000*0.75 + 60_000*0.075 + 7_000*3.75) / 1e6},
		{"gemini >200K prompt: whole request at the long-context rates", "gemini-2.5-pro", Usage{Input: 150_000, CacheRead: 60_000, Output: 1_000}, (150_000*2.5 + 60_000*0.25 + 1_000*15) / 1e6},
		{"gemini at 200K, standard", "gemini-3.1-pro-preview", Usage{Input: 200_000, Output: 1_000}, (200_000*2 + 1_000*12) / 1e6},
		{"gemini API model path", "models/gemini-2.5-flash", Usage{Input: 1_000_000}, 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default().Cost(tt.model, tt.u, testDay)
			if !near(c.USD, tt.want) {
				t.Errorf("Cost(%s, %+v) = %.9f, want %.9f (priced as %s)", tt.model, tt.u, c.USD, tt.want, c.PricedAs)
			}
			if c.Estimated {
				t.Errorf("%s should be in the table", tt.model)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-4-5-20251101":   "claude-opus-4-5",
		"claude-sonnet-4-5":          "claude-sonnet-4-5",
		"Claude-Sonnet-4-5[1m]":      "claude-sonnet-4-5",
		"claude-3-5-haiku@20241022":  "claude-3-5-haiku",
		"us.anthropic.claude-opus-5": "claude-opus-5",
		"anthropic/claude-opus-4.6":  "claude-opus-4-6",
		"gpt-5.1-codex":              "gpt-5.1-codex",
		"gpt-5-2025-08-07":           "gpt-5",
		"openai/gpt-5.5":             "gpt-5.5",
		"codex-mini-latest":          "codex-mini-latest",
		"claude-opus-4-8-fast":       "claude-opus-4-8",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnknownModelFallback(t *testing.T) {
	tab := Default()
	for model, want := range map[string]string{
		"claude-opus-9-1":                    "claude-opus-5-5", // newest opus by release date
		"claude-sonnet-7":                    "claude-sonnet-5-5",
		"claude-3-9-haiku":                   "claude-haiku-4-5", // older than the newest: the dearest haiku
		"gpt-5.9-codex":                      "gpt-5.6-sol",      // a Codex variant: never below its mainline's newest
		"gpt-5.6-codex":                      "gpt-5.6-sol",      // not newer than gpt-5.6-sol: the dearest of gpt-5 and gpt-5-codex
		"gpt-6.9-codex":                      "gpt-6.2-astra",    // the newest release day's dearest
		"gpt-5.9-codex-ultra":                "gpt-5.6-sol",      // no such family: newest gpt-5
		"gemini-3.9-flash":                   "gemini-3.8-flash",
		"gemini-4-pro-preview":               "gemini-3.1-pro-preview",
		"gemini-3.9-flash-lite":              "gemini-3.5-flash-lite",
		"gemini-3.1-pro-preview-customtools": "gemini-3.1-pro-preview",
	} {
		p, est := tab.Lookup(model)
		if !est || p.ID != want {
			t.Errorf("Lookup(%s) = %s (estimated %v), want %s estimated", model, p.ID, est, want)
		}
	}
	// No family: the most expensive model in the table.
	p, est := tab.Lookup("llama-4")
	if !est {
		t.Fatal("llama-4 is not in the table")
	}
	for _, m := range tab.Models() {
		if m.Input+m.Output > p.Input+p.Output {
			t.Errorf("llama-4 priced as %s, but %s costs more", p.ID, m.ID)
		}
	}
	if c := tab.Cost("claude-opus-9-1", Usage{Input: 1}, testDay); !c.Estimated {
		t.Error("Cost of an unknown model must say estimated")
	}
}

func TestTableEntriesCarrySourcesAndDates(t *testing.T) {
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	seen := map[string]bool{}
	for _, p := range Default().Models() {
		if seen[p.ID] {
			t.Errorf("%s listed twice", p.ID)
		}
		seen[p.ID] = true
		if Normalize(p.ID) != p.ID {
			t.Errorf("%s is not in normal form", p.ID)
		}
		if !date.MatchString(p.Released) || !date.MatchString(p.Checked) {
			t.Errorf("%s: released %q checked %q", p.ID, p.Released, p.Checked)
		}
		src := p.Source
		if i := strings.IndexByte(src, ' '); i > 0 {
			src = src[:i]
		}
		if u, err := url.Parse(src); (err != nil || u.Scheme != "https") && !strings.HasPrefix(p.Source, "Claude Code ") {
			t.Errorf("%s: source %q is neither a URL nor the Claude Code binary", p.ID, p.Source)
		}
		if p.Input <= 0 || p.Output <= 0 || p.CacheRead <= 0 || p.Family == "" {
			t.Errorf("%s: incomplete %+v", p.ID, p)
		}
		if p.Provider == "anthropic" && (p.CacheWrite <= 0 || p.CacheWrite1h <= 0 || p.WebSearch != 0.01) {
			t.Errorf("%s: Anthropic entries need both cache-write rates and web search", p.ID)
		}
	}
	for _, must := range []string{"claude-opus-4-8", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-opus-5", "claude-sonnet-5",
		"claude-opus-5-5", "gpt-5.5", "gpt-5.1-codex", "gpt-5.6-terra", "o3"} {
		if !seen[must] {
			t.Errorf("%s missing from the table", must)
		}
	}
}

func TestOverrides(t *testing.T) {
	var cfg map[string]Override
	err := json.Unmarshal([]byte(`{
		"claude-sonnet-4-6": {"input": 1, "output": 2},
		"my-local-model": {"input": 0.5, "output": 1, "cache_read": 0}
	}`), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Default().With(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Cost("claude-sonnet-4-6-20260101", Usage{Input: 1_000_000, CacheRead: 1_000_000}, testDay); !near(c.USD, 1+0.3) || c.Estimated {
		t.Errorf("override keeps the cache-read rate it did not name: %+v", c)
	}
	if c := tab.Cost("my-local-model", Usage{Input: 1_000_000, CacheRead: 1_000_000, CacheCreation: 1_000_000}, testDay); !near(c.USD, 0.5+0+0.625) || c.Estimated {
		t.Errorf("new model: %+v", c)
	}
	if c := Default().Cost("claude-sonnet-4-6", Usage{Input: 1_000_000}, testDay); !near(c.USD, 3) {
		t.Errorf("With must not change the default table: %v", c.USD)
	}
	for _, bad := range []string{`{"new-model": {"input": 1}}`, `{"gpt-5": {"input": -1}}`} {
		var o map[string]Override
		json.Unmarshal([]byte(bad), &o)
		if _, err := Default().With(o); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

func TestLedgerPricesTheDifference(t *testing.T) {
	tab := Default()
	var l Ledger
	// A response first seen with partial output, then with its final usage
	// that crosses the long-context line only together with the input.
	first := Usage{Input: 150_000, CacheRead: 51_000, Output: 1}
	final := Usage{Input: 150_000, CacheRead: 51_000, Output: 900}
	l.Add(tab, "claude-sonnet-4-5", first, Usage{}, testDay)
	l.Add(tab, "claude-sonnet-4-5", final, first, testDay)
	want := tab.Cost("claude-sonnet-4-5", final, testDay).USD
	if !near(l.CostUSD, want) {
		t.Errorf("ledger %.9f, want the final usage's cost %.9f", l.CostUSD, want)
	}
	ms := l.Models["claude-sonnet-4-5"]
	if ms.OutputTokens != 900 || ms.InputTokens != 150_000 || ms.CacheReadTokens != 51_000 {
		t.Errorf("tokens %+v", ms)
	}
	l.Add(tab, "", Usage{Input: 10}, Usage{}, testDay)
	if !l.Estimated || l.Models[UnknownModel] == nil {
		t.Errorf("usage without a model must be estimated under %s", UnknownModel)
	}
}

// A price set in the config is the price: no US-region or fast-mode
// multiplier on top of it, as the README says.
func TestOverrideUsedAsIs(t *testing.T) {
	tab, err := Default().With(map[string]Override{"claude-opus-4-6": {Input: ptr(1.0), Output: ptr(2.0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []Usage{{Input: 1_000_000, Geo: "us"}, {Input: 1_000_000, Speed: "fast"}} {
		if c := tab.Cost("claude-opus-4-6", u, testDay); !near(c.USD, 1) {
			t.Errorf("%+v: $%.4f, want the set $1.00", u, c.USD)
		}
	}
}

func ptr(v float64) *float64 { return &v }

// Models people still use are in the table, at their list prices.
func TestOlderModelsPricedAtListPrice(t *testing.T) {
	tab := Default()
	for model, want := range map[string][2]float64{ // input, output per million
		"claude-3-5-sonnet-20241022": {3, 15},
		"claude-3-5-sonnet-20240620": {3, 15},
		"claude-3-opus-20240229":     {15, 75},
		"gpt-4o":                     {2.5, 10},
		"gpt-4o-2024-08-06":          {2.5, 10},
		"gpt-4o-mini-2024-07-18":     {0.15, 0.6},
		"gpt-4.1":                    {2, 8},
		"gpt-4.1-mini-2025-04-14":    {0.4, 1.6},
		"gpt-4.1-nano":               {0.1, 0.4},
		"o1":                         {15, 60},
		"o3-mini":                    {1.1, 4.4},
		"o3-pro":                     {20, 80},
		"o3-pro-2025-06-10":          {20, 80},
		"gpt-5-nano":                 {0.05, 0.4},
		"gpt-5-pro":                  {15, 120},
	} {
		p, est := tab.Lookup(model)
		if est || p.Input != want[0] || p.Output != want[1] {
			t.Errorf("%s priced as %s $%g/$%g (estimated %v), want $%g/$%g from the table", model, p.ID, p.Input, p.Output, est, want[0], want[1])
		}
	}
}

// A -fast suffix after a date names the same model.
func TestFastSuffixAfterDate(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-4-6-20260205-fast": "claude-opus-4-6",
		"claude-opus-4-8-fast-20260821": "claude-opus-4-8",
		"claude-opus-4-6-fast":          "claude-opus-4-6",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// An unknown model older than the newest of its family is never priced
// below any model of the family: the newest may be the cheapest.
func TestUnknownOlderModelNeverPricedLower(t *testing.T) {
	tab := Default()
	for _, model := range []string{"claude-3-9-haiku", "claude-sonnet-3-9", "claude-opus-4-3"} {
		p, est := tab.Lookup(model)
		if !est {
			t.Fatalf("%s is in the table", model)
		}
		fam := familyOf(Normalize(model))
		for _, m := range tab.Models() {
			if m.Family == fam && m.Provider == p.Provider && m.Input+m.Output > p.Input+p.Output {
				t.Errorf("%s priced as %s ($%g/$%g), below %s ($%g/$%g)", model, p.ID, p.Input, p.Output, m.ID, m.Input, m.Output)
			}
		}
	}
}
