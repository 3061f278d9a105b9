package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// plan is what setup and remove (user or system) show and apply: the
// exact edits as a diff, and applying them.
type plan interface {
	Diff() string
	Apply() error
}

// runPlan is the one way setup and remove go on once their plan is shown:
// with --dry-run it prints the diff and writes nothing; otherwise it asks
// (or takes --yes) and applies the plan, with retry as the hint when that
// fails. It reports whether the plan was applied; when it was not, err says
// why (nil: a dry run).
func runPlan(cmd *cobra.Command, p plan, command, retry string, yes, dryRun bool) (applied bool, err error) {
	out := cmd.OutOrStdout()
	if dryRun {
		fmt.Fprint(out, p.Diff())
		fmt.Fprintln(out, "dry run: nothing was written")
		return false, nil
	}
	if err := confirm(cmd, yes, command, p.Diff()); err != nil {
		return false, err
	}
	if err := p.Apply(); err != nil {
		return false, failf([]string{retry}, "%v", err)
	}
	return true, nil
}
