package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/ownfiles"
)

func init() { register(newStatusCmd) }

type statusOptions struct {
	session string
	json    bool
	// watch redraws the active sessions every interval, count times (0:
	// until ctrl-c).
	watch    bool
	interval time.Duration
	count    int
}

func newStatusCmd() *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status [SESSION]",
		Short: "Show what each guarded session spent and what runaway decided",
		Long: `status lists the sessions runaway guards, most recent first: agent, project
folder, models, spend against the cap, warned or stopped, the failure and
repeat runs, the last decision and the last activity. Each session is
shown by the first characters of its id that tell it apart from every
other (eight, or more where ids share their start, as OpenCode's do);
SESSION is a session id or its first characters, and allow takes the same.
Spend is brought up to date with the transcripts as status runs; status
itself writes nothing.

--watch is a live view for someone watching an unattended run: every
--interval it redraws, in place, one line per session active in the last
hour, with its spend against its cap as a bar, its state, its last
decision and its calls per minute. Not on a terminal, it prints one plain
block per refresh instead, for a log.`,
		Example: `  runaway status
  runaway status 5d1c9f7e
  runaway status --watch`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.session = args[0]
			}
			if o.watch {
				help := []string{"runaway status --help"}
				if o.json {
					return &userError{msg: "--watch and --json do not go together: for scripts, run status --json at your own pace", hints: help, code: exitUsage}
				}
				if o.interval <= 0 || o.count < 0 {
					return &userError{msg: "--interval takes a duration above 0, such as 2s, and --count 0 or more", hints: help, code: exitUsage}
				}
				return runWatch(cmd.OutOrStdout(), isTerminal(cmd.OutOrStdout()), o)
			}
			return runStatus(cmd.OutOrStdout(), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print JSON for scripts")
	f.BoolVarP(&o.watch, "watch", "w", false, "a live view of the active sessions, redrawn until ctrl-c")
	f.DurationVar(&o.interval, "interval", 2*time.Second, "with --watch: how often to redraw")
	f.IntVar(&o.count, "count", 0, "with --watch: stop after this many redraws (0: never)")
	return cmd
}

func runStatus(w io.Writer, o statusOptions) error {
	policy := loadPolicy(os.Stderr)
	store := &guard.Store{Dir: stateDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pricer, _ := guard.NewPricer(policy)
	views, err := store.Views(ctx, o.session, policy, pricer)
	if err != nil {
		return failf([]string{"runaway doctor"}, "reading runaway's state: %v", err)
	}
	if o.session != "" && len(views) == 0 {
		return failf([]string{"runaway status"}, "no guarded session id starts with %q", o.session)
	}
	if !o.json {
		printTripped(w)
	}
	if o.json {
		if views == nil {
			views = []guard.View{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"mode": modeName(), "sessions": views})
	}
	if len(views) == 0 {
		fmt.Fprintln(w, "No guarded sessions yet: runaway's hook has not run.")
		fmt.Fprintln(w, "hint: runaway doctor")
		printUnreadErrors(w)
		return nil
	}
	printStatus(w, views)
	printMode(w)
	printUnreadErrors(w)
	return nil
}

func modeName() string {
	if ownfiles.SystemMode() {
		return "system"
	}
	return "user"
}

// printMode says which install guards the sessions listed.
func printMode(w io.Writer) {
	if ownfiles.SystemMode() {
		fmt.Fprintf(w, "\nguarded by runaway's system install (%s): only root can raise a cap or take it off.\n", configs.PolicyPath())
		return
	}
	fmt.Fprintln(w, "\nguarded by runaway's user install: your user (and so the agent) can reach its files; sudo runaway setup --system puts them out of reach.")
}

func printStatus(w io.Writer, views []guard.View) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSESSION\tPROJECT\tMODELS\tSPEND / CAP\tSTATE\tRUNS\tLAST DECISION\tACTIVE")
	now := time.Now()
	for _, v := range views {
		last := "-"
		if d := v.LastDecision; d != nil {
			last = d.Wire + " " + d.Decision
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			v.Harness, v.ShortID, folder(v.Cwd), models(v.Models), v.Spend(), v.State, v.Runs(), last, ago(now, v.UpdatedAt))
	}
	tw.Flush()
	for _, v := range views {
		if len(v.Next) == 0 {
			continue
		}
		what := "stopped at its cap"
		switch v.State {
		case guard.StateDailyCap:
			what = "stopped at the daily cap"
		case guard.StateOverCap:
			what = "over its cap: runaway refuses its next call"
		}
		if v.Ended != nil && (v.LastDecision == nil || !v.Ended.Time.Before(v.LastDecision.Time.Add(-time.Second))) {
			what = "runaway " + v.Ended.How
		}
		fmt.Fprintf(w, "\n%s %s: %s\n", v.Harness, v.ShortID, what)
		for i, n := range v.Next {
			lead := "  next: "
			if i > 0 {
				lead = "  then: "
			}
			fmt.Fprintln(w, lead+n)
		}
	}
}

// folder shows a session's working folder, ~ for the home folder.
func folder(p string) string {
	if p == "" {
		return "-"
	}
	return ownfiles.Tilde(p)
}

func models(m []string) string {
	if len(m) == 0 {
		return "-"
	}
	return strings.Join(m, ",")
}

func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "-"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format(time.DateOnly)
}

// printUnreadErrors tells of the hook's errors no doctor run has shown yet.
func printUnreadErrors(w io.Writer) {
	fresh, _ := ownfiles.UnreadErrors(stateDir())
	n := len(fresh)
	if n == 0 {
		return
	}
	errs, them := "errors", "them"
	if n == 1 {
		errs, them = "error", "it"
	}
	fmt.Fprintf(w, "\n%d hook %s in %s since the last doctor run; runaway doctor shows %s.\n",
		n, errs, ownfiles.Tilde(filepath.Join(stateDir(), ownfiles.ErrorLogName)), them)
}
