package powershell

import (
	"slices"
	"testing"
)

func TestStatements(t *testing.T) {
	got := Statements(`Get-Content a; Remove-Item 'x;y' | Out-Null && if ($a) { rm b; rm c }` + "\n" + `Write-Host "a|b"`)
	want := []string{"Get-Content a", "Remove-Item 'x;y'", "Out-Null", "if ($a) { rm b; rm c }", `Write-Host "a|b"`}
	if !slices.Equal(got, want) {
		t.Errorf("Statements = %q, want %q", got, want)
	}
}

func TestWords(t *testing.T) {
	vars := func(name string) string { return "<" + name + ">" }
	got := Words(`Copy-Item -Path "$HOME\a",'$env:X' ${env:Y}\b $ -Force`, vars)
	want := []string{"Copy-Item", "-Path", `<HOME>\a`, "$env:X", `<env:Y>\b`, "$", "-Force"}
	if !slices.Equal(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	if v := Option(got, "-path"); v != `<HOME>\a` {
		t.Errorf("Option = %q", v)
	}
	if p := Positional([]string{"-Path", "a", "b", "-Force"}); !slices.Equal(p, []string{"b"}) {
		t.Errorf("Positional = %q", p)
	}
}

// FuzzWords: no statement makes the reader panic.
func FuzzWords(f *testing.F) {
	for _, s := range []string{`a "b`, "a 'b", "${", "$", "{(}", "a;;b||c&&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, st := range Statements(s) {
			Words(st, func(string) string { return "" })
		}
	})
}
