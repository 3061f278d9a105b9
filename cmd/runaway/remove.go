package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/installer"
)

func init() { register(newRemoveCmd) }

func newRemoveCmd() *cobra.Command {
	var (
		yes, dryRun, purge bool
		system             bool
		harnesses          []string
		project            string
	)
	cmd := &cobra.Command{
		Use:   "remove",
		Short: "Take runaway's hook entries out of the agents' settings files",
		Long: `remove undoes setup: it takes out runaway's hook entries (every copy, from
any version or binary path) and nothing else. A file nobody else changed
since setup comes back byte for byte. Without --harness or --project it
also cleans every project file that setup --project wired; --project DIR
takes runaway's entry out of that project's file only. --purge also
deletes the installed binary, runaway's config and its state.

Without a terminal it needs --yes. Inside an agent's tool call only
--dry-run runs.`,
		Example: `  runaway remove --dry-run   # the exact edits, as a diff
  runaway remove --yes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if system {
				return runSystemRemove(cmd, yes, dryRun)
			}
			if err := userModeRefused("remove"); err != nil {
				return err
			}
			if !dryRun {
				if err := onlyThePerson("remove"); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			plan, err := installer.PlanRemove(installer.RemoveOptions{Harnesses: agentIDs(harnesses), Project: project, Purge: purge})
			if err != nil {
				return planError(err, "remove")
			}
			printLines(out, plan.Summary())
			if plan.Empty() {
				fmt.Fprintln(out, "nothing to remove")
				return nil
			}
			if applied, err := runPlan(cmd, plan, "remove", "runaway remove", yes, dryRun); !applied {
				return err
			}
			if !purge {
				recordTripwire(cmd.ErrOrStderr())
			}
			fmt.Fprintln(out, plan.Done())
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&yes, "yes", "y", false, "apply without asking")
	f.BoolVar(&dryRun, "dry-run", false, "print the edits as a diff and change nothing")
	f.BoolVar(&system, "system", false, "undo `sudo runaway setup --system` exactly (needs sudo)")
	f.BoolVar(&purge, "purge", false, "also delete the installed binary, runaway's config and its state")
	f.StringSliceVar(&harnesses, "harness", nil, "agents to unwire: "+installer.WiredIDs()+" (default: all)")
	f.StringVar(&project, "project", "", "take runaway's entry out of `DIR`'s .claude/settings.local.json (at its git repository root)")
	return cmd
}
