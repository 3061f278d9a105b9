package installer

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// ErrCancelled: the person left the wizard (ctrl-c, or "No" at the end);
// nothing was written.
var ErrCancelled = errors.New("cancelled")

// Wizard asks the person for setup's choices on a terminal, shows the
// edits as a diff, and returns the plan once they said yes. Applying it is
// the caller's, the same code as `runaway setup --yes`.
type Wizard struct {
	In  io.Reader
	Out io.Writer
	// Accessible: huh's line-by-line mode for screen readers (ACCESSIBLE=1).
	Accessible bool
	// Options preset from flags: the wizard starts from them.
	Options SetupOptions
}

// capChoices are the caps offered; "custom" opens a field for any amount.
var capChoices = []float64{5, 10, 20, 50}

const customCap = "custom"

// answers are the wizard's fields as the person edits them.
type answers struct {
	harnesses                   []agent.ID
	capChoice, capText          string // capText: the amount when capChoice is customCap
	promptCapText, dailyCapText string // "0": none
	// startCaps: the prompt and daily caps the wizard started from; a cap
	// that is off and stays off is not written into the config.
	startCaps                      [2]string
	warnText, failText, repeatText string
	agentRules                     bool // write Claude Code's own deny rules
	// notify is the notify_command chosen ("" none), startNotify the one
	// the wizard started from.
	notify, startNotify string
}

// Run runs the wizard. It returns ErrCancelled when the person stops it.
func (w Wizard) Run() (*SetupPlan, error) {
	agents := Detect()
	// Ask the terminal for its background now, before a form reads the
	// keyboard: the answer then cannot be taken for key presses.
	lipgloss.HasDarkBackground()

	a := w.startingAnswers(agents)
	if err := w.ask(agents, &a); err != nil {
		return nil, err
	}
	opts, err := a.options(w.Options)
	if err != nil {
		return nil, err
	}
	plan, err := PlanSetup(opts)
	if err != nil || plan.Empty() {
		return plan, err
	}
	w.show(plan, opts)
	apply := false
	confirm := huh.NewForm(huh.NewGroup(
		huh.NewConfirm().
			Title("Make these changes?").
			Affirmative("Yes, set up").
			Negative("No").
			Value(&apply),
	))
	if err := w.run(confirm); err != nil {
		return nil, err
	}
	if !apply {
		return nil, ErrCancelled
	}
	return plan, nil
}

