package guard

import (
	"maps"
	"slices"
	"time"

	"github.com/runaway-guard/runaway/transcripts"
)

// OpenCode has no shell-command hooks: runaway's plugin (installer writes
// it into OpenCode's plugin folder) runs `runaway hook opencode` with the
// call as JSON on stdin. The call carries the usual fields (session_id,
// tool_name, tool_input, tool_use_id, cwd, prompt_id) and, under
// "opencode", what the plugin learnt from OpenCode's events since it
// started: the session's own cost, its tokens, and the tool results since
// its last call. OpenCode keeps no transcript runaway could read.

// OpenCodeReport is the plugin's "opencode" object.
type OpenCodeReport struct {
	// Plugin is the plugin's protocol version.
	Plugin int `json:"plugin"`
	// Instance names one OpenCode process's plugin; Seq counts its calls.
	// Its figures are totals since that process started: a session resumed
	// in another process (or a nested opencode) reports from zero again.
	Instance string `json:"instance"`
	Seq      int64  `json:"seq"`
	// CostUSD is the cost OpenCode gave the session's assistant messages.
	CostUSD float64 `json:"cost_usd"`
	// Tokens are all of the session's tokens (in, out with reasoning, cr, cc).
	Tokens transcripts.Usage `json:"tokens"`
	// Unpriced are the tokens of each message OpenCode priced at 0 (a
	// model without a price in its catalogue or config): one request each,
	// as prices can depend on a request's size (long context).
	Unpriced []OpenCodeUsage `json:"unpriced,omitempty"`
	Models   []string        `json:"models,omitempty"`
	// Results are the tool calls that finished since the plugin's last call.
	Results []OpenCodeResult `json:"results,omitempty"`
	// Wire is the session's responses as the plugin read them on the wire:
	// OpenCode prices a step only after its tool ran, so the response that
	// made the call being asked about is only here.
	Wire *OpenCodeWire `json:"wire,omitempty"`
}

// OpenCodeWire is the usage the plugin read from the model's streams:
// priced with OpenCode's cost for the model where it has one, else as
// tokens runaway prices.
type OpenCodeWire struct {
	USD      float64         `json:"usd"`
	Unpriced []OpenCodeUsage `json:"unpriced,omitempty"`
	Requests int             `json:"requests"`
}

// OpenCodeUsage is one message's unpriced tokens.
type OpenCodeUsage struct {
	Model string `json:"model"`
	transcripts.Usage
}

// OpenCodeResult is one finished tool call: status "error", or a shell
// command's non-zero exit, is a failure.
type OpenCodeResult struct {
	CallID string `json:"id"`
	Failed bool   `json:"failed"`
}

// openCodeSpend is the session's spend as OpenCode's plugin instances
// reported it: each instance's latest totals, and what instances dropped
// from the list had reported.
type openCodeSpend struct {
	Instances map[string]openCodeTotals `json:"instances,omitempty"`
	Retired   openCodeTotals            `json:"retired"`
}

type openCodeTotals struct {
	Seq       int64             `json:"seq,omitempty"`
	USD       float64           `json:"usd"`
	Estimated bool              `json:"estimated,omitempty"`
	Tokens    transcripts.Usage `json:"tokens"`
	Models    []string          `json:"models,omitempty"`
}

// maxOpenCodeInstances bounds the instances kept apart. One more retires
// the one with the fewest calls into Retired; should it report again, its
// totals count twice, which errs on the side of stopping.
const maxOpenCodeInstances = 16

// applyOpenCode takes the plugin's report into the session: its figures
// replace the instance's earlier ones (a report older than the one kept,
// from a parallel call that got the lock later, is left out), and its tool
// results go into the failure run.
func (s *Session) applyOpenCode(r *OpenCodeReport, p Pricer) {
	for _, res := range r.Results {
		s.addResult(transcripts.ToolResult{ToolUseID: res.CallID, Failed: res.Failed})
	}
	oc := s.Spend.OpenCode
	if oc == nil {
		oc = &openCodeSpend{}
		s.Spend.OpenCode = oc
	}
	if oc.Instances == nil {
		oc.Instances = map[string]openCodeTotals{}
	}
	if old, ok := oc.Instances[r.Instance]; ok && old.Seq >= r.Seq {
		return
	}
	t := openCodeTotals{Seq: r.Seq, USD: sane(r.CostUSD), Tokens: r.Tokens, Models: r.Models}
	for _, u := range r.Unpriced {
		// OpenCode priced these at 0: runaway's table prices them. A model
		// not in the table is priced like its family's newest or the
		// dearest, and the figure is an estimate either way. The plugin
		// reports as the messages come: today's rates are theirs.
		usd, _ := p.Cost(u.Model, u.Usage, time.Time{})
		t.USD = sane(t.USD + usd)
		t.Estimated = true
	}
	if w := r.Wire; w != nil {
		// The wire has every response OpenCode's messages have, and the
		// ones still to be priced (and aborted ones): the larger figure is
		// the spend.
		wt := openCodeTotals{USD: sane(w.USD)}
		for _, u := range w.Unpriced {
			usd, _ := p.Cost(u.Model, u.Usage, time.Time{})
			wt.USD = sane(wt.USD + usd)
			wt.Estimated = true
		}
		if wt.USD > t.USD {
			t.USD, t.Estimated = wt.USD, wt.Estimated
		}
	}
	if len(t.Models) > 8 {
		t.Models = t.Models[:8]
	}
	oc.Instances[r.Instance] = t
	if len(oc.Instances) > maxOpenCodeInstances {
		oc.retireOne()
	}
	s.sumOpenCode()
}

// maxUSD bounds a reported figure, so that no report makes the state's
// JSON unwritable (infinity) or the sums meaningless.
const maxUSD = 1e9

func sane(usd float64) float64 {
	if !(usd > 0) { // NaN too
		return 0
	}
	return min(usd, maxUSD)
}

// retireOne folds the instance with the fewest calls into Retired.
func (oc *openCodeSpend) retireOne() {
	keys := slices.Sorted(maps.Keys(oc.Instances))
	least := keys[0]
	for _, k := range keys {
		if oc.Instances[k].Seq < oc.Instances[least].Seq {
			least = k
		}
	}
	oc.Retired = oc.Retired.plus(oc.Instances[least])
	delete(oc.Instances, least)
}

func (t openCodeTotals) plus(u openCodeTotals) openCodeTotals {
	t.USD = sane(t.USD + u.USD)
	t.Estimated = t.Estimated || u.Estimated
	t.Tokens = t.Tokens.Add(u.Tokens)
	for _, m := range u.Models {
		if !slices.Contains(t.Models, m) && len(t.Models) < 8 {
			t.Models = append(t.Models, m)
		}
	}
	return t
}

// sumOpenCode sets the session's spend to the sum over instances.
func (s *Session) sumOpenCode() {
	oc := s.Spend.OpenCode
	sum := oc.Retired
	for _, k := range slices.Sorted(maps.Keys(oc.Instances)) {
		sum = sum.plus(oc.Instances[k])
	}
	s.Spend.USD, s.Spend.Estimated, s.Spend.Tokens, s.Spend.Models = sum.USD, sum.Estimated, sum.Tokens, sum.Models
}
