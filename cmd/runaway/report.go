package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/pricing"
	"github.com/runaway-guard/runaway/report"
)

func init() { register(newReportCmd) }

type reportOptions struct {
	view         string
	since, until string
	agents       []string
	project      string
	timezone     string
	breakdown    bool
	json, csv    bool
	chart        string
	noCache      bool
}

func newReportCmd() *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report [daily|weekly|monthly|session|project|agent]",
		Short: "Show what every agent on this machine spent, by day, session, project or agent",
		Long: `report reads the local history of every agent runaway knows — Claude Code
(with subagents), Codex (with subagents, forks and archived rollouts), Gemini
CLI and OpenCode — whether or not runaway guarded those sessions, prices each
response as the hook does, and shows the spend grouped by day (the default),
week, month, session, project or agent, with what runaway decided each day.

A session's total equals what runaway replay and the hook count for it. Costs
marked ~ include estimated prices: a model the price table does not know is
priced like the newest known model of its family (never cheaper), and an
OpenCode model that OpenCode priced at nothing is priced by runaway's table.

The readers' positions are kept in runaway's state folder, so the next report
reads only what the agents wrote since. --no-cache reads everything again and
keeps nothing.`,
		Example: `  runaway report
  runaway report session --since 2026-11-01 --agent claude,codex
  runaway report monthly --breakdown
  runaway report daily --json --timezone Europe/Paris`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: report.Views,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.view = report.Daily
			if len(args) == 1 {
				o.view = args[0]
			}
			return runReport(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.since, "since", "s", "", "first day to show (YYYY-MM-DD or YYYYMMDD)")
	f.StringVarP(&o.until, "until", "u", "", "last day to show (YYYY-MM-DD or YYYYMMDD)")
	f.StringSliceVar(&o.agents, "agent", nil, "only these agents (claude, codex, gemini, opencode)")
	f.StringVar(&o.project, "project", "", "only sessions whose project folder contains this")
	f.StringVarP(&o.timezone, "timezone", "z", "", "time zone the days are counted in (IANA name; default: this machine's)")
	f.BoolVarP(&o.breakdown, "breakdown", "b", false, "a line per model under each row")
	f.BoolVar(&o.json, "json", false, "print JSON for scripts")
	f.BoolVar(&o.csv, "csv", false, "print CSV for spreadsheets")
	f.StringVar(&o.chart, "chart", "auto", "spend per period as bars, stacked by agent: auto (on a terminal), always or never")
	f.BoolVar(&o.noCache, "no-cache", false, "read every session from the start and keep no positions")
	return cmd
}