// startingAnswers: the flags given, else the current config, else the
// defaults; the agents found that runaway supports.
func (w Wizard) startingAnswers(agents []Found) answers {
	paths := DefaultPaths()
	if w.Options.Paths != nil {
		paths = *w.Options.Paths
	}
	current, _ := configs.LoadPolicy(paths.Config, func(string) string { return "" })
	if current.SessionCapUSD <= 0 {
		current.SessionCapUSD = configs.DefaultSessionCapUSD
	}
	o := w.Options
	capUSD := cmp.Or(deref(o.CapUSD), current.SessionCapUSD)
	a := answers{
		harnesses: o.Harnesses,
		capChoice: customCap,
		capText:   formatNumber(capUSD),
		// The caps that are off by default stay off unless asked for.
		promptCapText: formatNumber(cmp.Or(deref(o.PromptCapUSD), current.PromptCapUSD)),
		dailyCapText:  formatNumber(cmp.Or(deref(o.DailyCapUSD), current.DailyCapUSD)),
		warnText:      formatNumber(cmp.Or(deref(o.WarnAt), current.WarnAt) * 100),
		failText:      strconv.Itoa(cmp.Or(deref(o.FailureRun), current.FailureRun)),
		repeatText:    strconv.Itoa(cmp.Or(deref(o.RepeatRun), current.RepeatRun)),
		agentRules:    !o.NoAgentRules,
		notify:        current.NotifyCommand,
	}
	if o.Notify != nil {
		a.notify = *o.Notify
	}
	a.startNotify = a.notify
	if _, cmd, ok := DesktopNotifier(); ok && a.notify == "" && o.Notify == nil {
		// The notifier found is the ready choice.
		a.notify = cmd
	}
	a.startCaps = [2]string{a.promptCapText, a.dailyCapText}
	if slices.Contains(capChoices, capUSD) {
		a.capChoice = formatNumber(capUSD)
	}
	if len(a.harnesses) == 0 {
		for _, f := range agents {
			if f.Found && f.Support != NotSupported {
				a.harnesses = append(a.harnesses, f.ID)
			}
		}
	}
	return a
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// ask runs the screens: welcome and agents, which to wire, the cap (and
// an amount of one's own), the other limits.
func (w Wizard) ask(agents []Found, a *answers) error {
	var agentOptions []huh.Option[agent.ID]
	for _, f := range agents {
		if f.Support == NotSupported {
			continue
		}
		label := f.Name + " — " + f.Support.String()
		if !f.Found {
			label += " (not found)"
		}
		agentOptions = append(agentOptions, huh.NewOption(label, f.ID).Selected(slices.Contains(a.harnesses, f.ID)))
	}
	var capOptions []huh.Option[string]
	for _, c := range capChoices {
		label := "$" + formatNumber(c)
		if c == configs.DefaultSessionCapUSD {
			label += " (default)"
		}
		capOptions = append(capOptions, huh.NewOption(label, formatNumber(c)))
	}
	capOptions = append(capOptions, huh.NewOption("another amount", customCap))

	choices := huh.NewForm(
		huh.NewGroup(
			huh.NewNote().
				Title("runaway setup").
				Description(w.text(welcome(agents))).
				Next(true).NextLabel("Next"),
		),
		huh.NewGroup(
			huh.NewMultiSelect[agent.ID]().
				Title("Which agents should runaway guard?").
				Description("space selects, enter goes on").
				Options(agentOptions...).
				Value(&a.harnesses).
				Validate(func(ids []agent.ID) error {
					if len(ids) == 0 {
						return errors.New("choose at least one agent (space selects)")
					}
					return nil
				}),
		),
		huh.NewGroup(
			huh.NewSelect[string]().
				Title("Spend cap per session").
				Description("At the cap runaway denies the next call and ends the turn; `runaway allow` raises it.").
				Options(capOptions...).
				Value(&a.capChoice),
		),
	)
	if err := w.run(choices); err != nil {
		return err
	}
	// A form of its own rather than a hidden group: accessible mode asks
	// every field of a form, hidden or not.
	if a.capChoice == customCap {
		custom := huh.NewForm(huh.NewGroup(
			w.input("Cap per session, in US dollars", &a.capText, func(s string) error { _, err := parseCap(s); return err }),
		))
		if err := w.run(custom); err != nil {
			return err
		}
	}
	caps := huh.NewForm(huh.NewGroup(
		w.input("Cap per prompt, in US dollars (0: none)", &a.promptCapText, func(s string) error { _, err := parseOptionalCap(s); return err }),
		w.input("Cap per day, all sessions together, in US dollars (0: none)", &a.dailyCapText, func(s string) error { _, err := parseOptionalCap(s); return err }),
	).Title("More caps").Description("A cap per prompt stops one request that runs long; a daily cap bounds a day of unattended runs. Enter keeps each one."))
	if err := w.run(caps); err != nil {
		return err
	}
	limits := huh.NewForm(huh.NewGroup(
		w.input("Warn at this share of the cap, in %", &a.warnText, func(s string) error { _, err := parseShare(s); return err }),
		w.input("Ask after this many failed calls in a row", &a.failText, func(s string) error { _, err := parseRun(s); return err }),
		w.input("Ask after this many identical calls in a row", &a.repeatText, func(s string) error { _, err := parseRun(s); return err }),
	).Title("Other limits").Description("The defaults suit most people: enter keeps each one."))
	if err := w.run(limits); err != nil {
		return err
	}
	if err := w.askNotify(a); err != nil {
		return err
	}
	if !slices.Contains(a.harnesses, "claude") {
		return nil
	}
	rules := huh.NewForm(huh.NewGroup(
		huh.NewConfirm().
			Title("Let Claude Code itself keep runaway's files out of its reach?").
			Description(w.text(AgentRulesHelp)).
			Affirmative("Yes (recommended)").
			Negative("No").
			Value(&a.agentRules),
	))
	return w.run(rules)
}

// askNotify offers the desktop notifier found (and the notify_command
// already set) for runaway's stops, asks and denies: in a run nobody
// watches, they are otherwise seen by nobody. Without either, no screen.
func (w Wizard) askNotify(a *answers) error {
	name, found, ok := DesktopNotifier()
	if !ok && a.startNotify == "" {
		return nil
	}
	var opts []huh.Option[string]
	if ok {
		opts = append(opts, huh.NewOption("yes, with "+name, found))
	}
	if a.startNotify != "" && a.startNotify != found {
		opts = append(opts, huh.NewOption("keep: "+a.startNotify, a.startNotify))
	}
	opts = append(opts, huh.NewOption("no notifications", ""))
	form := huh.NewForm(huh.NewGroup(
		huh.NewSelect[string]().
			Title("Notify you when runaway stops, asks or denies?").
			Description(w.text("In claude -p, codex exec and other runs nobody watches, the agent shows runaway's reason to nobody. runaway can start a command with the event (see notify_command in the README).")).
			Options(opts...).
			Height(len(opts) + 3).
			Value(&a.notify),
	))
	return w.run(form)
}

// options turns the answers into setup's options (the same ones the flags
// set).
func (a answers) options(base SetupOptions) (SetupOptions, error) {
	opts := base
	opts.Harnesses = a.harnesses
	capText := a.capChoice
	if a.capChoice == customCap {
		capText = a.capText
	}
	capUSD, err := parseCap(capText)
	if err != nil {
		return opts, err
	}
	promptCap, err := parseOptionalCap(a.promptCapText)
	if err != nil {
		return opts, err
	}
	dailyCap, err := parseOptionalCap(a.dailyCapText)
	if err != nil {
		return opts, err
	}
	warnAt, err := parseShare(a.warnText)
	if err != nil {
		return opts, err
	}
	failures, err := parseRun(a.failText)
	if err != nil {
		return opts, err
	}
	repeats, err := parseRun(a.repeatText)
	if err != nil {
		return opts, err
	}
	opts.CapUSD, opts.WarnAt, opts.FailureRun, opts.RepeatRun = &capUSD, &warnAt, &failures, &repeats
	opts.NoAgentRules = !a.agentRules
	if a.notify != a.startNotify || base.Notify != nil {
		opts.Notify = &a.notify
	}
	if promptCap > 0 || a.startCaps[0] != "0" || base.PromptCapUSD != nil {
		opts.PromptCapUSD = &promptCap
	}
	if dailyCap > 0 || a.startCaps[1] != "0" || base.DailyCapUSD != nil {
		opts.DailyCapUSD = &dailyCap
	}
	return opts, nil
}

// show prints the choices, the plan's steps and its exact edits.
func (w Wizard) show(plan *SetupPlan, opts SetupOptions) {
	var names []string
	for _, h := range plan.Wire {
		names = append(names, h.Name)
	}
	caps := "cap $" + formatNumber(*opts.CapUSD) + " per session"
	if p := deref(opts.PromptCapUSD); p > 0 {
		caps += ", $" + formatNumber(p) + " per prompt"
	}
	if d := deref(opts.DailyCapUSD); d > 0 {
		caps += ", $" + formatNumber(d) + " per day"
	}
	fmt.Fprintf(w.Out, "\nGuard %s; %s, warn at %s%%; ask after %d failed or %d identical calls in a row.\n",
		strings.Join(names, " and "), caps, formatNumber(*opts.WarnAt*100), *opts.FailureRun, *opts.RepeatRun)
	fmt.Fprintln(w.Out, "runaway will:")
	for _, l := range plan.Steps() {
		fmt.Fprintln(w.Out, "  "+l)
	}
	fmt.Fprintln(w.Out)
	fmt.Fprint(w.Out, w.colorDiff(plan.Diff()))
	for _, l := range plan.Files.warningLines() {
		fmt.Fprintln(w.Out, l)
	}
	fmt.Fprintln(w.Out)
}

func (w Wizard) run(form *huh.Form) error {
	err := form.WithInput(w.In).WithOutput(w.Out).WithAccessible(w.Accessible).
		WithTheme(huh.ThemeBase16()).Run()
	if errors.Is(err, huh.ErrUserAborted) {
		return ErrCancelled
	}
	return err
}

// input is a text field holding *value at first. In accessible mode an
// empty answer keeps that value: huh checks the answer before it puts the
// default in, so blank must pass there, and the title names the default.
func (w Wizard) input(title string, value *string, validate func(string) error) *huh.Input {
	if w.Accessible {
		title += " (enter keeps " + *value + ")"
		check := validate
		validate = func(s string) error {
			if strings.TrimSpace(s) == "" {
				return nil
			}
			return check(s)
		}
	}
	return huh.NewInput().Title(title).Value(value).Validate(validate)
}

// text escapes what huh's notes would take for markup (_italic_,
// *bold*, `code`); accessible mode prints notes as they are.
func (w Wizard) text(s string) string {
	if w.Accessible {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, "_", `\_`, "*", `\*`, "`", "\\`")
	return r.Replace(s)
}

func (w Wizard) colorDiff(diff string) string {
	if w.Accessible {
		return diff
	}
	add := lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	del := lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	lines := strings.SplitAfter(diff, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			lines[i] = add.Render(body) + l[len(body):]
		case strings.HasPrefix(l, "-"):
			lines[i] = del.Render(body) + l[len(body):]
		}
	}
	return strings.Join(lines, "")
}

