package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/sysmode"
)

// Exit codes, as DESIGN.md's CLI surface names them.
const (
	exitOK        = 0
	exitError     = 1
	exitUsage     = 2
	exitCancelled = 130
)

// userError is an error meant for a person: what went wrong, and the exact
// commands that help. It is printed once, at the top, by Main.
type userError struct {
	msg   string
	hints []string
	code  int
}

func (e *userError) Error() string { return e.msg }

// failf builds a userError with exit status 1 and optional hint lines.
func failf(hints []string, format string, args ...any) error {
	return &userError{msg: fmt.Sprintf(format, args...), hints: hints, code: exitError}
}

// usageError marks a mistake in how command (its path: "runaway setup")
// was called (exit 2); the hint is that command's help.
func usageError(command string, err error) error {
	return &userError{msg: err.Error(), hints: []string{command + " --help"}, code: exitUsage}
}

// errCancelled is returned when the person cancels an interactive command.
var errCancelled = &userError{msg: "cancelled; nothing was changed", code: exitCancelled}

// asksForHelp reports a -h or --help among args: `runaway hook --help`
// shows help instead of waiting for a tool call on stdin.
func asksForHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			return true
		}
	}
	return false
}

// Main runs the CLI with args and returns the process exit status.
func Main(args []string) int {
	if len(args) > 0 && args[0] == "hook" && !asksForHelp(args[1:]) {
		runHook(args[1:])
		return exitOK
	}
	if len(args) == 0 && os.Getenv("CLAUDECODE") != "" && !term.IsTerminal(os.Stdin.Fd()) {
		// A Claude Code older than the exec form runs an exec-form entry's
		// command without its args: that is a tool call too.
		runHook(nil)
		return exitOK
	}
	if len(args) == 0 || args[0] != "status" {
		// Only the hook and status read the state folder with the setgid
		// group of a system install; everything else runs without it.
		if err := sysmode.DropGroup(); err != nil {
			fmt.Fprintf(os.Stderr, "runaway: giving up the group %d: %v\n", os.Getegid(), err)
			return exitError
		}
	}
	root := newRootCmd(os.Stdin, os.Stdout, os.Stderr)
	root.SetArgs(args)
	err := root.Execute()
	return reportError(os.Stderr, err)
}

// reportError prints err for a person as `runaway: …` plus `hint:` lines and
// returns the exit status it stands for.
func reportError(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *userError
	if !errors.As(err, &ue) {
		// cobra's own errors (unknown command or flag) are usage errors.
		ue = &userError{msg: err.Error(), hints: []string{"runaway --help"}, code: exitUsage}
	}
	fmt.Fprintf(stderr, "runaway: %s\n", strings.TrimSpace(ue.msg))
	for _, h := range ue.hints {
		fmt.Fprintf(stderr, "hint: %s\n", h)
	}
	return ue.code
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "runaway",
		Short: "Stop coding agents that run away",
		Long: `runaway guards coding agents (` + installer.WiredNames() + `) from
running away: it is run by the agent before every tool call and asks the
person, denies or ends the turn when the session loops, keeps failing, or
reaches its spend cap. To see it at work with no agent: runaway demo.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version prints what `runaway version` prints.
		Version: versionText(buildInfo()),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.InitDefaultVersionFlag()
	root.Flags().Lookup("version").Usage = "print runaway's version"
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &userError{msg: err.Error(), hints: []string{cmd.CommandPath() + " --help"}, code: exitUsage}
	})
	for _, newCmd := range commands {
		root.AddCommand(newCmd())
	}
	// cobra's own completion command, made now so that it has an example.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Example = `  runaway completion zsh > "${fpath[1]}/_runaway"
  runaway completion bash > ~/.local/share/bash-completion/completions/runaway
  runaway completion fish > ~/.config/fish/completions/runaway.fish`
		}
	}
	return root
}

// commands holds the subcommands' constructors. Each command lives in its
// own file and adds itself from that file's init, so commands can be added
// without touching this one.
var commands []func() *cobra.Command

func register(newCmd func() *cobra.Command) { commands = append(commands, newCmd) }

// loadPolicy is the hook's policy (config and environment) for a command
// that shows or replays it; each problem in it is a warning on stderr, or
// a broken config would quietly show the defaults.
func loadPolicy(stderr io.Writer) configs.Policy {
	policy, problems := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	for _, p := range problems {
		fmt.Fprintf(stderr, "runaway: warning: %v\n", p)
	}
	return policy
}
