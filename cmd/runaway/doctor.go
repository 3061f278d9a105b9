package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/ownfiles"
)

func init() { register(newDoctorCmd) }

func newDoctorCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that runaway is wired and working, end to end",
		Long: `doctor checks the installed binary, runaway's config and state, each agent's
settings file and runaway's entry in it, the agents' own switches that turn
hooks (or their own guards) off, Codex's trust of the entry, your shell, and
runs the installed hook once as each agent would (in a temporary state
folder). It prints one line per check: ok, warn or fail, the check's name,
and what to do. It exits 1 when a check fails.`,
		Example: `  runaway doctor
  runaway doctor --json | jq '.checks[] | select(.status != "ok")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, _ := os.Getwd()
			checks := installer.Doctor(installer.DoctorOptions{Version: buildInfo().version, Dir: dir})
			if !ownfiles.SystemMode() {
				// A system install's files are out of the agent's reach:
				// no tripwire is needed (nor readable by the user) there.
				checks = append(checks, tripwireCheck())
			}
			checks = append(checks, pricesChecks(time.Now())...)
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(struct {
					Checks []installer.Check `json:"checks"`
				}{checks}); err != nil {
					return err
				}
			} else {
				printChecks(out, checks)
			}
			if n := installer.Failed(checks); n > 0 {
				return failf(nil, "%d of %d checks failed", n, len(checks))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"checks":[{"status","check","detail"}…]}`)
	return cmd
}

// printChecks prints one line per check in lined-up columns: status, check,
// what to do.
func printChecks(w io.Writer, checks []installer.Check) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Check, c.Detail)
	}
	tw.Flush()
}
