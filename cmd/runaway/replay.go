package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/transcripts"
)

func init() { register(newReplayCmd) }

// replayReport is what `runaway replay --json` prints: an object, so later
// issues can add fields (the guard's decisions) without breaking readers.
type replayReport struct {
	Agent transcripts.Agent `json:"agent"`
	Files []string          `json:"files"`
	pricing.Ledger
}

func newReplayCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "replay PATH",
		Short: "Print what a Claude Code transcript or Codex rollout cost",
		Long: `replay reads a Claude Code transcript (with its session's subagent files) or a
Codex rollout (.jsonl or .jsonl.zst, with its subagents' rollouts) and prints
what it cost per model and in total, priced like the hook prices it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := replay(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			printReplay(cmd.OutOrStdout(), r)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func replay(path string) (*replayReport, error) {
	hints := []string{"ls ~/.claude/projects/*/ ~/.codex/sessions/*/*/*/"}
	agent, err := transcripts.Detect(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fs.ErrNotExist
		}
		return nil, failf(hints, "cannot read %s: %v", path, err)
	}
	table := pricing.Default()
	policy, _ := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	if table, err = table.WithJSON(policy.Prices); err != nil {
		return nil, failf([]string{"$EDITOR " + configs.PolicyPath()}, "%v", err)
	}
	read, list := transcripts.ReadClaude, transcripts.ClaudeSessionFiles
	if agent == transcripts.Codex {
		read, list = transcripts.ReadCodex, transcripts.CodexSessionFiles
	}
	r := &replayReport{Agent: agent, Ledger: pricing.Ledger{Models: map[string]*pricing.ModelSpend{}}}
	if r.Files, err = list(path); err != nil {
		return nil, failf(hints, "cannot read %s: %v", path, err)
	}
	var pos transcripts.Position
	_, err = read(context.Background(), path, &pos, transcripts.Sink{Response: func(resp transcripts.Response) {
		r.Add(table, resp.Model, pricing.Usage(resp.Usage), pricing.Usage(resp.Counted))
	}})
	if err != nil {
		return nil, failf(hints, "cannot read %s: %v", path, err)
	}
	return r, nil
}

func printReplay(w io.Writer, r *replayReport) {
	fmt.Fprintf(w, "%s session, %d file(s)\n", r.Agent, len(r.Files))
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
}
