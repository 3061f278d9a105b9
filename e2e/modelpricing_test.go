package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// withSystemFiles makes every command the sandbox runs see files under
// /etc that exist only for it: each runs in its own mount namespace with an
// overlay over /etc whose upper layer is the sandbox's (the real /etc is
// never written). It skips where a private mount namespace cannot be had
// (not root, no overlayfs).
func (s *sandbox) withSystemFiles(files map[string]string) {
	s.t.Helper()
	if os.Geteuid() != 0 {
		s.t.Skip("Claude Code reads managed settings only from /etc/claude-code: the test needs root for a private mount namespace")
	}
	upper, work := filepath.Join(s.root, "etc-upper"), filepath.Join(s.root, "etc-work")
	for rel, content := range files {
		s.writeFile(filepath.Join(upper, rel), content)
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		s.t.Fatal(err)
	}
	script := `mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc && shift 2 && exec "$@"`
	probe := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", upper, work, "true")
	if out, err := probe.CombinedOutput(); err != nil {
		s.t.Skipf("no private mount namespace with an overlay over /etc here: %v %s", err, out)
	}
	s.wrap = []string{"unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", upper, work}
}

// A managed modelPricing setting (a multiplier and a per-model row) changes
// every figure Claude Code reports; runaway reads it, and its spend equals
// Claude Code's total_cost_usd.
func TestSpendFollowsClaudeCodesModelPricing(t *testing.T) {
	requireSpendReport(t)
	claudeAgent.require(t)
	for name, tt := range map[string]struct {
		model, settings string
	}{
		"override and multiplier": {"claude-sonnet-4-6", `{"modelPricing":{"multiplier":0.8,"overrides":{"claude-sonnet-4-6":{"input":2,"output":9,"cacheRead":0.25,"cacheWrite":2.75}}}}`},
		"multiplier alone":        {"claude-opus-4-8", `{"modelPricing":{"multiplier":1.2}}`},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t)
			s.withSystemFiles(map[string]string{"claude-code/managed-settings.json": tt.settings})
			srv := newAnthropicServer(t, mixedClaudeSession)
			s.installRunawayIfHook()
			r := s.runClaude(srv, "mixed usage", claudeOpts{Model: tt.model})
			checkClaudeSpend(t, s, r, tt.model)
			list := s.claudeListPrice(r, tt.model)
			t.Logf("Claude Code's figure $%.6f; at list price $%.6f", r.Result.TotalCostUSD, list)
			if closeTo(list, r.Result.TotalCostUSD) {
				t.Fatalf("Claude Code's figure is its list price: the managed setting was not read, the test shows nothing")
			}
		})
	}
}

// claudeListPrice is the run's cost at runaway's built-in prices (no
// managed setting): what the figure would be without modelPricing.
func (s *sandbox) claudeListPrice(r claudeRun, model string) float64 {
	s.t.Helper()
	wrap := s.wrap
	s.wrap = nil
	defer func() { s.wrap = wrap }()
	for _, f := range s.runawaySpend("claude", r.Result.SessionID, s.claudeTranscript(r.Result.SessionID)) {
		if f.source == "replay" {
			return f.usd
		}
	}
	s.t.Fatal("no replay figure")
	return 0
}
