package installer

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"

	"github.com/runaway-guard/runaway/configs"
)

// ErrCancelled: the person left the wizard (ctrl-c, esc, or "no" at the
// end); nothing was written.
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

// Run runs the wizard. It returns ErrCancelled when the person stops it.
func (w Wizard) Run() (*SetupPlan, error) {
	paths := DefaultPaths()
	if w.Options.Paths != nil {
		paths = *w.Options.Paths
	}
	// The current config is the starting point; flags override it.
	current, _ := configs.LoadPolicy(paths.Config, func(string) string { return "" })
	agents := Detect()

	if !w.Accessible {
		// Ask the terminal for its background now, before the form reads
		// the keyboard: the answer then cannot be taken for key presses.
		lipgloss.HasDarkBackground()
	}

	chosen := w.Options.Harnesses
	if len(chosen) == 0 {
		for _, f := range agents {
			if f.Found && f.Support != NotSupported {
				chosen = append(chosen, f.ID)
			}
		}
	}
	var options []huh.Option[string]
	for _, f := range agents {
		if f.Support == NotSupported {
			continue
		}
		label := f.Name + " — " + f.Support.String()
		if !f.Found {
			label += " (not found)"
		}
		options = append(options, huh.NewOption(label, f.ID).Selected(slices.Contains(chosen, f.ID)))
	}

	capUSD := current.SessionCapUSD
	if w.Options.CapUSD != nil {
		capUSD = *w.Options.CapUSD
	}
	capChoice, customText := customCap, formatNumber(capUSD)
	var capOptions []huh.Option[string]
	for _, c := range capChoices {
		v := formatNumber(c)
		label := "$" + v
		if c == configs.DefaultSessionCapUSD {
			label += " (default)"
		}
		if c == capUSD {
			capChoice = v
		}
		capOptions = append(capOptions, huh.NewOption(label, v))
	}
	capOptions = append(capOptions, huh.NewOption("another amount", customCap))

	warnAt, failures, repeats := current.WarnAt, current.FailureRun, current.RepeatRun
	if w.Options.WarnAt != nil {
		warnAt = *w.Options.WarnAt
	}
	if w.Options.FailureRun != nil {
		failures = *w.Options.FailureRun
	}
	if w.Options.RepeatRun != nil {
		repeats = *w.Options.RepeatRun
	}
	warnText := formatNumber(warnAt * 100)
	failText, repeatText := strconv.Itoa(failures), strconv.Itoa(repeats)

	choices := huh.NewForm(
		huh.NewGroup(
			huh.NewNote().
				Title("runaway setup").
				Description(w.text(welcome(agents))).
				Next(true).NextLabel("Next"),
		),
		huh.NewGroup(
			huh.NewMultiSelect[string]().
				Title("Which agents should runaway guard?").
				Description("space selects, enter goes on").
				Options(options...).
				Value(&chosen).
				Validate(func(ids []string) error {
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
				Value(&capChoice),
		),
	)
	if err := w.run(choices); err != nil {
		return nil, err
	}
	// A form of its own rather than a hidden group: accessible mode asks
	// every field of a form, hidden or not.
	if capChoice == customCap {
		custom := huh.NewForm(huh.NewGroup(
			w.input("Cap per session, in US dollars", &customText, func(s string) error { _, err := parseCap(s); return err }),
		))
		if err := w.run(custom); err != nil {
			return nil, err
		}
	}
	limits := huh.NewForm(huh.NewGroup(
		w.input("Warn at this share of the cap, in %", &warnText, func(s string) error { _, err := parseShare(s); return err }),
		w.input("Ask after this many failed calls in a row", &failText, func(s string) error { _, err := parseRun(s); return err }),
		w.input("Ask after this many identical calls in a row", &repeatText, func(s string) error { _, err := parseRun(s); return err }),
	).Title("Other limits").Description("The defaults suit most people: enter keeps each one."))
	if err := w.run(limits); err != nil {
		return nil, err
	}

	opts := w.Options
	opts.Harnesses = chosen
	capText := capChoice
	if capChoice == customCap {
		capText = customText
	}
	var err error
	if capUSD, err = parseCap(capText); err != nil {
		return nil, err
	}
	opts.CapUSD = &capUSD
	if warnAt, err = parseShare(warnText); err != nil {
		return nil, err
	}
	opts.WarnAt = &warnAt
	if failures, err = parseRun(failText); err != nil {
		return nil, err
	}
	opts.FailureRun = &failures
	if repeats, err = parseRun(repeatText); err != nil {
		return nil, err
	}
	opts.RepeatRun = &repeats

	plan, err := PlanSetup(opts)
	if err != nil || plan.Empty() {
		return plan, err
	}
	var names []string
	for _, h := range plan.Wire {
		names = append(names, h.Name)
	}
	fmt.Fprintf(w.Out, "\nGuard %s; cap $%s per session, warn at %s%%; ask after %d failed or %d identical calls in a row.\n",
		strings.Join(names, " and "), formatNumber(capUSD), formatNumber(warnAt*100), failures, repeats)
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
		fmt.Fprintf(&b, "\n%s (%s): %s.\n%s\n", f.Name, Tilde(f.Where[0]), f.Support, f.Why)
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
		out = append(out, "keep "+Tilde(p.Binary.To)+" (already this version)")
	case p.Binary.Upgrade:
		out = append(out, "upgrade "+Tilde(p.Binary.To)+" (copy of "+Tilde(p.Binary.From)+")")
	default:
		out = append(out, "install "+Tilde(p.Binary.To)+" (copy of "+Tilde(p.Binary.From)+")")
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
					"  1. start codex",
					"  2. type /hooks",
					"  3. select runaway's entry ("+Tilde(p.paths.Bin)+" hook codex) and trust it",
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
