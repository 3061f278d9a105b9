package main

import (
	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/demo"
)

func init() { register(newDemoCmd) }

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Replay recorded agent sessions through runaway's hook, with no agent needed",
		Long: `demo replays sessions that Claude Code recorded against a scripted model
(embedded in runaway) through runaway's real hook, and shows step by step
what runaway decided and what the agent showed: the ask when the model
repeats itself, the ask when its calls keep failing, the stop when it goes on
anyway, and the stop at a spend cap with the ` + "`runaway allow`" + ` command that
lets the session go on.

It needs no agent and changes nothing: the replay's state and config are in a
temporary folder, removed at the end.`,
		Example: `  runaway demo
  go run ./cmd/runaway demo    # from a clone, before installing`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return demo.Run(cmd.OutOrStdout())
		},
	}
}
