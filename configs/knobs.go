package configs

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is what a knob holds, and so how its text is read.
type Kind int

const (
	Dollars Kind = iota // US dollars, "20", "$7.50"; 0 turns a cap off
	Share               // a share of the cap, as people write it in percent: "80", "80%"; or "0.8"
	Count               // a whole number
	Switch              // true or false
	Command             // a shell command; "" for none
)

// Knob is one of the policy's settings, described once: the config key,
// its environment override, setup's (and replay's) flag, its bounds and
// default, and the words the flag help, the config file's comment and the
// wizard use for it. Flags, the wizard, the config's validation, the
// comments setup writes and docs/configuration.md are all made from Knobs.
type Knob struct {
	Key      string  // the config's key; RUNAWAY_<KEY> overrides it
	Flag     string  // setup's flag; "" for none
	Replay   bool    // replay takes the flag too
	Kind     Kind    //
	Min, Max float64 // Dollars and Count: the bounds, both included
	Default  any     // float64 (Dollars, Share), int, bool or string
	Help     string  // the flag's help
	Comment  string  // the line setup writes above it in config.json
	Prompt   string  // the wizard's question; "" when it asks none
	field    func(*Policy) any
}

// Knobs are the policy's settings, in the order people read them. prices
// is not one: it is a table of its own (see pricing).
var Knobs = []Knob{
	{
		Key: "session_cap_usd", Flag: "cap", Replay: true, Kind: Dollars, Max: MaxCapUSD, Default: float64(DefaultSessionCapUSD),
		Help:    "spend cap per session, in US dollars (0: none)",
		Comment: "Deny the calls and end the turn when a session has spent this many US dollars (0: no cap).",
		Prompt:  "Cap per session, in US dollars",
		field:   func(p *Policy) any { return &p.SessionCapUSD },
	},
	{
		Key: "prompt_cap_usd", Flag: "prompt-cap", Kind: Dollars, Max: MaxCapUSD, Default: 0.0,
		Help:    "spend cap per prompt, in US dollars (0: none)",
		Comment: "Deny the calls and end the turn when one prompt has spent this many US dollars (0: no cap).",
		Prompt:  "Cap per prompt, in US dollars (0: none)",
		field:   func(p *Policy) any { return &p.PromptCapUSD },
	},
	{
		Key: "daily_cap_usd", Flag: "daily-cap", Kind: Dollars, Max: MaxCapUSD, Default: 0.0,
		Help:    "spend cap per day across all sessions, in US dollars (0: none)",
		Comment: "Deny the calls and end the turn when all sessions together have spent this many US dollars today (0: no cap).",
		Prompt:  "Cap per day, all sessions together, in US dollars (0: none)",
		field:   func(p *Policy) any { return &p.DailyCapUSD },
	},
	{
		Key: "warn_at", Flag: "warn-at", Replay: true, Kind: Share, Default: DefaultWarnAt,
		Help:    "warn once when this much of the cap is spent, in percent (80, 80% or 0.8)",
		Comment: "Warn once when this share of the cap is spent: 0.8 (or 80) warns at 80%.",
		Prompt:  "Warn when this much of the cap is spent, in percent",
		field:   func(p *Policy) any { return &p.WarnAt },
	},
	{
		Key: "failure_run", Flag: "failures", Replay: true, Kind: Count, Min: 2, Max: MaxRun, Default: DefaultFailureRun,
		Help:    "ask after this many failed tool calls in a row",
		Comment: "Ask after this many failed tool calls in a row.",
		Prompt:  "Ask after this many failed calls in a row",
		field:   func(p *Policy) any { return &p.FailureRun },
	},
	{
		Key: "repeat_run", Flag: "repeats", Replay: true, Kind: Count, Min: 2, Max: MaxRun, Default: DefaultRepeatRun,
		Help:    "ask after this many identical tool calls in a row",
		Comment: "Ask after this many identical tool calls in a row.",
		Prompt:  "Ask after this many identical calls in a row",
		field:   func(p *Policy) any { return &p.RepeatRun },
	},
	{
		Key: "escalate", Flag: "escalate", Replay: true, Kind: Switch, Default: true,
		Help:    "end the turn when a wire asks again after its ask was refused (--escalate=false: keep asking)",
		Comment: "End the turn when a wire asks again in the same prompt after its ask was refused (false: keep asking).",
		field:   func(p *Policy) any { return &p.Escalate },
	},
	{
		Key: "end_agent", Kind: Switch, Default: true,
		Comment: "At a stop the agent's hook answer cannot end (Codex: a spend cap, or a loop or failure stop), end the agent's process that ran the hook (false: deny every later call instead).",
		field:   func(p *Policy) any { return &p.EndAgent },
	},
	{
		Key: "notify_command", Flag: "notify", Kind: Command, Default: "",
		Help:    "shell `COMMAND` to start when runaway stops, asks or denies (the event as JSON on stdin; \"\" for none)",
		Comment: "A shell command started (detached, with the event as JSON on stdin) when runaway stops, asks or denies; \"\" for none.",
		field:   func(p *Policy) any { return &p.NotifyCommand },
	},
}

