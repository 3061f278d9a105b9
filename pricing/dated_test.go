package pricing

import (
	"testing"
	"time"
)

func at(day string, hms ...int) time.Time {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		panic(err)
	}
	if len(hms) == 3 {
		t = t.Add(time.Duration(hms[0])*time.Hour + time.Duration(hms[1])*time.Minute + time.Duration(hms[2])*time.Second)
	}
	return t
}

// Gemini 3.6/3.7/3.8 Flash: introductory rates through 2026-12-31, double
// from 2027-01-01. A session that spans the new year pays both, each
// response at the rate of its own time (UTC).
func TestGeminiFlashIntroductoryRatesEndOn2027(t *testing.T) {
	u := Usage{Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000}
	for _, model := range []string{"gemini-3.6-flash", "gemini-3.7-flash", "gemini-3.8-flash"} {
		before := Default().Cost(model, u, at("2026-12-31", 23, 59, 59)).USD
		after := Default().Cost(model, u, at("2027-01-01", 0, 0, 1)).USD
		if !near(before, 0.75+3.75+0.075) || !near(after, 1.50+7.50+0.15) {
			t.Errorf("%s: $%.4f on 2026-12-31, $%.4f on 2027-01-01; want 4.575 and 9.15", model, before, after)
		}
	}
	// One session across midnight: two responses, one each side.
	var l Ledger
	l.Add(Default(), "gemini-3.8-flash", Usage{Input: 1_000_000}, Usage{}, at("2026-12-31", 23, 58, 0))
	l.Add(Default(), "gemini-3.8-flash", Usage{Input: 1_000_000}, Usage{}, at("2027-01-01", 0, 2, 0))
	if !near(l.CostUSD, 0.75+1.50) {
		t.Errorf("session across the new year: $%.4f, want $2.25 (0.75 + 1.50)", l.CostUSD)
	}
	// A time in another zone is the UTC day.
	berlin := time.FixedZone("CET", 3600)
	if c := Default().Cost("gemini-3.8-flash", Usage{Input: 1_000_000}, time.Date(2027, 1, 1, 0, 30, 0, 0, berlin)); !near(c.USD, 0.75) {
		t.Errorf("00:30 CET on 2027-01-01 is 2026-12-31 UTC: $%.4f, want 0.75", c.USD)
	}
}

// Opus 4.6's fast mode billed 6x ($30/$150) in March 2026 and standard on
// the 2026-08-21 page; above 200K input it billed $10/$37.50 until the
// premium went (2026-03-14).
func TestOpus46AtItsDaysRates(t *testing.T) {
	fast := Usage{Output: 200_000, Speed: "fast"}
	for _, tt := range []struct {
		day  string
		u    Usage
		want float64
	}{
		{"2026-03-05", fast, 30},
		{"2026-05-01", fast, 30},
		{"2026-08-21", fast, 5},
		{"2026-12-01", fast, 5},
		{"2026-03-05", Usage{Input: 300_000}, 3},
		{"2026-03-20", Usage{Input: 300_000}, 1.5},
		{"2026-03-05", Usage{Input: 300_000, Speed: "fast"}, 18},
	} {
		if c := Default().Cost("claude-opus-4-6", tt.u, at(tt.day)); !near(c.USD, tt.want) {
			t.Errorf("opus 4.6 on %s %+v: $%.4f, want $%g", tt.day, tt.u, c.USD, tt.want)
		}
	}
	if c := Default().Cost("claude-sonnet-4-6", Usage{Input: 300_000}, at("2026-03-10")); !near(c.USD, 1.8) {
		t.Errorf("sonnet 4.6 above 200K before 2026-03-14: $%.4f, want 1.80", c.USD)
	}
}

// Every dated period of the table is well formed, and no two of a row
// hold the same day.
func TestDatedPeriodsAreWellFormed(t *testing.T) {
	valid := func(s string) bool {
		if s == "" {
			return true
		}
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	}
	for _, p := range Default().Models() {
		periods := []Period{p.Period}
		for _, d := range p.Dated {
			if d.Source == "" || d.Input <= 0 || d.Output <= 0 {
				t.Errorf("%s: dated %+v has no source or no rates", p.ID, d)
			}
			periods = append(periods, d.Period)
		}
		for i, a := range periods {
			if !valid(a.From) || !valid(a.Until) || (a.From != "" && a.Until != "" && a.From > a.Until) {
				t.Errorf("%s: period %+v", p.ID, a)
			}
			for _, b := range periods[i+1:] {
				if (a.Until == "" || b.From == "" || b.From <= a.Until) && (b.Until == "" || a.From == "" || a.From <= b.Until) {
					t.Errorf("%s: periods %+v and %+v overlap", p.ID, a, b)
				}
			}
		}
	}
}

