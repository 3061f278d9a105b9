package tamper

import (
	"strings"
	"testing"
)

// TestProgramRowsNameTheirSources: every row of the program and wrapper
// tables says where its facts come from, and every program row does
// something (a paths rule or code).
func TestProgramRowsNameTheirSources(t *testing.T) {
	for name, p := range programs {
		if p.doc == "" {
			t.Errorf("programs[%q] names no source", name)
		}
		if p.paths == noPaths && p.run == nil {
			t.Errorf("programs[%q] neither names paths nor has code", name)
		}
		if p.paths == optionValue && len(p.outputs) == 0 {
			t.Errorf("programs[%q] reads option values but names no option", name)
		}
		if readers[name] {
			t.Errorf("%q is both a program row and a reader", name)
		}
	}
	for name, w := range wrappers {
		if w.doc == "" {
			t.Errorf("wrappers[%q] names no source", name)
		}
		for _, f := range []byte{w.lineFlag, w.chdirFlag, w.listFlag} {
			if f != 0 && strings.IndexByte(w.valueFlags, f) < 0 {
				t.Errorf("wrappers[%q]: -%c takes a value but is not among its value flags %q", name, f, w.valueFlags)
			}
		}
	}
}
