package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
)

// DecisionEntry is one decision from runaway's decision log: what the
// agent received (warn, ask, deny, stop) and when.
type DecisionEntry struct {
	Time     time.Time `json:"time"`
	Agent    Agent     `json:"harness"`
	Decision string    `json:"decision"`
	Wire     string    `json:"wire"`
}

// ReadDecisions reads runaway's decision logs (the current one and the one
// before its last rotation). A log that does not exist is no decisions; a
// line that does not decode is passed over.
func ReadDecisions(paths ...string) ([]DecisionEntry, error) {
	var out []DecisionEntry
	for _, p := range paths {
		f, err := ownfiles.OpenRegular(p, os.O_RDONLY, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var d DecisionEntry
			if json.Unmarshal(sc.Bytes(), &d) == nil && !d.Time.IsZero() && d.Decision != "" {
				out = append(out, d)
			}
		}
		f.Close()
	}
	return out, nil
}
