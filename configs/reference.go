package configs

import (
	"fmt"
	"strings"
)

// Reference is docs/configuration.md, made from Knobs (a test keeps the
// file current: go test ./configs -run TestConfigurationReference -update).
func Reference() string {
	var b strings.Builder
	b.WriteString(`# Configuration

<!-- Made from configs.Knobs by configs.Reference; do not edit by hand:
     go test ./configs -run TestConfigurationReference -update -->

runaway reads its limits from ` + "`config.json`" + ` in its config folder
(` + "`$XDG_CONFIG_HOME/runaway/config.json`" + `, by default ` + "`~/.config/runaway/config.json`" + `):
JSON with comments, every key optional. ` + "`runaway setup`" + ` writes it (the wizard asks,
or the flags below set one key each, touching nothing else in the file); you may
also edit it by hand. An environment variable overrides one key for the
processes that see it, such as ` + "`RUNAWAY_SESSION_CAP_USD=5`" + `.

A value outside its bounds is never used: setup and replay refuse it, the hook
keeps the default for that key and logs why (` + "`runaway doctor`" + ` shows it).

| key | environment | flag | takes | default |
|---|---|---|---|---|
`)
	for _, k := range Knobs {
		flag := "—"
		if k.Flag != "" {
			flag = "`--" + k.Flag + "`"
			if k.Replay {
				flag += " (setup, replay)"
			}
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | `%s` |\n", k.Key, k.Env(), flag, k.takes(), FormatValue(k.Default))
	}
	b.WriteString("\n")
	for _, k := range Knobs {
		fmt.Fprintf(&b, "- `%s`: %s\n", k.Key, k.Comment)
	}
	b.WriteString("- `prices`: model prices to add or override, by model id (see the README's Prices); `RUNAWAY_PRICES` takes the same object as JSON.\n")
	return b.String()
}

// takes says in a table cell what the knob takes.
func (k Knob) takes() string {
	switch k.Kind {
	case Dollars:
		return fmt.Sprintf("US dollars, %s to %s (0: no cap)", FormatValue(k.Min), FormatValue(k.Max))
	case Share:
		return "a percentage above 0 and at most 100: `80` or `80%`; a number up to 1 is the share itself (`0.8`, as setup writes it)"
	case Count:
		return fmt.Sprintf("a whole number, %s to %s", FormatValue(k.Min), FormatValue(k.Max))
	case Switch:
		return "`true` or `false`"
	}
	return "a shell command, `\"\"` for none"
}
