package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tripwire: a change to runaway's config made outside runaway (here
// as a Makefile target would make it) stops the next call, naming the
// file, and every call after it, until the person accepts; a person's own
// edit of a settings file that keeps runaway's entry does not trip it.
func TestTripwireStopsAfterAChangeRunawayDidNotMake(t *testing.T) {
	h := newTestHook(t)
	home := t.TempDir()
	h.BinPath = filepath.Join(home, "bin", "runaway")
	h.Getenv = func(k string) string { return map[string]string{"HOME": home}[k] }
	settings := filepath.Join(home, ".claude", "settings.json")
	entry := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"'` + h.BinPath + `' hook claude"}]}]}`
	for p, s := range map[string]string{h.ConfigPath: `{"session_cap_usd": 5}`, h.BinPath: "program", settings: entry + "\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() string {
		var out bytes.Buffer
		h.Run(strings.NewReader(bashCall), &out, "claude")
		h.running.Wait()
		return out.String()
	}
	if out := run(); out != "" {
		t.Fatalf("no record yet (the tripwire is off): %q", out)
	}
	if err := h.RecordTripwire(); err != nil {
		t.Fatal(err)
	}
	if out := run(); out != "" {
		t.Fatalf("nothing changed: %q", out)
	}
	// The person's own edit: a permission added, runaway's entry kept.
	edited := strings.Replace(entry, `{"hooks"`, `{"permissions":{"allow":["Bash(ls)"]},"hooks"`, 1)
	if err := os.WriteFile(settings, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(); out != "" {
		t.Fatalf("an edit that keeps runaway's entry tripped it: %q", out)
	}
	// The change a Makefile target makes.
	if err := os.WriteFile(h.ConfigPath, []byte(`{"session_cap_usd": 100000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		out := run()
		if !strings.Contains(out, `"continue":false`) || !strings.Contains(out, h.ConfigPath) || !strings.Contains(out, "runaway accept") {
			t.Fatalf("after the config changed: %q, want a stop naming %s and the next command", out, h.ConfigPath)
		}
	}
	if tr, err := TrippedNow(h.StateDir); err != nil || tr == nil {
		t.Fatalf("TrippedNow = %v, %v", tr, err)
	}
	// Removing runaway's entry is a change too.
	if err := h.RecordTripwire(); err != nil {
		t.Fatal(err)
	}
	if out := run(); out != "" {
		t.Fatalf("after accept: %q", out)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run(); !strings.Contains(out, settings) {
		t.Fatalf("runaway's entry removed: %q, want a stop naming %s", out, settings)
	}
}

// BenchmarkTripwire: the tripwire's cost per call when nothing changed
// (the record read, each watched file's stat); a figure only on a quiet
// machine.
func BenchmarkTripwire(b *testing.B) {
	h := &Hook{StateDir: filepath.Join(b.TempDir(), "state"), Stderr: &bytes.Buffer{}}
	home := b.TempDir()
	h.ConfigPath = filepath.Join(home, ".config", "runaway", "config.json")
	h.BinPath = filepath.Join(home, "bin", "runaway")
	h.Getenv = func(k string) string { return map[string]string{"HOME": home}[k] }
	for p, s := range map[string]string{h.ConfigPath: `{}`, h.BinPath: "program", filepath.Join(home, ".claude", "settings.json"): `{"hooks":{}}`} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := h.RecordTripwire(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if v := h.tripwire(); v.Kind != None {
			b.Fatal(v.Reason)
		}
	}
}
