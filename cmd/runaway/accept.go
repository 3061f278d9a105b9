package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/ownfiles"
)

func init() { register(newAcceptCmd) }

func newAcceptCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "accept",
		Short: "Accept the changes the tripwire found, once you have looked at them",
		Long: `accept records runaway's config and program and the agents' entries as they
are now, and lifts the stop the tripwire put on every session.

The tripwire stops every guarded agent at its next call when one of those
files changed outside runaway (a script, a Makefile target, an edit by hand):
look at what changed first (runaway status names the files), then accept.
Only you may run it, in your own terminal, outside the agent.`,
		Example: `  runaway doctor      # what the tripwire found, and why
  runaway accept      # you looked, and the changes are yours`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := onlyThePerson("accept"); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if t, err := guard.TrippedNow(ownfiles.OwnDirs().State); err == nil && t != nil {
				for _, c := range t.Changes {
					fmt.Fprintf(out, "accepted: %s\n", c)
				}
			}
			if err := ownHook().RecordTripwire(); err != nil {
				return failf([]string{"runaway doctor"}, "cannot record runaway's files for the tripwire: %v", err)
			}
			fmt.Fprintln(out, "done: the tripwire watches runaway's files as they are now")
			return nil
		},
	}
}

// ownHook is the hook as the agents run it, for its own files.
func ownHook() *guard.Hook {
	dirs := ownfiles.OwnDirs()
	return &guard.Hook{StateDir: dirs.State, ConfigPath: dirs.ConfigFile(), BinPath: dirs.Bin, Stderr: os.Stderr}
}

// recordTripwire: after setup or remove changed runaway's files, the
// tripwire is told; a failure is said, not fatal (doctor shows it).
func recordTripwire(w io.Writer) {
	if err := ownHook().RecordTripwire(); err != nil {
		fmt.Fprintf(w, "runaway: the tripwire could not record runaway's files: %v\nhint: %s\n", err, guard.AcceptCommand)
	}
}

// printTripped says a trip on record (status, doctor).
func printTripped(w io.Writer) {
	t, err := guard.TrippedNow(ownfiles.OwnDirs().State)
	if err != nil || t == nil {
		return
	}
	fmt.Fprintf(w, "tripwire: every session is stopped since %s:\n", t.At.Local().Format("2006-01-02 15:04"))
	for _, c := range t.Changes {
		fmt.Fprintf(w, "  %s, outside runaway\n", c)
	}
	fmt.Fprintf(w, "  look at the change, then run: %s\n", guard.AcceptCommand)
}

// tripwireCheck is doctor's line for the tripwire.
func tripwireCheck() installer.Check {
	state := ownfiles.OwnDirs().State
	t, err := guard.TrippedNow(state)
	switch {
	case err != nil:
		return installer.Check{Status: installer.StatusFail, Check: "tripwire", Detail: fmt.Sprintf("its record cannot be read (%v); run: %s", err, guard.AcceptCommand)}
	case t != nil:
		return installer.Check{Status: installer.StatusFail, Check: "tripwire", Detail: fmt.Sprintf("every session is stopped: %s, outside runaway; look at the change, then run: %s", strings.Join(t.Changes, "; "), guard.AcceptCommand)}
	}
	if _, err := os.Stat(filepath.Join(state, guard.TripwireName)); err != nil {
		return installer.Check{Status: installer.StatusWarn, Check: "tripwire", Detail: "off: no record of runaway's files yet; run: " + guard.AcceptCommand}
	}
	return installer.Check{Status: installer.StatusOK, Check: "tripwire", Detail: "runaway's config, program and entries are as runaway left them"}
}