func runReport(ctx context.Context, stdout, stderr io.Writer, o reportOptions) error {
	help := []string{"runaway report --help"}
	q := report.Query{View: o.view, Project: o.project, Breakdown: o.breakdown}
	if !contains(report.Views, o.view) {
		return &userError{msg: fmt.Sprintf("no report view %q: the views are %s", o.view, strings.Join(report.Views, ", ")), hints: help, code: exitUsage}
	}
	if o.json && o.csv {
		return &userError{msg: "--json and --csv do not go together", hints: help, code: exitUsage}
	}
	var err error
	if q.Since, err = reportDay(o.since); err != nil {
		return &userError{msg: "--since: " + err.Error(), hints: []string{"runaway report --since 2026-11-01"}, code: exitUsage}
	}
	if q.Until, err = reportDay(o.until); err != nil {
		return &userError{msg: "--until: " + err.Error(), hints: []string{"runaway report --until 2026-11-30"}, code: exitUsage}
	}
	if q.Since != "" && q.Until != "" && q.Since > q.Until {
		return &userError{msg: fmt.Sprintf("--since %s is after --until %s", q.Since, q.Until), hints: help, code: exitUsage}
	}
	q.Loc = time.Local
	if o.timezone != "" {
		if q.Loc, err = time.LoadLocation(o.timezone); err != nil {
			return &userError{msg: fmt.Sprintf("--timezone %q is not a time zone this machine knows", o.timezone), hints: []string{"runaway report --timezone UTC", "runaway report --timezone America/New_York"}, code: exitUsage}
		}
	}
	for _, a := range o.agents {
		ag, ok := reportAgent(a)
		if !ok {
			return &userError{msg: fmt.Sprintf("--agent %q is not an agent runaway reports on", a), hints: []string{"runaway report --agent claude,codex,gemini,opencode"}, code: exitUsage}
		}
		q.Agents = append(q.Agents, ag)
	}
	chart := false
	switch o.chart {
	case "auto":
		chart = isTerminal(stdout)
	case "always":
		chart = true
	case "never":
	default:
		return &userError{msg: fmt.Sprintf("--chart %q: auto, always or never", o.chart), hints: help, code: exitUsage}
	}

	policy := loadPolicy(stderr)
	pricer, errs := guard.NewPricer(policy)
	for _, e := range errs {
		fmt.Fprintf(stderr, "runaway: warning: price overrides not used: %v\n", e)
	}
	opts := report.Options{Env: os.Getenv, Pricer: pricer, PricesID: pricesID(pricer)}
	if !o.noCache {
		opts.CachePath = filepath.Join(ownfiles.OwnDirs().State, report.CacheName)
	}
	if isTerminal(stderr) {
		opts.Progress = progress(stderr)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	h, err := report.Collect(ctx, opts)
	if opts.Progress != nil {
		opts.Progress(-1, 0)
	}
	if err != nil {
		return &userError{msg: "reading the agents' sessions: " + err.Error(), hints: []string{"runaway report --no-cache"}}
	}
	log := ownfiles.OwnDirs().DecisionLogFile()
	decisions, err := report.ReadDecisions(log+".1", log)
	if err != nil {
		h.Notes = append(h.Notes, "runaway's decision log could not be read: "+err.Error())
	}
	rep, err := report.Make(h, q, decisions)
	if err != nil {
		return &userError{msg: err.Error(), hints: help, code: exitUsage}
	}
	switch {
	case o.json:
		return rep.WriteJSON(stdout)
	case o.csv:
		for _, n := range rep.Notes {
			fmt.Fprintln(stderr, "runaway: note: "+n)
		}
		return rep.WriteCSV(stdout)
	}
	style := report.Style{Color: isTerminal(stdout) && os.Getenv("NO_COLOR") == "", Chart: chart}
	if f, ok := stdout.(*os.File); ok && isTerminal(stdout) {
		if w, _, err := term.GetSize(f.Fd()); err == nil {
			style.Width = w
		}
	}
	return rep.WriteText(stdout, style)
}

// reportDay reads a day as YYYY-MM-DD or YYYYMMDD.
func reportDay(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly), nil
		}
	}
	return "", fmt.Errorf("%q is not a day: give it as YYYY-MM-DD", s)
}

// reportAgent takes the names setup's --harness takes, for an agent a
// report reads.
func reportAgent(s string) (report.Agent, bool) {
	id, ok := agent.Parse(s)
	return id, ok && report.Reads(id)
}

// pricesID fingerprints the price table a report prices with: the table
// in use (the embedded one, with an imported catalogue, Claude Code's own
// prices and the config's overrides over it), so that any of them changed
// prices the history again.
func pricesID(p guard.Pricer) string {
	h := sha256.New()
	if t, ok := p.(interface{ Table() *pricing.Table }); ok {
		json.NewEncoder(h).Encode(t.Table().Models())
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// progress shows, on a terminal, how far a report's first read has come,
// once it has taken more than a second; done -1 clears the line.
func progress(w io.Writer) func(done, total int) {
	start := time.Now()
	shown := false
	return func(done, total int) {
		if done < 0 {
			if shown {
				fmt.Fprint(w, "\r\x1b[K")
			}
			return
		}
		if time.Since(start) < time.Second {
			return
		}
		shown = true
		fmt.Fprintf(w, "\rreading the agents' sessions: %d of %d", done, total)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
