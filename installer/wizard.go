package installer

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
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

// askedKnobs are the knobs the wizard asks as text fields, by key (the
// session cap as "another amount").
var askedKnobs = []string{"session_cap_usd", "prompt_cap_usd", "daily_cap_usd", "warn_at", "failure_run", "repeat_run"}

// optionalCaps are the caps off by default: one that is off and stays off
// is not written into the config.
var optionalCaps = []string{"prompt_cap_usd", "daily_cap_usd"}

// answers are the wizard's fields as the person edits them.
type answers struct {
	harnesses []agent.ID
	capChoice string // a capChoices amount, or customCap
	// text holds each asked knob's field, as its knob formats it (the
	// session cap's when capChoice is customCap); start what it started as.
	text       map[string]*string
	start      map[string]string
	agentRules bool // write Claude Code's own deny rules
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
	if err := w.run(confirmForm(&apply)); err != nil {
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
	value := func(k configs.Knob) any {
		if v, ok := o.Limits[k.Key]; ok {
			return v
		}
		return k.Get(&current)
	}
	a := answers{
		harnesses:  o.Harnesses,
		capChoice:  customCap,
		text:       map[string]*string{},
		start:      map[string]string{},
		agentRules: !o.NoAgentRules,
		notify:     value(knob("notify_command")).(string),
	}
	for _, key := range askedKnobs {
		k := knob(key)
		t := k.Format(value(k))
		a.text[key], a.start[key] = &t, t
	}
	a.startNotify = a.notify
	if _, cmd, ok := DesktopNotifier(); ok && a.notify == "" {
		if _, given := o.Limits["notify_command"]; !given {
			// The notifier found is the ready choice.
			a.notify = cmd
		}
	}
	if capUSD := value(knob("session_cap_usd")).(float64); slices.Contains(capChoices, capUSD) {
		a.capChoice = configs.FormatValue(capUSD)
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

// knob is the knob with that key; the keys are the wizard's own.
func knob(key string) configs.Knob {
	k, ok := configs.KnobByKey(key)
	if !ok {
		panic("installer: no knob " + key)
	}
	return k
}

// input is a text field for a knob, checked by the knob's own rule.
func (w Wizard) knobInput(a *answers, key string) *huh.Input {
	k := knob(key)
	return w.input(k.Prompt, a.text[key], func(s string) error { _, err := k.Parse(s); return err })
}

// ask runs the screens: welcome and agents, which to wire, the cap (and
// an amount of one's own), the other caps and limits, notifications, and
// Claude Code's own rules.
func (w Wizard) ask(agents []Found, a *answers) error {
	name, found, ok := DesktopNotifier()
	for _, sc := range w.screens(agents, a, name, found, ok) {
		if sc.skip != nil && sc.skip() {
			continue
		}
		if err := w.run(sc.form()); err != nil {
			return err
		}
	}
	return nil
}

// screen is one of the wizard's forms, built when its turn comes (from
// the answers so far); skip, when set, tells whether it is left out.
type screen struct {
	name string
	form func() *huh.Form
	skip func() bool
}

// screens are the wizard's forms in the order it asks them, given the
// desktop notifier found (notifierOK false: none). Its test draws them
// for docs/setup.md (testdata/wizard).
func (w Wizard) screens(agents []Found, a *answers, notifier, notifyCmd string, notifierOK bool) []screen {
	return []screen{
		{name: "choices", form: func() *huh.Form { return w.choicesForm(agents, a) }},
		// A form of its own rather than a hidden group: accessible mode
		// asks every field of a form, hidden or not.
		{name: "custom-cap", form: func() *huh.Form {
			return huh.NewForm(huh.NewGroup(w.knobInput(a, "session_cap_usd")))
		}, skip: func() bool { return a.capChoice != customCap }},
		{name: "caps", form: func() *huh.Form {
			return huh.NewForm(huh.NewGroup(
				w.knobInput(a, "prompt_cap_usd"),
				w.knobInput(a, "daily_cap_usd"),
			).Title("More caps").Description("A cap per prompt stops one request that runs long; a daily cap bounds a day of unattended runs. Enter keeps each one."))
		}},
		{name: "limits", form: func() *huh.Form {
			return huh.NewForm(huh.NewGroup(
				w.knobInput(a, "warn_at"),
				w.knobInput(a, "failure_run"),
				w.knobInput(a, "repeat_run"),
			).Title("Other limits").Description("The defaults suit most people: enter keeps each one."))
		}},
		// In a run nobody watches, stops, asks and denies are otherwise
		// seen by nobody. Without a notifier or a notify_command, no screen.
		{name: "notify", form: func() *huh.Form { return w.notifyForm(a, notifier, notifyCmd, notifierOK) },
			skip: func() bool { return !notifierOK && a.startNotify == "" }},
		{name: "agent-rules", form: func() *huh.Form {
			return huh.NewForm(huh.NewGroup(
				huh.NewConfirm().
					Title("Let Claude Code itself keep runaway's files out of its reach?").
					Description(AgentRulesHelp).
					Affirmative("Yes (recommended)").
					Negative("No").
					Value(&a.agentRules),
			))
		}, skip: func() bool { return !slices.Contains(a.harnesses, "claude") }},
	}
}

// choicesForm: the welcome (what runaway does in each agent found), which
// agents to guard, and the cap per session.
func (w Wizard) choicesForm(agents []Found, a *answers) *huh.Form {
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
		label := "$" + configs.FormatValue(c)
		if c == configs.DefaultSessionCapUSD {
			label += " (default)"
		}
		capOptions = append(capOptions, huh.NewOption(label, configs.FormatValue(c)))
	}
	capOptions = append(capOptions, huh.NewOption("another amount", customCap))
	return huh.NewForm(
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
}

// notifyForm offers the desktop notifier found (and the notify_command
// already set) for runaway's stops, asks and denies.
func (w Wizard) notifyForm(a *answers, name, found string, ok bool) *huh.Form {
	var opts []huh.Option[string]
	if ok {
		opts = append(opts, huh.NewOption("yes, with "+name, found))
	}
	if a.startNotify != "" && a.startNotify != found {
		opts = append(opts, huh.NewOption("keep: "+a.startNotify, a.startNotify))
	}
	opts = append(opts, huh.NewOption("no notifications", ""))
	return huh.NewForm(huh.NewGroup(
		huh.NewSelect[string]().
			Title("Notify you when runaway stops, asks or denies?").
			Description("In claude -p, codex exec and other runs nobody watches, the agent shows runaway's reason to nobody. runaway can start a command with the event (notify_command: docs/notifications.md).").
			Options(opts...).
			Height(len(opts) + 3).
			Value(&a.notify),
	))
}

// confirmForm asks the last question, once the plan is shown.
func confirmForm(apply *bool) *huh.Form {
	return huh.NewForm(huh.NewGroup(
		huh.NewConfirm().
			Title("Make these changes?").
			Affirmative("Yes, set up").
			Negative("No").
			Value(apply),
	))
}

// options turns the answers into setup's options (the same ones the flags
// set).
func (a answers) options(base SetupOptions) (SetupOptions, error) {
	opts := base
	opts.Harnesses = a.harnesses
	opts.NoAgentRules = !a.agentRules
	opts.Limits = maps.Clone(base.Limits)
	if opts.Limits == nil {
		opts.Limits = map[string]any{}
	}
	for _, key := range askedKnobs {
		text := *a.text[key]
		if key == "session_cap_usd" && a.capChoice != customCap {
			text = a.capChoice
		}
		k := knob(key)
		v, err := k.Parse(text)
		if err != nil {
			return opts, fmt.Errorf("%s %q: %w", k.Prompt, text, err)
		}
		_, given := base.Limits[key]
		if slices.Contains(optionalCaps, key) && v == 0.0 && a.start[key] == "0" && !given {
			continue // off, and it stays off
		}
		opts.Limits[key] = v
	}
	if _, given := base.Limits["notify_command"]; a.notify != a.startNotify || given {
		opts.Limits["notify_command"] = a.notify
	}
	return opts, nil
}

// show prints the choices, the plan's steps and its exact edits.
func (w Wizard) show(plan *SetupPlan, opts SetupOptions) {
	var names []string
	for _, h := range plan.Wire {
		names = append(names, h.Name)
	}
	caps := "no cap per session"
	if c := opts.Limits["session_cap_usd"].(float64); c > 0 {
		caps = "cap $" + configs.FormatValue(c) + " per session"
	}
	for _, c := range []struct{ key, per string }{{"prompt_cap_usd", "prompt"}, {"daily_cap_usd", "day"}} {
		if v, _ := opts.Limits[c.key].(float64); v > 0 {
			caps += ", $" + configs.FormatValue(v) + " per " + c.per
		}
	}
	fmt.Fprintf(w.Out, "\nGuard %s; %s, warn at %s; ask after %d failed or %d identical calls in a row.\n",
		joinNames(names), caps, knob("warn_at").Format(opts.Limits["warn_at"]), opts.Limits["failure_run"], opts.Limits["repeat_run"])
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
// *bold*, `code`); accessible mode prints notes as they are. Only notes
// read markup: other fields' descriptions would show the backslashes.
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
		b.WriteString("\nnone found; you can still wire " + WiredNames() + " for later.\n")
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
	for _, e := range p.Files {
		out = append(out, e.Describe())
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
	spelled := map[string]bool{}
	for _, h := range p.Wire {
		if e := p.Files.hookEditOf(h.ID); h.afterSetup != nil && e != nil && e.Changed() {
			out = append(out, h.afterSetup(p.paths.Bin)...)
			spelled[h.Name] = true
		}
	}
	// The rest of what setup --yes lists as still to do (the PATH).
	var todo []string
	for _, t := range p.Todo {
		if name, _, ok := strings.Cut(t, ": "); ok && spelled[name] {
			continue
		}
		todo = append(todo, "  "+t)
	}
	if len(todo) > 0 {
		out = append(append(out, "", "still to do:"), todo...)
	}
	return out
}
