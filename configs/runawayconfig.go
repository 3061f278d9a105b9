package configs

import (
	"fmt"
	"strings"
)

// ConfigSetting is one field setup writes into runaway's own config.
type ConfigSetting struct {
	Key     string
	Value   any    // float64 or int
	Comment string // one line, for a new file's template
}

// NewConfig is the text of a new config.json: a short commented template
// holding settings.
func NewConfig(settings []ConfigSetting) []byte {
	var b strings.Builder
	b.WriteString("// runaway's limits: JSON with comments. `runaway setup` writes them;\n")
	b.WriteString("// edit them here, or run `runaway setup` again.\n{\n")
	for i, s := range settings {
		if s.Comment != "" {
			fmt.Fprintf(&b, "  // %s\n", s.Comment)
		}
		fmt.Fprintf(&b, "  %s: %s", []byte(literal(s.Key)), []byte(literal(s.Value)))
		if i < len(settings)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// SetConfig writes settings into an existing config, value by value,
// touching nothing else; it reports whether anything changed.
func SetConfig(d *Doc, settings []ConfigSetting) bool {
	changed := false
	for _, s := range settings {
		if d.SetTopLevel(s.Key, s.Value) {
			changed = true
		}
	}
	return changed
}
