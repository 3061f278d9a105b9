package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/transcripts"
)

func init() { register(newReplayCmd) }

// replayReport is what `runaway replay --json` prints: an object, so later
// issues can add fields (the guard's decisions) without breaking readers.
type replayReport struct {
	Agent agent.ID `json:"agent"`
	Files []string `json:"files"`
	pricing.Ledger
	// Calls counts the session's tool calls; Decisions are where runaway
	// would have warned, asked, denied or stopped, under Policy.
	Calls     int                    `json:"calls"`
	Policy    replayPolicy           `json:"policy"`
	Decisions []guard.ReplayDecision `json:"decisions"`
}

// replayPolicy is the part of the policy a replay applies.
type replayPolicy struct {
	SessionCapUSD float64 `json:"session_cap_usd"`
	WarnAt        float64 `json:"warn_at"`
	FailureRun    int     `json:"failure_run"`
	RepeatRun     int     `json:"repeat_run"`
	// Escalate: an ask counts as refused (nobody answers a replay), so the
	// same wire triggering again ends the turn, as in an unwatched run.
	Escalate bool `json:"escalate"`
}

type replayOptions struct {
	json bool
}

func newReplayCmd() *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay PATH",
		Short: "Show what a recorded session cost and where runaway would have stepped in",
		Long: `replay reads a Claude Code transcript (with its session's subagent files), a
Codex rollout (.jsonl or .jsonl.zst, with its subagents' rollouts) or a Gemini
CLI session file (with its subagents' files) and prints what it cost per model
and in total, priced like the hook prices it.

It then replays the session call by call through runaway's wires, with the
current policy or the one given by the flags, and lists where runaway would
have warned, asked, denied or stopped: tune your caps on your own history.
Nobody answers a replay's asks: as in an unwatched run, an ask counts as
refused, and the same wire triggering again ends the turn (--escalate=false
keeps it an ask). The prompt and daily caps are not replayed.`,
		Example: `  runaway replay ~/.claude/projects/-home-me-app/5d1c9f7e-0000-4000-8000-000000000001.jsonl
  runaway replay --cap 5 --json ~/.codex/sessions/2026/12/01/rollout-2026-12-01T10-00-00-019e0000-0000-7000-8000-000000000001.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := replay(args[0], cmd, o)
			if err != nil {
				return err
			}
			if o.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			printReplay(cmd.OutOrStdout(), r)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	addKnobFlags(cmd.Flags(), true)
	return cmd
}

// replayPolicyFrom is the config's policy with the flags given on top.
func replayPolicyFrom(cmd *cobra.Command) (configs.Policy, error) {
	p := loadPolicy(cmd.ErrOrStderr())
	given, err := knobsGiven(cmd)
	if err != nil {
		return p, err
	}
	for key, v := range given {
		k, _ := configs.KnobByKey(key)
		k.Set(&p, v)
	}
	return p, nil
}

func replay(path string, cmd *cobra.Command, o replayOptions) (*replayReport, error) {
	// Archived Codex rollouts (.jsonl.zst) are read through the system's
	// zstd; the hook reads none.
	transcripts.Unzstd = transcripts.SystemUnzstd
	who, err := transcripts.Detect(path)
	if err != nil {
		return nil, cannotRead("read", path, err)
	}
	policy, err := replayPolicyFrom(cmd)
	if err != nil {
		return nil, err
	}
	if _, err = pricing.Default().WithJSON(policy.Prices); err != nil {
		return nil, failf([]string{"$EDITOR " + configs.PolicyPath()}, "%v", err)
	}
	// The table the hook prices with: the imported catalogue and Claude
	// Code's own price settings included.
	table, _, _ := guard.TableInUse(policy)
	format, _ := transcripts.FormatOf(who) // Detect names only agents with a format
	r := &replayReport{Agent: who, Ledger: pricing.Ledger{Models: map[string]*pricing.ModelSpend{}}}
	if r.Files, err = format.SessionFiles(path); err != nil {
		return nil, cannotRead("read", path, err)
	}
	// One pass: the replay's read also totals the cost.
	pricer, _ := guard.NewPricer(policy)
	r.Decisions, r.Calls, err = guard.Replay(context.Background(), who, path, policy, pricer, func(resp transcripts.Response) {
		r.Add(table, resp.Model, pricing.Usage(resp.Usage), pricing.Usage(resp.Counted), resp.Time)
	})
	if err != nil {
		return nil, cannotRead("replay", path, err)
	}
	if r.Decisions == nil {
		r.Decisions = []guard.ReplayDecision{}
	}
	r.Policy = replayPolicy{SessionCapUSD: policy.SessionCapUSD, WarnAt: policy.WarnAt, FailureRun: policy.FailureRun, RepeatRun: policy.RepeatRun, Escalate: policy.Escalate}
	return r, nil
}

func printReplay(w io.Writer, r *replayReport) {
	fmt.Fprintf(w, "%s session, %d file(s)\n", r.Agent.Name(), len(r.Files))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tinput\toutput\tcache read\tcache write\tcost USD\t")
	models := make([]string, 0, len(r.Models))
	for m := range r.Models {
		models = append(models, m)
	}
	sort.Strings(models)
	var in, out, cr, cw int64
	for _, m := range models {
		s := r.Models[m]
		name := m
		if s.Estimated {
			name += " (estimated as " + s.PricedAs + ")"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.4f\t\n", name, s.InputTokens, s.OutputTokens, s.CacheReadTokens, s.CacheWriteTokens, s.CostUSD)
		in, out, cr, cw = in+s.InputTokens, out+s.OutputTokens, cr+s.CacheReadTokens, cw+s.CacheWriteTokens
	}
	total := "total"
	if r.Estimated {
		total += " (estimated)"
	}
	fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.4f\t\n", total, in, out, cr, cw, r.CostUSD)
	tw.Flush()
	printReplayDecisions(w, r)
}

func printReplayDecisions(w io.Writer, r *replayReport) {
	p := r.Policy
	capText := "no session cap"
	if p.SessionCapUSD > 0 {
		capText = fmt.Sprintf("session cap %s (warn at %.0f%%)", pricing.Dollars(p.SessionCapUSD), 100*p.WarnAt)
	}
	escalation := ""
	if !p.Escalate {
		escalation = ", asks never escalated"
	}
	fmt.Fprintf(w, "\n%d tool calls replayed with %s, %d failures or %d repeats in a row%s:\n", r.Calls, capText, p.FailureRun, p.RepeatRun, escalation)
	if len(r.Decisions) == 0 {
		fmt.Fprintln(w, "runaway would not have stepped in.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "call\ttool\twire\tdecision\tspend\treason")
	for _, d := range r.Decisions {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", d.Call, d.Tool, d.Wire, d.Decision, pricing.Dollars(d.SpendUSD), d.Reason)
	}
	tw.Flush()
}

// cannotRead is the error for a session replay cannot read or replay,
// naming the path once.
func cannotRead(verb, path string, err error) error {
	var ce *transcripts.CompressedError
	if errors.As(err, &ce) {
		again := "runaway replay " + configs.ShellQuote(path)
		return failf([]string{
			"install zstd (apt install zstd, brew install zstd), then: " + again,
			"or decompress it: zstd -d " + configs.ShellQuote(ce.Path) + ", then: runaway replay " + configs.ShellQuote(strings.TrimSuffix(ce.Path, ".zst")),
		}, "%s is a compressed archived rollout, and zstd is not installed here", ce.Path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = fs.ErrNotExist
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return failf([]string{"ls ~/.claude/projects/*/ ~/.codex/sessions/*/*/*/ ~/.gemini/tmp/*/chats/"}, "cannot %s %s: %v", verb, path, err)
}
