package patch

import "testing"

func TestApply(t *testing.T) {
	old := "a\nb\nc\nd\n"
	got, ok := Apply(old, []Hunk{{Context: "b", Old: []string{"c"}, New: []string{"C", "C2"}}})
	if !ok || got != "a\nb\nC\nC2\nd\n" {
		t.Errorf("Apply = %q, %v", got, ok)
	}
	if _, ok := Apply(old, []Hunk{{Old: []string{"zz"}}}); ok {
		t.Error("a hunk that does not match applied")
	}
}

func TestParse(t *testing.T) {
	ops := Parse("*** Begin Patch\n*** Update File: a\n@@ ctx\n-x\n+y\n keep\n*** Move to: b\n*** Add File: n\n+line\n*** Delete File: d\n*** End Patch\n")
	if len(ops) != 3 {
		t.Fatalf("%d ops, want 3: %+v", len(ops), ops)
	}
	u := ops[0]
	if u.Kind != 'U' || u.Path != "a" || u.MoveTo != "b" || len(u.Hunks) != 1 || u.Hunks[0].Context != "ctx" ||
		len(u.Hunks[0].Old) != 2 || u.Hunks[0].Old[0] != "x" || u.Hunks[0].New[0] != "y" || u.Hunks[0].New[1] != "keep" {
		t.Errorf("update: %+v", u)
	}
	if a := ops[1]; a.Kind != 'A' || a.Path != "n" || len(a.Added) != 1 || a.Added[0] != "line" {
		t.Errorf("add: %+v", a)
	}
	if d := ops[2]; d.Kind != 'D' || d.Path != "d" {
		t.Errorf("delete: %+v", d)
	}
}

// FuzzParse: no text makes the reader panic, and every update it reads can
// be tried on any content.
func FuzzParse(f *testing.F) {
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch", "x\n")
	f.Add("*** Add File: \n+", "")
	f.Fuzz(func(t *testing.T, text, content string) {
		for _, op := range Parse(text) {
			Apply(content, op.Hunks)
		}
	})
}
