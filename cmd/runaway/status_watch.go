package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
)

// watchActive is how recent a session's last call must be for the watch
// to show it.
const watchActive = time.Hour

// Terminal controls for drawing in place: cursor home, clear to the end
// of the line and of the screen, hide and show the cursor.
const (
	ansiHome       = "\x1b[H"
	ansiClearLine  = "\x1b[K"
	ansiClearBelow = "\x1b[J"
	ansiClearAll   = "\x1b[2J"
	ansiHideCursor = "\x1b[?25l"
	ansiShowCursor = "\x1b[?25h"
)

// runWatch redraws the active sessions every interval until ctrl-c (or
// count frames): in place on a terminal, else one plain block per frame,
// for a log.
func runWatch(w io.Writer, tty bool, o statusOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if tty {
		fmt.Fprint(w, ansiHideCursor+ansiHome+ansiClearAll)
		defer fmt.Fprint(w, ansiShowCursor)
	}
	rates := callRates{}
	for i := 0; o.count == 0 || i < o.count; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(o.interval):
			}
		}
		frame, err := watchFrame(ctx, o, rates, time.Now())
		if err != nil {
			return err
		}
		if tty {
			width, height := terminalSize(w)
			frame = ansiHome + strings.ReplaceAll(fit(frame, width, height), "\n", ansiClearLine+"\n") + ansiClearBelow
		} else if i > 0 {
			frame = "\n" + frame
		}
		fmt.Fprint(w, frame)
	}
	return nil
}

// terminalSize is the terminal's width and height, 0 when unknown.
func terminalSize(w io.Writer) (width, height int) {
	if f, ok := w.(*os.File); ok {
		if width, height, err := term.GetSize(f.Fd()); err == nil {
			return width, height
		}
	}
	return 0, 0
}

// fit cuts a frame to the terminal: a line that wrapped, or lines past the
// bottom that scrolled, would leave the next frame drawn out of place.
func fit(frame string, width, height int) string {
	lines := strings.SplitAfter(frame, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if height > 1 && len(lines) > height-1 {
		more := len(lines) - (height - 2)
		lines = append(lines[:height-2], fmt.Sprintf("… %d more lines: make the terminal taller, or give a SESSION\n", more))
	}
	for i, l := range lines {
		if r := []rune(strings.TrimSuffix(l, "\n")); width > 0 && len(r) > width {
			lines[i] = string(r[:width-1]) + "…\n"
		}
	}
	return strings.Join(lines, "")
}

// watchFrame renders one frame: a title line, then one line per session
// active in the last hour with its spend against its cap as a bar, its
// state, last decision and calls per minute.
func watchFrame(ctx context.Context, o statusOptions, rates callRates, now time.Time) (string, error) {
	// The config is read each frame: a cap raised meanwhile shows at once.
	policy, _ := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	pricer, _ := guard.NewPricer(policy)
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	views, err := (&guard.Store{Dir: stateDir()}).Views(rctx, o.session, policy, pricer)
	if err != nil {
		return "", failf([]string{"runaway doctor"}, "reading runaway's state: %v", err)
	}
	var active []guard.View
	for _, v := range views {
		if now.Sub(v.UpdatedAt) < watchActive {
			active = append(active, v)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "runaway status --watch  %s  %s, every %s; ctrl-c stops\n",
		now.Format(time.TimeOnly), plural(len(active), "active session"), o.interval)
	if len(active) == 0 {
		fmt.Fprintf(&b, "No session made a call in the last hour (%s in all: runaway status).\n", plural(len(views), "session"))
		return b.String(), nil
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSESSION\tPROJECT\tSPEND / CAP\tSTATE\tLAST DECISION\tCALLS/MIN\tACTIVE")
	for _, v := range active {
		last := "-"
		if d := v.LastDecision; d != nil {
			last = d.Wire + " " + d.Decision
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n",
			v.Harness, v.ShortID, folder(v.Cwd), spendBar(v), v.State, last, rates.rate(v, now), ago(now, v.UpdatedAt))
	}
	tw.Flush()
	return b.String(), nil
}

// barWidth is the spend bar's length in cells.
const barWidth = 10

// spendBar shows spend against the cap as a bar, the figures and the
// share: "██████░░░░ $5.80 / $10.00 58%". Without a cap, the spend.
func spendBar(v guard.View) string {
	if v.CapUSD <= 0 {
		return strings.Repeat(" ", barWidth) + " " + v.Spend() + " (no cap)"
	}
	share := v.SpendUSD / v.CapUSD
	n := min(max(int(math.Round(share*barWidth)), 0), barWidth)
	if n == 0 && v.SpendUSD > 0 {
		n = 1 // something was spent
	}
	return strings.Repeat("█", n) + strings.Repeat("░", barWidth-n) + " " + v.Spend() + fmt.Sprintf(" %.0f%%", 100*share)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// callRates remembers each session's call count at each frame, so that
// calls per minute are the session's rate over the last minute watched.
type callRates map[string][]callSample

type callSample struct {
	at    time.Time
	calls int
}

// rateWindow is the span the rate is taken over; minWatched is how long a
// session must have been watched before its own recent rate is shown
// rather than its average since it started.
const (
	rateWindow = time.Minute
	minWatched = 10 * time.Second
)

// rate records the session's count at now and returns its calls per minute.
func (r callRates) rate(v guard.View, now time.Time) float64 {
	key := string(v.Harness) + "/" + v.SessionID
	s := append(r[key], callSample{now, v.Calls})
	// Keep one sample at or before the window's start, as the base.
	for len(s) > 1 && now.Sub(s[1].at) >= rateWindow {
		s = s[1:]
	}
	r[key] = s
	if span := now.Sub(s[0].at); span >= minWatched {
		return float64(v.Calls-s[0].calls) / span.Minutes()
	}
	// Not watched long enough: its average over its calls so far.
	return float64(v.Calls) / max(v.UpdatedAt.Sub(v.StartedAt).Minutes(), 1)
}
