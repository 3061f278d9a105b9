package guard

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/transcripts"
)

// The hook prices with the imported catalogue when its file is there, and
// with the embedded table when the file is absent or not to be trusted (a
// model priced at nothing would switch the cap off).
func TestPricerReadsTheImportedCatalogue(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "prices.json")
	p := configs.Policy{PricesFile: file}
	u := transcripts.Usage{Input: 1_000_000}
	cost := func() (float64, []error) {
		pr, errs := NewPricer(p)
		usd, _ := pr.Cost("claude-sonnet-4-6", u, time.Time{})
		return usd, errs
	}
	if usd, errs := cost(); usd != 3 || len(errs) != 0 {
		t.Fatalf("no file: $%g %v, want the embedded $3", usd, errs)
	}
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"source":"test","fetched":"2026-12-01","models":[{"id":"claude-sonnet-4-6","provider":"anthropic","family":"sonnet","input":4,"output":20,"cache_read":0.4,"released":"2026-03-11","source":"test","checked":"2026-12-01"}]}`)
	if usd, errs := cost(); usd != 4 || len(errs) != 0 {
		t.Errorf("imported: $%g %v, want $4", usd, errs)
	}
	write(`{"source":"test","fetched":"2026-12-01","models":[{"id":"claude-sonnet-4-6","provider":"anthropic","input":0,"output":0}]}`)
	if usd, errs := cost(); usd != 3 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "priced at nothing") {
		t.Errorf("zero prices: $%g %v, want the embedded $3 and the reason", usd, errs)
	}
	write(`not json`)
	if usd, errs := cost(); usd != 3 || len(errs) != 1 {
		t.Errorf("broken file: $%g %v, want the embedded $3 and an error", usd, errs)
	}
}

// Claude Code's managed modelPricing and its server's model costs change
// runaway's figure as they change Claude Code's: an override row charged
// as written (no fast-mode surcharge), the multiplier on every Claude
// model, server costs for a model runaway's table does not know.
func TestPricerFollowsClaudeCodesPriceSettings(t *testing.T) {
	managed := t.TempDir()
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	old := ClaudeManagedDir
	ClaudeManagedDir = managed
	t.Cleanup(func() { ClaudeManagedDir = old })
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(managed, "managed-settings.json"), `{"modelPricing":{"multiplier":0.5,"overrides":{
		"claude-sonnet-4-6":{"input":2,"output":10,"cacheRead":0.2,"cacheWrite":2.5},
		"my-gateway-opus":{"input":1,"output":1,"cacheRead":1,"cacheWrite":1},
		"claude-haiku-4-5":{"input":-1,"output":1,"cacheRead":1,"cacheWrite":1}}}}`)
	write(filepath.Join(cfg, ".claude.json"), `{"numStartups":3,"additionalModelCostsCache":{"claude-nimbus-1":{"inputTokens":6,"outputTokens":30,"promptCacheWriteTokens":7.5,"promptCacheReadTokens":0.6,"webSearchRequests":0.01}}}`)
	pr, errs := NewPricer(configs.Policy{})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "claude-haiku-4-5") {
		t.Errorf("errors %v, want the invalid haiku row named", errs)
	}
	for _, tt := range []struct {
		model string
		u     transcripts.Usage
		want  float64
		est   bool
	}{
		// the override, 1h writes at its one cache-write rate, fast not on top, then 0.5x
		{"claude-sonnet-4-6-20260101", transcripts.Usage{Input: 1_000_000, CacheWrite1h: 1_000_000, Speed: "fast"}, 0.5 * (2 + 2.5), false},
		// no override: list price, 0.5x
		{"claude-opus-4-8", transcripts.Usage{Input: 1_000_000}, 0.5 * 5, false},
		// the invalid row was left out: list price, 0.5x
		{"claude-haiku-4-5", transcripts.Usage{Input: 1_000_000}, 0.5 * 1, false},
		// an alias only the override names
		{"my-gateway-opus", transcripts.Usage{Input: 1_000_000}, 0.5 * 1, false},
		// the server's costs for a model runaway does not know, 0.5x
		{"claude-nimbus-1", transcripts.Usage{Input: 1_000_000, WebSearch: 1}, 0.5 * (6 + 0.01), false},
		// not a Claude model: no multiplier
		{"gpt-5.5", transcripts.Usage{Input: 1_000_000}, 5, false},
	} {
		usd, est := pr.Cost(tt.model, tt.u, time.Time{})
		if math.Abs(usd-tt.want) > 1e-9 || est != tt.est {
			t.Errorf("%s %+v: $%g (estimated %v), want $%g", tt.model, tt.u, usd, est, tt.want)
		}
	}
}
