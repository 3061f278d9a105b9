package pricing

import (
	"os"
	"strings"
	"testing"
)

func readCatalogue(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/litellm-catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// On the models both know, LiteLLM's figures are the embedded table's but
// for two: its 1-hour cache-write rate of Claude 3 Haiku and Claude 3 Opus
// ($6, where Anthropic's page says $0.50 and $30). The comparison is
// printed with -v.
func TestImportedRatesEqualEmbedded(t *testing.T) {
	im, err := ImportLiteLLM(readCatalogue(t), "litellm", "2026-12-01")
	if err != nil {
		t.Fatal(err)
	}
	imported := Default().WithImported(im)
	want := map[string]string{
		"claude-3-haiku": "1h cache write 0.5 → 6",
		"claude-3-opus":  "1h cache write 30 → 6",
	}
	both := 0
	for _, p := range im.Models {
		if _, est := Default().Lookup(p.ID); est {
			continue
		}
		both++
		e := Default().models[Default().byID[p.ID]].At("2026-12-01")
		q := p.At("2026-12-01")
		t.Logf("%-18s embedded %6g %6g %6g %6g %6g | imported %6g %6g %6g %6g %6g", p.ID,
			e.Input, e.Output, e.CacheRead, e.CacheWrite, e.CacheWrite1h, q.Input, q.Output, q.CacheRead, q.CacheWrite, q.CacheWrite1h)
	}
	if both < 12 {
		t.Errorf("%d models both know, want at least 12", both)
	}
	got := map[string]string{}
	for _, c := range Diff(Default(), imported, "2026-12-01") {
		got[c.Model] = c.What
	}
	if got["chatgpt-4o"] == "" || !strings.HasPrefix(got["chatgpt-4o"], "added") {
		t.Errorf("chatgpt-4o: %q, want added", got["chatgpt-4o"])
	}
	delete(got, "chatgpt-4o")
	for m, w := range want {
		if got[m] != w {
			t.Errorf("%s: diff %q, want %q", m, got[m], w)
		}
		delete(got, m)
	}
	for m, w := range got {
		t.Errorf("%s differs: %s", m, w)
	}
	// Other sellers, other providers and image models are passed over.
	for _, p := range im.Models {
		if strings.Contains(p.ID, "llama") || strings.Contains(p.ID, "dall-e") {
			t.Errorf("%s imported", p.ID)
		}
	}
}

// What the catalogue has no field for stays: Opus 4.6's dated 6x fast
// mode (LiteLLM says 6x with no date), Gemini's introductory period (the
// catalogue's figure is the rate of the day it was fetched).
func TestImportKeepsDatedRules(t *testing.T) {
	im, err := ImportLiteLLM(readCatalogue(t), "litellm", "2026-12-01")
	if err != nil {
		t.Fatal(err)
	}
	tab := Default().WithImported(im)
	fast := Usage{Output: 200_000, Speed: "fast"}
	if c := tab.Cost("claude-opus-4-6", fast, at("2026-03-20")); !near(c.USD, 30) {
		t.Errorf("March 2026: $%.2f, want 30", c.USD)
	}
	if c := tab.Cost("claude-opus-4-6", fast, at("2026-12-01")); !near(c.USD, 5) {
		t.Errorf("December 2026: $%.2f, want 5 (the 2026-08 page bills fast mode standard)", c.USD)
	}
	// A Gemini row fetched in the introductory period: the figure goes to
	// that period, and 2027's rate stays.
	gem := Default().models[Default().byID["gemini-3.8-flash"]]
	merged := mergeKnown(gem, Price{Rates: Rates{Input: 0.7, Output: 3.5, CacheRead: 0.07}, Source: "litellm"}, "2026-12-01")
	if d := merged.At("2026-12-31"); d.Input != 0.7 {
		t.Errorf("intro period: input %g, want the catalogue's 0.7", d.Input)
	}
	if d := merged.At("2027-01-01"); d.Input != 1.5 {
		t.Errorf("2027: input %g, want the embedded 1.5", d.Input)
	}
}

// A bad catalogue is refused with the reason.
func TestBadCatalogueRefused(t *testing.T) {
	good := string(readCatalogue(t))
	for name, tt := range map[string]struct{ data, reason string }{
		"not JSON":      {"<html>rate limited</html>", "not a price catalogue"},
		"a list":        {"[1, 2]", "not a price catalogue"},
		"negative":      {strings.Replace(good, `"input_cost_per_token": 3e-06`, `"input_cost_per_token": -3e-06`, 1), "not a price"},
		"absurd":        {strings.Replace(good, `"output_cost_per_token": 1.5e-05`, `"output_cost_per_token": 15`, 1), "not a price"},
		"not a number":  {strings.Replace(good, `"cache_read_input_token_cost": 3e-07`, `"cache_read_input_token_cost": "cheap"`, 1), "not a number"},
		"too few known": {`{"claude-sonnet-4-6": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05}}`, "not LiteLLM's catalogue"},
	} {
		if _, err := ImportLiteLLM([]byte(tt.data), "litellm", "2026-12-01"); err == nil || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: err %v, want %q", name, err, tt.reason)
		}
	}
}

// An imported file that prices a model at nothing is refused: zero prices
// would switch the spend cap off.
func TestParseImportedRefusesZeroPrices(t *testing.T) {
	if _, err := ParseImported([]byte(`{"source":"x","fetched":"2026-12-01","models":[{"id":"claude-sonnet-4-6","provider":"anthropic","input":0,"output":0}]}`)); err == nil {
		t.Fatal("a zero-priced model was taken")
	}
}
