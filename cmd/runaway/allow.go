package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
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
session most recently stopped, or the one whose id starts with SESSION. With
--prompt it raises the cap of the session's current prompt instead.

An agent cannot run allow: it refuses inside an agent's tool call, told by
the agents' variables and by an agent among its parent processes.`,
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

func runAllow(w io.Writer, o allowOptions) error {
	if err := onlyThePerson("allow"); err != nil {
		return err
	}
	if o.add <= 0 {
		return &userError{msg: "say how many dollars to add to the cap with --add", hints: []string{"runaway allow --add 10"}, code: exitUsage}
	}
	store := &guard.Store{Dir: stateDir()}
	policy, _ := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	pricer, _ := guard.NewPricer(policy)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	found, err := store.Find(ctx, o.session, policy, pricer)
	if err != nil {
		return failf([]string{"runaway status"}, "%v", err)
	}
	sess, err := store.Allow(ctx, found.Harness, found.SessionID, o.add, o.prompt)
	if err != nil {
		return failf([]string{fmt.Sprintf("runaway allow %s --add %g", found.SessionID, o.add)}, "raising the cap: %v", err)
	}
	if o.prompt {
		fmt.Fprintf(w, "Raised the prompt cap of %s session %s by %s to %s (spent on this prompt: %s).\n",
			sess.Harness, sess.SessionID, pricing.Dollars(o.add), pricing.Dollars(sess.PromptCap(policy)), pricing.Dollars(found.Spend.Prompt.USD(found.Spend.USD)))
		return nil
	}
	fmt.Fprintf(w, "Raised the cap of %s session %s by %s to %s (spent: %s).\n",
		sess.Harness, sess.SessionID, pricing.Dollars(o.add), pricing.Dollars(sess.SessionCap(policy)), pricing.Dollars(found.Spend.USD))
	if sess.Harness == guard.Claude {
		fmt.Fprintf(w, "To go on: claude --resume %s\n", sess.SessionID)
	}
	return nil
}
