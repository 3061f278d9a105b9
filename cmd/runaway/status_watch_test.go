package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/testhome"
)

// On a terminal the watch draws each frame in place: cursor home, every
// line cleared to its end, the rest of the screen cleared, the cursor
// hidden while it runs and shown again after. Not on a terminal: no
// terminal controls at all.
func TestWatchDrawsInPlaceOnATerminal(t *testing.T) {
	home := testhome.Isolate(t)
	h := &guard.Hook{StateDir: stateDir(), ConfigPath: filepath.Join(home, ".config", "runaway", "config.json")}
	var out bytes.Buffer
	h.Run(strings.NewReader(`{"session_id":"s-watch","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`), &out, "claude")

	var tty bytes.Buffer
	if err := runWatch(&tty, true, statusOptions{watch: true, interval: time.Millisecond, count: 3}); err != nil {
		t.Fatal(err)
	}
	s := tty.String()
	if !strings.HasPrefix(s, ansiHideCursor+ansiHome+ansiClearAll) || !strings.HasSuffix(s, ansiClearBelow+ansiShowCursor) {
		t.Fatalf("a terminal frame does not start by clearing or end by showing the cursor: %q", s)
	}
	if n := strings.Count(s, ansiHome+"runaway status --watch"); n != 3 {
		t.Errorf("%d frames drawn from the top, want 3: %q", n, s)
	}
	for _, line := range strings.Split(strings.TrimSuffix(s, ansiClearBelow+ansiShowCursor), "\n") {
		if line != "" && !strings.HasSuffix(line, ansiClearLine) {
			t.Errorf("line not cleared to its end (a shorter line would leave the last frame's tail): %q", line)
		}
	}
	if !strings.Contains(s, "s-watch") {
		t.Errorf("the session is not shown: %q", s)
	}

	var plain bytes.Buffer
	if err := runWatch(&plain, false, statusOptions{watch: true, interval: time.Millisecond, count: 2}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("plain output holds terminal controls: %q", plain.String())
	}
	if n := strings.Count(plain.String(), "runaway status --watch"); n != 2 {
		t.Errorf("%d plain frames, want 2", n)
	}
}

func TestCallRates(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	v := guard.View{Harness: agent.Claude, SessionID: "s", Calls: 20, StartedAt: start.Add(-10 * time.Minute), UpdatedAt: start}
	r := callRates{}
	// First seen: its average so far, 20 calls in 10 minutes.
	if got := r.rate(v, start); got != 2 {
		t.Errorf("first frame: %v calls/min, want the session's average 2", got)
	}
	// Watched for 30 s, 6 more calls: 12 a minute.
	v.Calls = 26
	if got := r.rate(v, start.Add(30*time.Second)); got != 12 {
		t.Errorf("after 30 s: %v calls/min, want 12", got)
	}
	// Two minutes on, quiet for the last minute: 0, not an average of the
	// busy time before.
	v.Calls = 40
	r.rate(v, start.Add(60*time.Second))
	if got := r.rate(v, start.Add(121*time.Second)); got != 0 {
		t.Errorf("quiet for a minute: %v calls/min, want 0", got)
	}
	// A session seen briefly and only once has no window yet: under a
	// minute of its life counts as a minute.
	w := guard.View{Harness: agent.Codex, SessionID: "new", Calls: 3, StartedAt: start, UpdatedAt: start.Add(5 * time.Second)}
	if got := r.rate(w, start.Add(6*time.Second)); got != 3 {
		t.Errorf("new session: %v calls/min, want 3", got)
	}
}

func TestSpendBar(t *testing.T) {
	for _, tt := range []struct {
		spend, cap float64
		want       string
	}{
		{0, 10, "░░░░░░░░░░ $0.00 / $10.00 0%"},
		{5, 10, "█████░░░░░ $5.00 / $10.00 50%"},
		{0.01, 10, "█░░░░░░░░░ $0.01 / $10.00 0%"},
		{15, 10, "██████████ $15.00 / $10.00 150%"},
		{3, 0, "           $3.00 (no cap)"},
	} {
		if got := spendBar(guard.View{SpendUSD: tt.spend, CapUSD: tt.cap}); got != tt.want {
			t.Errorf("spendBar(%v of %v) = %q, want %q", tt.spend, tt.cap, got, tt.want)
		}
	}
}

// A frame is cut to the terminal: long lines end in "…", and lines past
// the bottom are counted instead of scrolling the frame away.
func TestFitCutsToTheTerminal(t *testing.T) {
	frame := "title\nhead\n" + strings.Repeat("█", 30) + "\nrow 2\nrow 3\nrow 4\n"
	got := fit(frame, 10, 5)
	want := "title\nhead\n█████████…\n… 3 more …\n"
	if got != want {
		t.Errorf("fit = %q, want %q", got, want)
	}
	if got := fit(frame, 0, 0); got != frame {
		t.Errorf("unknown size: %q, want the frame as it is", got)
	}
}