// welcome is the first screen: what runaway is, and what it does in each
// agent found (and why not in the others).
func welcome(agents []Found) string {
	var b strings.Builder
	b.WriteString("runaway stops coding agents that run away: the same failing call again and again, " +
		"a loop between two approaches, or money spent while nobody watches. " +
		"The agent runs it before every tool call.\n\nAgents on this machine:\n")
	found := false
	for _, f := range agents {
		if !f.Found {
			continue
		}
		found = true
		fmt.Fprintf(&b, "\n%s (%s): %s.\n%s\n", f.Name, ownfiles.Tilde(f.Where[0]), f.Support, f.Why)
	}
	if !found {
		b.WriteString("\nnone found; you can still wire Claude Code or Codex for later.\n")
	}
	return b.String()
}

// Steps are the plan's actions, one line each, without the diff: the
// summary of `setup`, the wizard's "runaway will:" and its "done:".
func (p *SetupPlan) Steps() []string {
	var out []string
	switch {
	case p.Binary.Skip:
		out = append(out, "keep "+ownfiles.Tilde(p.Binary.To)+" (already this version)")
	case p.Binary.Upgrade:
		out = append(out, "upgrade "+ownfiles.Tilde(p.Binary.To)+" (copy of "+ownfiles.Tilde(p.Binary.From)+")")
	default:
		out = append(out, "install "+ownfiles.Tilde(p.Binary.To)+" (copy of "+ownfiles.Tilde(p.Binary.From)+")")
	}
	for _, f := range p.Files {
		out = append(out, f.describe())
	}
	return out
}

