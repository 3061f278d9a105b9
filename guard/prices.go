package guard

import (
	"time"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/transcripts"
)

// tablePricer prices transcripts' usage with a price table.
type tablePricer struct{ t *pricing.Table }

func (p tablePricer) Cost(model string, u transcripts.Usage, at time.Time) (float64, bool) {
	c := p.t.Cost(model, pricing.Usage(u), at)
	return c.USD, c.Estimated
}

// NewPricer is the embedded price table with the policy's overrides. When
// the overrides do not decode, the embedded table alone is used and the
// error returned.
func NewPricer(p configs.Policy) (Pricer, []error) {
	t := pricing.Default()
	if len(p.Prices) == 0 {
		return tablePricer{t}, nil
	}
	withOverrides, err := t.WithJSON(p.Prices)
	if err != nil {
		return tablePricer{t}, []error{err}
	}
	return tablePricer{withOverrides}, nil
}
