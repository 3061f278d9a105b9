package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/ownfiles"
)

func init() { register(newSetupCmd) }

func newSetupCmd() *cobra.Command {
	var (
		yes, dryRun         bool
		agentRules          bool
		harnesses           []string
		project             string
		system, managedOnly bool
	)
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Wire runaway into the coding agents on this machine",
		Long: `setup finds the coding agents installed here, copies runaway to a stable
path, writes runaway's limits, and adds one hook entry to each supported
agent's settings file, touching nothing else in it. It shows the plan
first; --dry-run prints the exact edits as a diff and changes nothing.
--project DIR also wires Claude Code into DIR's .claude/settings.local.json
(at the git repository root when DIR is in one).

Without a terminal it needs --yes. Inside an agent's tool call only
--dry-run runs.`,
		Example: `  runaway setup                          # the wizard, on a terminal
  runaway setup --dry-run                # what it would change, as a diff
  runaway setup --yes --harness claude,codex --cap 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			limits, err := knobsGiven(cmd)
			if err != nil {
				return err
			}
			opts := installer.SetupOptions{Harnesses: agentIDs(harnesses), Project: project, NoAgentRules: !agentRules, Limits: limits}
			if system {
				return runSystemSetup(cmd, opts, managedOnly, yes, dryRun)
			}
			if err := userModeRefused("setup"); err != nil {
				return err
			}
			return runSetup(cmd, opts, yes, dryRun)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&yes, "yes", "y", false, "apply without asking")
	f.BoolVar(&dryRun, "dry-run", false, "print the edits as a diff and change nothing")
	f.StringSliceVar(&harnesses, "harness", nil, "agents to wire: "+installer.WiredIDs()+" (default: every supported agent found)")
	f.StringVar(&project, "project", "", "also wire Claude Code into `DIR`'s .claude/settings.local.json (at its git repository root)")
	f.BoolVar(&agentRules, "agent-rules", true, "also write the agents' own rules that keep runaway's files out of their reach (Claude Code permissions.deny); --agent-rules=false leaves them out")
	f.BoolVar(&system, "system", false, "install for every user, out of the agents' reach: root-owned program, config and state, and the agents' managed settings (needs sudo)")
	f.BoolVar(&managedOnly, "managed-hooks-only", false, "with --system: also turn off every hook that is not managed (Claude Code's allowManagedHooksOnly, Codex's allow_managed_hooks_only)")
	addKnobFlags(f, false)
	return cmd
}

func runSetup(cmd *cobra.Command, opts installer.SetupOptions, yes, dryRun bool) error {
	if !dryRun {
		if err := onlyThePerson("setup"); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	if !yes && !dryRun && isTerminal(cmd.InOrStdin()) && isTerminal(out) {
		return runWizard(cmd, opts)
	}
	plan, err := installer.PlanSetup(opts)
	if err != nil {
		return planError(err, "setup")
	}
	printLines(out, plan.Summary())
	if plan.Empty() {
		fmt.Fprintln(out, "nothing to change: runaway is set up")
		return nil
	}
	if applied, err := runPlan(cmd, plan, "setup", "runaway setup", yes, dryRun); !applied {
		return err
	}
	recordTripwire(cmd.ErrOrStderr())
	var names []string
	for _, h := range plan.Wire {
		names = append(names, h.Name)
	}
	if plan.Project != "" {
		names = append(names, "Claude Code in "+ownfiles.Tilde(filepath.Dir(filepath.Dir(plan.Project))))
	}
	fmt.Fprintf(out, "done: runaway guards %s\n", strings.Join(names, ", "))
	if len(plan.Todo) > 0 {
		fmt.Fprintln(out, "still to do:")
		for _, t := range plan.Todo {
			fmt.Fprintln(out, "  "+t)
		}
	}
	return nil
}

// runWizard asks for the choices on the terminal, then applies the plan
// the person said yes to, as `setup --yes` would.
func runWizard(cmd *cobra.Command, opts installer.SetupOptions) error {
	out := cmd.OutOrStdout()
	// Where the terminal turns ctrl-c into SIGINT (accessible mode), it
	// cancels too: nothing is written before the last yes. Once the files
	// are being written, it is ignored, so setup is not cut in half.
	var applying atomic.Bool
	interrupted := make(chan os.Signal, 1)
	signal.Notify(interrupted, os.Interrupt)
	defer signal.Stop(interrupted)
	go func() {
		for range interrupted {
			if !applying.Load() {
				os.Exit(reportError(cmd.ErrOrStderr(), errCancelled))
			}
		}
	}()
	w := installer.Wizard{In: cmd.InOrStdin(), Out: out, Accessible: os.Getenv("ACCESSIBLE") != "", Options: opts}
	plan, err := w.Run()
	applying.Store(true)
	switch {
	case errors.Is(err, installer.ErrCancelled):
		return errCancelled
	case err != nil:
		return planError(err, "setup")
	case plan.Empty():
		fmt.Fprintln(out, "nothing to change: runaway is set up")
		return nil
	}
	if err := plan.Apply(); err != nil {
		return failf([]string{"runaway setup"}, "%v", err)
	}
	recordTripwire(cmd.ErrOrStderr())
	printLines(out, plan.AfterSetup())
	return nil
}

// planError turns a planning failure into a message with the next step.
func planError(err error, command string) error {
	var se *configs.SyntaxError
	var oe *installer.OptionError
	switch {
	case errors.As(err, &oe):
		return usageError("runaway "+command, err)
	case errors.As(err, &se):
		return failf([]string{"fix the file, then run: runaway " + command}, "%v", err)
	case errors.Is(err, installer.ErrNothingToWire):
		return failf([]string{"install one of them, then run: runaway setup", "or see runaway at work with none: runaway demo"}, "%v", err)
	}
	return failf(nil, "%v", err)
}

// confirm lets a changing command go ahead: with --yes, or after a y on
// the terminal once the diff was shown. Without a terminal it refuses.
func confirm(cmd *cobra.Command, yes bool, command, diff string) error {
	if yes {
		return nil
	}
	if !isTerminal(cmd.InOrStdin()) || !isTerminal(cmd.OutOrStdout()) {
		return failf([]string{"runaway " + command + " --yes"}, "%s changes files; without a terminal it needs --yes", command)
	}
	out := cmd.OutOrStdout()
	fmt.Fprint(out, diff)
	fmt.Fprint(out, "apply these changes? [y/N] ")
	var answer string
	fmt.Fscanln(cmd.InOrStdin(), &answer)
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return errCancelled
	}
	return nil
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