// The bounds: a cap above MaxCapUSD is a typo, and a run longer than
// MaxRun calls never asks in practice.
const (
	MaxCapUSD = 100_000
	MaxRun    = 100
)

// KnobByKey returns the knob with that config key.
func KnobByKey(key string) (Knob, bool) {
	for _, k := range Knobs {
		if k.Key == key {
			return k, true
		}
	}
	return Knob{}, false
}

// Env is the environment variable that overrides the knob.
func (k Knob) Env() string { return EnvName(k.Key) }

// Parse reads a value as a person writes it (a flag, the wizard, the
// environment) and checks it: the one rule for this knob everywhere.
func (k Knob) Parse(s string) (any, error) {
	s = strings.TrimSpace(s)
	var v any
	var err error
	switch k.Kind {
	case Dollars:
		v, err = strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	case Share:
		// The wizard, the messages and status say "80%", so people type
		// 80: a number above 1 is a percentage. One up to 1 is the share
		// itself, as the config file holds it.
		t, percent := strings.CutSuffix(s, "%")
		var f float64
		f, err = strconv.ParseFloat(strings.TrimSpace(t), 64)
		if percent || f > 1 {
			f /= 100
		}
		v = f
	case Count:
		v, err = strconv.Atoi(s)
	case Switch:
		v, err = strconv.ParseBool(s)
	case Command:
		v = s
	}
	if err != nil {
		return nil, errors.New(k.Rule())
	}
	if err := k.Check(v); err != nil {
		return nil, err
	}
	return v, nil
}

// Check tells whether v (of the knob's type, as from the config file) is
// within the knob's bounds.
func (k Knob) Check(v any) error {
	ok := false
	switch k.Kind {
	case Dollars:
		f, isF := v.(float64)
		ok = isF && !math.IsNaN(f) && f >= k.Min && f <= k.Max
	case Share:
		f, isF := v.(float64)
		ok = isF && f > 0 && f <= 1
	case Count:
		n, isN := v.(int)
		ok = isN && float64(n) >= k.Min && float64(n) <= k.Max
	case Switch:
		_, ok = v.(bool)
	case Command:
		_, ok = v.(string)
	}
	if !ok {
		return errors.New(k.Rule())
	}
	return nil
}

// Rule says in words what the knob takes.
func (k Knob) Rule() string {
	switch k.Kind {
	case Dollars:
		return fmt.Sprintf("give a spend cap in US dollars, %s to %s, such as 20 or 7.50 (0 turns it off)", FormatValue(k.Min), FormatValue(k.Max))
	case Share:
		return "give a percentage of the cap above 0 and at most 100, such as 80 or 80% (0.8 reads as 80%)"
	case Count:
		return fmt.Sprintf("give a whole number from %s to %s", FormatValue(k.Min), FormatValue(k.Max))
	case Switch:
		return "give true or false"
	}
	return "give a shell command, or \"\" for none"
}

// Format writes v as Parse reads it (a share as a percentage, a command
// as it is).
func (k Knob) Format(v any) string {
	if f, ok := v.(float64); ok && k.Kind == Share {
		return FormatValue(math.Round(f*1e6)/1e4) + "%"
	}
	if s, ok := v.(string); ok {
		return s
	}
	return FormatValue(v)
}

// FormatValue writes a number without a needless fraction: 20, 7.5.
func FormatValue(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(v)
}

// Get is the knob's value in p.
func (k Knob) Get(p *Policy) any {
	switch f := k.field(p).(type) {
	case *float64:
		return *f
	case *int:
		return *f
	case *bool:
		return *f
	case *string:
		return *f
	}
	return nil
}

// Set puts v, of the knob's type, into p.
func (k Knob) Set(p *Policy, v any) {
	switch f := k.field(p).(type) {
	case *float64:
		*f = v.(float64)
	case *int:
		*f = v.(int)
	case *bool:
		*f = v.(bool)
	case *string:
		*f = v.(string)
	}
}

// decode sets the knob in p from its JSON value in the config file.
func (k Knob) decode(p *Policy, raw json.RawMessage) error {
	switch f := k.field(p).(type) {
	case *float64:
		var v float64
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		if k.Kind == Share && v > 1 {
			v /= 100 // 80 in the file is 80%, as on the command line
		}
		*f = v
	case *int:
		var v int
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		*f = v
	case *bool:
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		*f = v
	case *string:
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		*f = v
	}
	return nil
}

// kindName says what the config file must hold for the knob.
func (k Knob) kindName() string {
	switch k.Kind {
	case Dollars, Share:
		return "a number"
	case Count:
		return "a whole number"
	case Switch:
		return "true or false"
	}
	return "a string"
}

// TypeName is the flag's type as help shows it.
func (k Knob) TypeName() string {
	switch k.Kind {
	case Share:
		return "percent"
	case Count:
		return "int"
	case Switch:
		return "bool"
	case Command:
		return "string"
	}
	return "float"
}