// AfterSetup says what setup did and what only the person can still do,
// step by step.
func (p *SetupPlan) AfterSetup() []string {
	var names []string
	for _, h := range p.Wire {
		names = append(names, h.Name)
	}
	out := []string{"done: runaway guards " + strings.Join(names, ", ")}
	for _, l := range p.Steps() {
		out = append(out, "  "+l)
	}
	for _, h := range p.Wire {
		if h.ID != "codex" {
			continue
		}
		for _, f := range p.Files {
			if f.Harness == "codex" && f.Changed() {
				out = append(out,
					"",
					"Codex runs a new or changed hook only once you trust it. Once, now:",
					"  1. start codex: it says \"Hooks need review\"",
					"  2. choose \"Review hooks\" (or type /hooks)",
					"  3. trust runaway's two entries, named \""+configs.CodexToolName+"\" and \""+configs.CodexPromptName+"\" (both run "+ownfiles.Tilde(p.paths.Bin)+" hook codex)",
					"runaway doctor tells whether it is trusted.")
			}
		}
	}
	return out
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// parseCap reads a cap in US dollars: "20", "$20", "12.50".
func parseCap(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
	if err != nil || f <= 0 || f > 100000 {
		return 0, errors.New("enter an amount in US dollars, such as 20 or 7.50")
	}
	return f, nil
}

// parseOptionalCap reads a cap that may be off: 0 (or nothing) is none.
func parseOptionalCap(s string) (float64, error) {
	if t := strings.TrimPrefix(strings.TrimSpace(s), "$"); t == "" || t == "0" {
		return 0, nil
	}
	f, err := parseCap(s)
	if err != nil {
		return 0, errors.New("enter an amount in US dollars, such as 5 or 7.50, or 0 for none")
	}
	return f, nil
}

// parseShare reads a percentage (1-100) and returns it as a share.
func parseShare(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || f < 1 || f > 100 {
		return 0, errors.New("enter a percentage between 1 and 100")
	}
	return f / 100, nil
}

// parseRun reads a run length (2-100).
func parseRun(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 2 || n > 100 {
		return 0, errors.New("enter a whole number between 2 and 100")
	}
	return n, nil
}
