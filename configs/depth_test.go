package configs

import (
	"strings"
	"testing"
)

func TestTooDeep(t *testing.T) {
	deep := strings.Repeat("[", MaxNesting+1)
	cases := []struct {
		name, text string
		deep       bool
	}{
		{"flat", `{"a":[1,{"b":2}]}`, false},
		{"at the limit", strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting), false},
		{"past it", `{"a":` + deep, true},
		{"balanced levels do not add up", strings.Repeat("[]", 3*MaxNesting), false},
		{"in a JSON string", `{"a":"` + deep + `"}`, false},
		{"after an escaped quote", `{"a":"\"` + deep + `"}`, false},
		{"after a string", `{"a":"x",` + deep, true},
		{"in a JSONC line comment", "{// " + deep + "\n}", false},
		{"in a JSONC block comment", "{/* " + deep + " */}", false},
		{"in a TOML comment", "# " + deep + "\na = 1", false},
		{"in a TOML literal string", "a = '" + deep + "'", false},
		{"in a TOML multi-line string", "a = \"\"\"x\"\n" + deep + "\"\"\"\"\nb = 1", false},
		{"after a TOML multi-line string", "a = '''x'''\nb = " + deep, true},
		{"TOML inline tables", "a = " + strings.Repeat("{b=", MaxNesting+1), true},
	}
	for _, c := range cases {
		if got := TooDeep([]byte(c.text)) >= 0; got != c.deep {
			t.Errorf("%s: TooDeep = %v, want %v", c.name, got, c.deep)
		}
	}
}
