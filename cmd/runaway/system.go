package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// needRoot refuses a system setup or remove run without root.
func needRoot(command string) error {
	if sysmode.IsRoot() {
		return nil
	}
	return failf([]string{"sudo " + commandLine()}, "%s --system changes root-owned files: run it with sudo", command)
}

func runSystemSetup(cmd *cobra.Command, opts installer.SetupOptions, managedOnly, yes, dryRun bool) error {
	if err := needRoot("setup"); err != nil && !dryRun {
		return err
	}
	if !dryRun {
		if err := onlyThePerson("setup"); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	plan, err := installer.PlanSystemSetup(installer.SystemOptions{Setup: opts, Layout: sysmode.Real(), ManagedOnly: managedOnly})
	if err != nil {
		return planError(err, "setup --system")
	}
	fmt.Fprintln(out, "system install (out of the agent's reach):")
	printLines(out, indent(plan.Steps()))
	if applied, err := runPlan(cmd, plan, "setup --system", "sudo runaway setup --system", yes, dryRun); !applied {
		return err
	}
	fmt.Fprintln(out, "done: runaway guards every user's agents from", sysmode.Real().Bin())
	fmt.Fprintln(out, "only root can now raise a cap or take runaway off: sudo runaway allow, sudo runaway remove --system")
	fmt.Fprintln(out, "check it: runaway doctor (it warns when an agent's user has passwordless sudo)")
	return nil
}

func runSystemRemove(cmd *cobra.Command, yes, dryRun bool) error {
	if err := needRoot("remove"); err != nil && !dryRun {
		return err
	}
	if !dryRun {
		if err := onlyThePerson("remove"); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	plan, err := installer.PlanSystemRemove(installer.SystemOptions{Layout: sysmode.Real()})
	if err != nil {
		return planError(err, "remove --system")
	}
	printLines(out, indent(plan.Steps()))
	if applied, err := runPlan(cmd, plan, "remove --system", "sudo runaway remove --system", yes, dryRun); !applied {
		return err
	}
	fmt.Fprintln(out, "done: the system install is gone")
	return nil
}

// userModeRefused stops a user-mode setup or remove while a system install
// is in force: it would wire or unwire nothing that guards the agents.
func userModeRefused(command string) error {
	if !ownfiles.SystemMode() {
		return nil
	}
	return failf([]string{"sudo runaway " + command + " --system"}, "runaway is installed system-wide; %s changes it with --system, as root", command)
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}
