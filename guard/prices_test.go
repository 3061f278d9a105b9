package guard

import (
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
