package guard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/transcripts"
)

// tablePricer prices transcripts' usage with a price table.
type tablePricer struct{ t *pricing.Table }

func (p tablePricer) Cost(model string, u transcripts.Usage, at time.Time) (float64, bool) {
	c := p.t.Cost(model, pricing.Usage(u), at)
	return c.USD, c.Estimated
}

// Table is the pricer's table.
func (p tablePricer) Table() *pricing.Table { return p.t }

// NewPricer is the table in use: the embedded one, with the catalogue
// `runaway prices update` imported over it when its file is there, Claude
// Code's own price settings (its managed modelPricing, its server's model
// costs) over that, and the policy's overrides over all. A part that cannot be read is left out and
// its error returned: the embedded table always prices.
func NewPricer(p configs.Policy) (Pricer, []error) {
	t, _, err := TableInUse(p)
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	return tablePricer{t}, errs
}

// TableInUse is NewPricer's table, and the imported catalogue it holds (nil
// for none).
func TableInUse(p configs.Policy) (*pricing.Table, *pricing.Imported, error) {
	t := pricing.Default()
	var problems []error
	im, err := ReadImported(p.PricesFile)
	if err != nil {
		problems = append(problems, err)
	}
	t = t.WithImported(im)
	cp, errs := readClaudeCodePricing(ClaudeManagedDir, os.Getenv)
	problems = append(problems, errs...)
	t = t.WithClaudeCode(cp)
	if len(p.Prices) > 0 {
		withOverrides, err := t.WithJSON(p.Prices)
		if err != nil {
			problems = append(problems, err)
		} else {
			t = withOverrides
		}
	}
	return t, im, errors.Join(problems...)
}

// ClaudeManagedDir, when set, is read for Claude Code's managed settings
// instead of the system's folder (tests).
var ClaudeManagedDir string

// maxPricesFile bounds the imported catalogue's file (runaway's import of
// LiteLLM's is about 100 KB).
const maxPricesFile = 8 << 20

// ReadImported reads the imported catalogue at path; nil, nil when there is
// none.
func ReadImported(path string) (*pricing.Imported, error) {
	if path == "" {
		return nil, nil
	}
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("prices %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPricesFile+1))
	if err != nil {
		return nil, fmt.Errorf("prices %s: %w", path, err)
	}
	if len(data) > maxPricesFile {
		return nil, fmt.Errorf("prices %s: larger than %d MB, left out", path, maxPricesFile>>20)
	}
	im, err := pricing.ParseImported(data)
	if err != nil {
		return nil, fmt.Errorf("prices %s: %v; the embedded table is used (hint: runaway prices update)", path, err)
	}
	return im, nil
}
