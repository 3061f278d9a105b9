package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/pricing"
)

func init() { register(newAllowCmd) }

type allowOptions struct {
	session string
	add     float64
	prompt  bool
}

func newAllowCmd() *cobra.Command {
	var o allowOptions
	cmd := &cobra.Command{
		Use:   "allow [SESSION] --add USD",
		Short: "Raise a session's spend cap (run it in your own terminal)",
		Long: `allow raises one session's cap by the dollars --add names: by default the
session most recently stopped, or the one whose id starts with SESSION (the
id status shows is enough). With --prompt it raises the cap of the
session's current prompt instead.

An agent cannot run allow: it refuses inside an agent's tool call, told by
the agents' variables and by an agent among its parent processes.`,
		Example: `  runaway status                      # which session stopped, and its id
  runaway allow 5d1c9f7e --add 10     # ten more dollars for that session
  runaway allow --add 5               # the session that stopped last`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.session = args[0]
			}
			return runAllow(cmd.OutOrStdout(), o)
		},
	}
	cmd.Flags().Float64Var(&o.add, "add", 0, "dollars to add to the cap")
	cmd.Flags().BoolVar(&o.prompt, "prompt", false, "raise the current prompt's cap, not the session's")
	return cmd
}

// ambiguous names the sessions an id given starts, each by the short id
// that names it alone, and hints the command for each one waiting for a
// raised cap (for each of them when none waits).
func ambiguous(e *guard.AmbiguousError, o allowOptions) error {
	var names, hints []string
	for _, m := range e.Sessions {
		names = append(names, fmt.Sprintf("%s (%s, %s, %s)", m.ShortID, m.Harness, folder(m.Cwd), m.State))
	}
	for _, waits := range []bool{true, false} {
		for _, m := range e.Sessions {
			if m.State.NeedsAllow() == waits {
				hints = append(hints, allowCommand(m.ShortID, o))
			}
		}
		if len(hints) > 0 {
			break
		}
	}
	return failf(hints, "%v: %s", e, strings.Join(names, ", "))
}

// allowCommand is the allow command o ran, for session id.
func allowCommand(id string, o allowOptions) string {
	cmd := "runaway allow " + id
	if o.prompt {
		cmd += " --prompt"
	}
	return cmd + " --add " + strconv.FormatFloat(o.add, 'f', -1, 64)
}

// wholeDollarsAbove is the least whole number of dollars above usd, as
// --add takes it.
func wholeDollarsAbove(usd float64) string {
	return strconv.FormatFloat(math.Floor(usd)+1, 'f', 0, 64)
}

func runAllow(w io.Writer, o allowOptions) error {
	if err := onlyThePerson("allow"); err != nil {
		return err
	}
	if o.add == 0 {
		return &userError{msg: "say how many dollars to add to the cap with --add", hints: []string{"runaway allow --add 10"}, code: exitUsage}
	}
	if !(o.add > 0) || math.IsInf(o.add, 0) {
		return &userError{msg: fmt.Sprintf("--add takes a positive number of dollars, not %v", o.add), hints: []string{"runaway allow --add 10"}, code: exitUsage}
	}
	shareSystemState()
	store := &guard.Store{Dir: stateDir()}
	policy := loadPolicy(os.Stderr)
	pricer, _ := guard.NewPricer(policy)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	found, err := store.Find(ctx, o.session, policy, pricer)
	if errors.Is(err, guard.ErrDailyCap) {
		return failf([]string{fmt.Sprintf("raise daily_cap_usd in %s, or run: runaway setup --daily-cap %g", ownfiles.Tilde(configs.PolicyPath()), 2*policy.DailyCapUSD)}, "%v", err)
	}
	var amb *guard.AmbiguousError
	if errors.As(err, &amb) {
		return ambiguous(amb, o)
	}
	if err != nil {
		return failf([]string{"runaway status"}, "%v", err)
	}
	sess, err := store.Allow(ctx, found.Harness, found.SessionID, o.add, o.prompt)
	if err != nil {
		return failf([]string{fmt.Sprintf("runaway allow %s --add %g", found.SessionID, o.add)}, "raising the cap: %v", err)
	}
	if o.prompt {
		newCap, spent := sess.PromptCap(policy), found.Spend.Prompt.USD(found.Spend.USD)
		fmt.Fprintf(w, "Raised the prompt cap of %s session %s by %s to %s (spent on this prompt: %s).\n",
			sess.Harness, sess.SessionID, pricing.Dollars(o.add), pricing.Dollars(newCap), pricing.Dollars(spent))
		if over := spent - newCap; newCap > 0 && over >= 0 {
			fmt.Fprintf(w, "The prompt is still over its cap by %s: the next call is stopped again.\nhint: runaway allow %s --prompt --add %s\n",
				pricing.Dollars(over), sess.SessionID, wholeDollarsAbove(over))
		}
		return nil
	}
	newCap := sess.SessionCap(policy)
	fmt.Fprintf(w, "Raised the cap of %s session %s by %s to %s (spent: %s).\n",
		sess.Harness, sess.SessionID, pricing.Dollars(o.add), pricing.Dollars(newCap), pricing.Dollars(found.Spend.USD))
	if over := found.Spend.USD - newCap; newCap > 0 && over >= 0 {
		fmt.Fprintf(w, "The session is still over its cap by %s: the next call is stopped again.\nhint: runaway allow %s --add %s\n",
			pricing.Dollars(over), sess.SessionID, wholeDollarsAbove(over))
		return nil
	}
	if term, script := guard.Resume(sess.Harness, sess.SessionID); term != "" {
		fmt.Fprintf(w, "To go on: %s (without a terminal: %s)\n", term, script)
	}
	return nil
}
