package installer

import "testing"

// Notes in huh's normal mode read _x_ as italics: names such as
// doom_loop must come through as written.
func TestWizardTextEscapesMarkup(t *testing.T) {
	w := Wizard{}
	if got, want := w.text("doom_loop and *x* and `y`"), "doom\\_loop and \\*x\\* and \\`y\\`"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	w.Accessible = true
	if got := w.text("doom_loop"); got != "doom_loop" {
		t.Errorf("accessible text = %q", got)
	}
}
