package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/runaway-guard/runaway/configs"
)

// knobFlag is one knob's flag. It keeps the text given; the knob's Parse
// reads it once the flags are parsed, so that the error names the flag,
// the value and the knob's rule (the same rule as the config's and the
// wizard's).
type knobFlag struct {
	knob configs.Knob
	text string
}

func (f *knobFlag) String() string     { return f.text }
func (f *knobFlag) Set(s string) error { f.text = s; return nil }
func (f *knobFlag) Type() string       { return f.knob.TypeName() }
func (f *knobFlag) IsBoolFlag() bool   { return f.knob.Kind == configs.Switch }

// addKnobFlags registers the flags of the knobs that have one (for
// replay, those it takes). Setup's show the knob's default; replay's
// default is the config's.
func addKnobFlags(fs *pflag.FlagSet, replay bool) {
	for _, k := range configs.Knobs {
		if k.Flag == "" || replay && !k.Replay {
			continue
		}
		f := &knobFlag{knob: k}
		help := k.Help
		if replay {
			help += " (default: the config's)"
		} else if k.Default != 0.0 && k.Default != "" {
			f.text = k.Format(k.Default)
		}
		fs.Var(f, k.Flag, help)
		if k.Kind == configs.Switch {
			fs.Lookup(k.Flag).NoOptDefVal = "true"
		}
	}
}

// knobsGiven are the knobs set on cmd's command line, by key, parsed.
func knobsGiven(cmd *cobra.Command) (map[string]any, error) {
	given := map[string]any{}
	var err error
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		f, ok := fl.Value.(*knobFlag)
		if !ok || err != nil {
			return
		}
		v, perr := f.knob.Parse(f.text)
		if perr != nil {
			err = usageError(cmd.CommandPath(), fmt.Errorf("--%s %s: %v", fl.Name, f.text, perr))
			return
		}
		given[f.knob.Key] = v
	})
	return given, err
}
