package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/transcripts"
)

// realFixtures is ../shared/fixtures/real beside the module root; the test
// skips, saying why, when it is absent (a fresh clone).
func realFixtures(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "fixtures", "real")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real fixtures not found at %s (they live outside the repository): %v", dir, err)
	}
	return dir
}

// replayPolicy is a policy without escalation, which the independent
// script below does not model; TestReplayEscalatesRealSession adds it.
func replayPolicy(cap float64, failures, repeats int) configs.Policy {
	p := configs.DefaultPolicy()
	p.SessionCapUSD, p.FailureRun, p.RepeatRun = cap, failures, repeats
	p.Escalate = false
	return p
}

func replayFile(t *testing.T, path string, p configs.Policy) ([]ReplayDecision, int) {
	t.Helper()
	agent, err := transcripts.Detect(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	pr, _ := NewPricer(p)
	ds, calls, err := Replay(t.Context(), agent, path, p, pr, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ds, calls
}

// The expected decisions below were computed by an independent script,
// bench/replaycheck/replay_check.py, written from the transcript format
// alone (it agrees with runaway on all 32 non-empty Claude Code sessions
// of the fixtures, under two policies).
func TestReplayMatchesIndependentFigures(t *testing.T) {
	real := realFixtures(t)
	cases := []struct {
		file   string
		policy configs.Policy
		calls  int
		want   []string // call wire decision $spend
	}{
		{
			// A main session and six subagents, all on claude-opus-4-7.
			file:   "claude-code/daaain__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
			policy: replayPolicy(1, 2, 2),
			calls:  117,
			want: []string{"9 spend warn $0.85", "10 spend stop $1.01", "30 spend warn $1.61", "46 spend stop $2.02",
				"56 spend warn $2.45", "69 spend stop $3.01", "71 spend warn $3.33", "86 spend stop $4.15",
				"87 spend warn $4.15", "108 spend stop $5.03", "109 spend warn $5.08"},
		},
		{
			// Failed tool results in a row, then the cap.
			file:   "claude-code/daaain__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl",
			policy: replayPolicy(2, 2, 2),
			calls:  101,
			want:   []string{"12 failure ask $0.24", "19 failure ask $0.37", "63 spend warn $1.60", "67 failure ask $1.71", "77 spend stop $2.01"},
		},
		{
			// Codex ran the same `ps -ef | rg …` twice in a row at its 15th
			// and 16th hooked call (by hand: the rollout's exec_command
			// calls, update_plan and write_stdin left out). Codex has no
			// ask: the replay says deny.
			file:   "codex/codemie-ai__codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl",
			policy: replayPolicy(2, 2, 2),
			calls:  35,
			want:   []string{"16 loop deny $0.00"},
		},
	}
	for _, c := range cases {
		ds, calls := replayFile(t, filepath.Join(real, c.file), c.policy)
		var got []string
		for _, d := range ds {
			got = append(got, fmt.Sprintf("%d %s %s $%.2f", d.Call, d.Wire, d.Decision, d.SpendUSD))
		}
		if calls != c.calls || strings.Join(got, ", ") != strings.Join(c.want, ", ") {
			t.Errorf("%s: %d calls, decisions\n  %s\nwant %d calls,\n  %s", filepath.Base(c.file), calls, strings.Join(got, ", "), c.calls, strings.Join(c.want, ", "))
		}
	}
}

// With escalation, the failure wire's second trigger in the recording (at
// call 19 in the figures above) ends the turn, since nobody answered the
// first ask; the ask after it (67) starts a new round.
func TestReplayEscalatesRealSession(t *testing.T) {
	real := realFixtures(t)
	p := replayPolicy(2, 2, 2)
	p.Escalate = true
	ds, _ := replayFile(t, filepath.Join(real, "claude-code/daaain__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl"), p)
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d %s %s", d.Call, d.Wire, d.Decision))
	}
	want := "12 failure ask, 19 failure stop, 63 spend warn, 67 failure ask, 77 spend stop"
	if strings.Join(got, ", ") != want {
		t.Errorf("decisions\n  %s\nwant\n  %s", strings.Join(got, ", "), want)
	}
}

// Every real session replays without error, and what it says is coherent:
// calls numbered in order, spend never falling, reasons for people.
func TestReplayEveryRealFixture(t *testing.T) {
	real := realFixtures(t)
	n := 0
	err := filepath.Walk(real, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Size() == 0 || !(strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.zst")) {
			return err
		}
		agent, derr := transcripts.Detect(path)
		if derr != nil {
			return nil // gemini's files, and others that are no agent's session
		}
		n++
		pr, _ := NewPricer(replayPolicy(0.5, 2, 2))
		ds, calls, rerr := Replay(t.Context(), agent, path, replayPolicy(0.5, 2, 2), pr, nil)
		if rerr != nil {
			t.Errorf("%s: %v", path, rerr)
			return nil
		}
		last, spend := 0, 0.0
		for _, d := range ds {
			if d.Call < last || d.Call > calls || d.SpendUSD < spend-1e-9 || !strings.HasPrefix(d.Reason, "runaway: ") {
				t.Errorf("%s: incoherent decision %+v after call %d, $%.2f", path, d, last, spend)
			}
			last, spend = d.Call, d.SpendUSD
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Errorf("replayed only %d sessions", n)
	}
}
