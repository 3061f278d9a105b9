package installer

import "testing"

func TestWizardParsers(t *testing.T) {
	caps := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"20", 20, true}, {"$7.50", 7.5, true}, {" 12.5 ", 12.5, true},
		{"0", 0, false}, {"-5", 0, false}, {"twelve", 0, false}, {"", 0, false}, {"1e9", 0, false},
	}
	for _, c := range caps {
		got, err := parseCap(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseCap(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	shares := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"80", 0.8, true}, {"50%", 0.5, true}, {"100", 1, true},
		{"0", 0, false}, {"101", 0, false}, {"0.8", 0, false}, {"", 0, false},
	}
	for _, c := range shares {
		got, err := parseShare(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseShare(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	runs := []struct {
		in   string
		want int
		ok   bool
	}{
		{"5", 5, true}, {" 2", 2, true}, {"100", 100, true},
		{"1", 0, false}, {"101", 0, false}, {"3.5", 0, false}, {"", 0, false},
	}
	for _, c := range runs {
		got, err := parseRun(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseRun(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

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
