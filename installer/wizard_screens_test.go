package installer

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
)

var updateScreens = flag.Bool("update", false, "rewrite the wizard's screens (testdata/wizard) and their copy in docs/setup.md")

// screenWidth is the width of the terminal the screens are drawn for.
const screenWidth = 96

// The part of docs/setup.md made from the screens.
const (
	screensBegin = "<!-- The wizard's screens, drawn by its test (installer TestWizardScreens); do not edit by hand:\n     go test ./installer -run TestWizardScreens -update -->\n"
	screensEnd   = "<!-- end of the wizard's screens -->\n"
)

// TestWizardScreens draws every screen of the wizard, as huh draws it on
// a terminal 96 columns wide (without colours), for a home holding Claude
// Code, Codex and Gemini CLI with notify-send on PATH, taking every
// default; then the plan it shows and what it says once done. The screens
// are golden files in testdata/wizard, and docs/setup.md shows them: a
// change to the wizard's words or fields fails here until both are made
// again, so the docs cannot show a wizard that is gone.
func TestWizardScreens(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the screens are drawn for Linux's folders")
	}
	home, _ := sandbox(t)
	for _, d := range []string{".claude", ".codex", ".gemini"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "path", "notify-send"), "#!/bin/sh\n")
	if err := os.Chmod(filepath.Join(home, "path", "notify-send"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(home, "go", "bin", "runaway")
	write(t, exe, "runaway")

	var out bytes.Buffer
	w := Wizard{Out: &out, Options: SetupOptions{Executable: exe}}
	agents := Detect()
	a := w.startingAnswers(agents)
	name, cmd, ok := DesktopNotifier()
	var screens []shownScreen
	for _, sc := range w.screens(agents, &a, name, cmd, ok) {
		groups := drawGroups(sc.form())
		names := []string{sc.name}
		if sc.name == "choices" {
			names = []string{"welcome", "agents", "cap"}
		}
		if len(groups) != len(names) {
			t.Fatalf("%s: %d groups drawn, want %d", sc.name, len(groups), len(names))
		}
		for i, g := range groups {
			screens = append(screens, shownScreen{names[i], g})
		}
	}
	opts, err := a.options(w.Options)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanSetup(opts)
	if err != nil {
		t.Fatal(err)
	}
	w.show(plan, opts)
	apply := false
	screens = append(screens, shownScreen{"plan", clean(out.String()) + "\n" + drawGroups(confirmForm(&apply))[0]})
	screens = append(screens, shownScreen{"done", strings.Join(plan.AfterSetup(), "\n") + "\n"})
	for i := range screens {
		// The scratch home as a person's.
		screens[i].text = strings.ReplaceAll(screens[i].text, home, "/home/you")
	}

	dir := filepath.Join("testdata", "wizard")
	docPath := filepath.Join("..", "docs", "setup.md")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, found := strings.Cut(string(doc), screensBegin)
	_, after, foundEnd := strings.Cut(rest, screensEnd)
	if !found || !foundEnd {
		t.Fatalf("%s has no part between %q and %q", docPath, screensBegin, screensEnd)
	}
	wantDoc := before + screensBegin + screensDoc(screens) + screensEnd + after
	if *updateScreens {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, sc := range screens {
			if err := os.WriteFile(filepath.Join(dir, sc.file(i)), []byte(sc.text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(docPath, []byte(wantDoc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	stale := false
	for i, sc := range screens {
		have, err := os.ReadFile(filepath.Join(dir, sc.file(i)))
		if string(have) != sc.text {
			stale = true
			t.Errorf("the wizard's %s screen is not %s (%v); it now shows:\n%s", sc.name, filepath.Join(dir, sc.file(i)), err, sc.text)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != len(screens) {
		stale = true
		t.Errorf("%s holds %d screens, the wizard shows %d", dir, len(files), len(screens))
	}
	if string(doc) != wantDoc {
		stale = true
		t.Errorf("%s does not show the wizard's screens as they are", docPath)
	}
	if stale {
		t.Log("draw them again: go test ./installer -run TestWizardScreens -update")
	}
}

type shownScreen struct{ name, text string }

func (s shownScreen) file(i int) string { return fmt.Sprintf("%02d-%s.txt", i+1, s.name) }

// captions say what each screen is, in docs/setup.md.
var captions = map[string]string{
	"welcome":     "What runaway is, and what it does in each agent found:",
	"agents":      "Which agents to guard (the ones found are chosen):",
	"cap":         "The cap per session:",
	"custom-cap":  "With \"another amount\", any amount:",
	"caps":        "A cap per prompt and per day (off unless given):",
	"limits":      "The warning level, in percent (`--warn-at 80` says the same), and when to ask:",
	"notify":      "Only when a desktop notifier (notify-send, osascript) is found or a `notify_command` is set:",
	"agent-rules": "Only when Claude Code is chosen:",
	"plan":        "The plan and the exact edits (cut here after the list of files; the screen goes on with each file's diff), then the last question:",
	"done":        "Once it is done:",
}

// screensDoc shows the screens in markdown; the plan is cut before its
// diffs, which run to a hundred lines.
func screensDoc(screens []shownScreen) string {
	var b strings.Builder
	for _, sc := range screens {
		text := sc.text
		if sc.name == "plan" {
			if j := strings.Index(text, "\n--- "); j >= 0 {
				confirm := text[strings.LastIndex(text, "┃ Make these changes?"):]
				text = text[:j+1] + "…\n\n" + confirm
			}
		}
		fmt.Fprintf(&b, "%s\n\n```text\n%s```\n\n", captions[sc.name], strings.TrimLeft(text, "\n"))
	}
	return b.String()
}

// drawGroups draws each group of form in turn, as View shows it at each
// step (enter taking each default), blank runs of the group's padding
// squeezed to one line.
func drawGroups(form *huh.Form) []string {
	form = form.WithTheme(huh.ThemeBase16())
	feed(form, form.Init())
	form.Update(tea.WindowSizeMsg{Width: screenWidth, Height: 40})
	var out []string
	for form.State == huh.StateNormal {
		view := form.View()
		out = append(out, clean(view))
		feed(form, form.NextGroup())
		if form.View() == view {
			break
		}
	}
	return out
}

// feed hands the form the messages cmd makes, as bubbletea would.
func feed(form *huh.Form, cmd tea.Cmd) {
	for i := 0; cmd != nil && i < 20; i++ {
		switch msg := cmd().(type) {
		case nil:
			return
		case tea.BatchMsg:
			for _, c := range msg {
				feed(form, c)
			}
			return
		default:
			_, cmd = form.Update(msg)
		}
	}
}

var (
	colours    = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)
	blankLines = regexp.MustCompile(`\n{3,}`)
)

// clean takes out colours and trailing spaces, and squeezes the blank
// lines huh pads a group with to the height of the form's tallest.
func clean(s string) string {
	s = colours.ReplaceAllString(s, "")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	s = blankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n")
	return strings.TrimRight(s, "\n") + "\n"
}