// Service tiers as OpenAI bills them: priority (Codex's fast mode) 2x on
// the GPT-5 and GPT-6 lines, 2.5x on gpt-5.5, flex and batch half.
func TestServiceTiers(t *testing.T) {
	u := Usage{Input: 40_000, CacheRead: 60_000, Output: 5_000}
	std := (40_000*5 + 60_000*0.5 + 5_000*30) / 1e6
	for _, tt := range []struct {
		model, tier string
		want        float64
	}{
		{"gpt-5.5", "", std},
		{"gpt-5.5", "default", std},
		{"gpt-5.5", "priority", 2.5 * std},
		{"gpt-5.5", "fast", 2.5 * std},
		{"gpt-5.5", "flex", 0.5 * std},
		{"gpt-5.5", "batch", 0.5 * std},
		{"gpt-5.5", "some-new-tier", 2.5 * std}, // unknown: the dearest tier
		{"gpt-6.2-sol", "priority", 2 * (40_000*2 + 60_000*0.1 + 5_000*10) / 1e6},
		{"gpt-4.1", "priority", 1.75 * (40_000*2 + 60_000*0.5 + 5_000*8) / 1e6},
		{"claude-sonnet-4-6", "batch", 0.5 * (40_000*3 + 60_000*0.3 + 5_000*15) / 1e6},
		{"claude-sonnet-4-6", "priority", (40_000*3 + 60_000*0.3 + 5_000*15) / 1e6}, // Anthropic's Priority Tier is a commitment, billed at list
	} {
		v := u
		v.Tier = tt.tier
		if c := Default().Cost(tt.model, v, testDay); !near(c.USD, tt.want) {
			t.Errorf("%s tier %q: $%.6f, want $%.6f", tt.model, tt.tier, c.USD, tt.want)
		}
	}
}

// The GPT-6 line Codex 0.171 runs by default, with its long-context rule:
// a request above 272K input is billed whole at 2x input, 1.5x output.
func TestGPT6Models(t *testing.T) {
	for _, tt := range []struct {
		model string
		u     Usage
		want  float64
	}{
		{"gpt-6.2-sol", Usage{Input: 100_000, CacheRead: 100_000, Output: 10_000}, (100_000*2 + 100_000*0.1 + 10_000*10) / 1e6},
		{"gpt-6.2-sol", Usage{Input: 200_000, CacheRead: 100_000, Output: 10_000}, (200_000*4 + 100_000*0.2 + 10_000*15) / 1e6},
		{"gpt-6.2-sol", Usage{Input: 272_000}, 0.272 * 2},
		{"gpt-6.2-astra", Usage{Input: 100_000, Output: 100_000}, 0.8 + 4},
		{"gpt-6.2-astra", Usage{Input: 300_000}, 0.3 * 16},
		{"gpt-6-astra", Usage{Input: 300_000, Output: 1_000}, 0.3*20 + 0.001*75},
		{"gpt-6.1-sol", Usage{CacheRead: 100_000}, 0.01},
		{"gpt-6.1-sol", Usage{CacheRead: 300_000}, 0.06},
	} {
		c := Default().Cost(tt.model, tt.u, testDay)
		if c.Estimated || !near(c.USD, tt.want) {
			t.Errorf("%s %+v: $%.6f (estimated %v), want $%.6f", tt.model, tt.u, c.USD, c.Estimated, tt.want)
		}
	}
}

// An unknown model is never priced below the newest known model of its
// line: gpt-5.6-codex was priced like gpt-5.3-codex ($1.75/$14), a third
// of gpt-5.5-codex ($5/$30).
func TestUnknownModelNotBelowNewestKnown(t *testing.T) {
	u := Usage{Input: 100_000, Output: 100_000}
	for model, newest := range map[string][]string{
		"gpt-5.6-codex": {"gpt-5.5-codex", "gpt-5.5", "gpt-5.3-codex"},
		"gpt-6.9-codex": {"gpt-6.2-sol", "gpt-6.2-astra"},
		"gpt-6.3-sol":   {"gpt-6.2-sol"},
		"gpt-6.9":       {"gpt-6.2-sol", "gpt-6.2-astra"},
	} {
		c := Default().Cost(model, u, testDay)
		if !c.Estimated {
			t.Errorf("%s is in the table", model)
		}
		for _, known := range newest {
			if k := Default().Cost(known, u, testDay); c.USD < k.USD-1e-9 {
				t.Errorf("%s priced $%.2f as %s, below %s at $%.2f", model, c.USD, c.PricedAs, known, k.USD)
			}
		}
	}
}

// A per-request fee is added once per response: not again when a later
// record of the same response grows its usage.
func TestPerRequestFeeOncePerResponse(t *testing.T) {
	tab := newTable([]Price{{ID: "m", Provider: "openai", Family: "m", Rates: Rates{Input: 1, Output: 1, CacheRead: 1}, PerRequest: 0.5}})
	var l Ledger
	l.Add(tab, "m", Usage{Input: 1}, Usage{}, testDay)
	l.Add(tab, "m", Usage{Input: 2}, Usage{Input: 1}, testDay)
	if !near(l.CostUSD, 0.5+2e-6) {
		t.Errorf("$%.7f, want 0.5000020", l.CostUSD)
	}
}
