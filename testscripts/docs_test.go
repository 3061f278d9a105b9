package testscripts

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testbin"
)

// TestDocsCommandsRun keeps the pages true: it runs the runaway commands
// the README and docs/ show, page by page, each page in a scratch home of
// its own with no agent on PATH, the blocks in the order a reader meets
// them.
//
//   - In a ```sh block, every line that starts with `runaway ` runs (its
//     `# comment` dropped) and must succeed; the other lines need an
//     agent, a network or a build, and are left to the tests of those. A
//     `runaway setup` without --yes or --dry-run asks on a terminal: it runs
//     with --yes, which applies the plan the wizard's yes applies (the
//     wizard has tests of its own).
//   - A ```console block shows commands (`$ runaway …`) with what they
//     print; each must print that, line by line, where `…` stands for any
//     text and a run of spaces for any run of spaces.
//   - An HTML comment starting `<!-- doctest` holds shell lines run where
//     it stands, unseen by readers: the agent folders or the stopped
//     session a block needs. `<!-- doctest: skip … -->` leaves the next
//     block out, saying why.
func TestDocsCommandsRun(t *testing.T) {
	testbin.TouchSources("..")
	pages := []string{filepath.Join("..", "README.md")}
	for _, dir := range []string{"docs", "docs/agents", "docs/contributing"} {
		found, _ := filepath.Glob(filepath.Join("..", dir, "*.md"))
		pages = append(pages, found...)
	}
	ran := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		steps := docSteps(string(data))
		if len(steps) == 0 {
			continue
		}
		name := strings.TrimPrefix(filepath.ToSlash(page), "../")
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			env := append(isolated(home), "PATH="+binDir+":/usr/bin:/bin", "SHELL=/bin/sh", "NO_COLOR=1",
				// Not an agent, even when a developer runs the tests from one.
				testbin.FloorVar+"="+strconv.Itoa(os.Getpid()))
			for _, st := range steps {
				out, err := runDocLine(home, env, st.run)
				switch {
				case st.hidden:
					if err != nil {
						t.Fatalf("%s:%d: the doctest setup failed: %v\n%s", name, st.line, err, out)
					}
				case st.want == nil:
					if err != nil {
						t.Errorf("%s:%d: `%s` failed: %v\n%s", name, st.line, st.shown, err, out)
					}
				default:
					if msg := matchShown(st.want, out); msg != "" {
						t.Errorf("%s:%d: `%s` no longer prints what the page shows: %s\nit prints:\n%s", name, st.line, st.shown, msg, out)
					}
				}
				if !st.hidden {
					ran++
				}
			}
		})
	}
	if filtered := strings.Contains(flag.Lookup("test.run").Value.String(), "/"); ran < 10 && !filtered {
		t.Errorf("only %d commands of the docs ran; the blocks are not found", ran)
	}
}

// docStep is one command from a page: what it shows, what runs, and for
// a console block what it prints.
type docStep struct {
	line   int
	shown  string
	run    string
	want   []string // nil: only success is checked
	hidden bool     // a doctest comment's setup
}

func docSteps(page string) []docStep {
	var steps []docStep
	lines := strings.Split(page, "\n")
	skip := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "<!-- doctest: skip"):
			skip = true
		case l == "<!-- doctest":
			var body []string
			start := i + 1
			for i++; i < len(lines) && lines[i] != "-->"; i++ {
				body = append(body, lines[i])
			}
			steps = append(steps, docStep{line: start, run: strings.Join(body, "\n"), hidden: true})
		case l == "```sh" || l == "```console":
			console := l == "```console"
			start := i + 1
			var block []string
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				block = append(block, lines[i])
			}
			if skip {
				skip = false
				continue
			}
			if console {
				steps = append(steps, consoleSteps(start, block)...)
			} else {
				steps = append(steps, shSteps(start, block)...)
			}
		}
	}
	return steps
}

var trailingComment = regexp.MustCompile(`\s+#\s.*$`)

func shSteps(start int, block []string) []docStep {
	var steps []docStep
	for j, l := range block {
		if !strings.HasPrefix(l, "runaway ") {
			continue
		}
		run := trailingComment.ReplaceAllString(l, "")
		if strings.HasPrefix(run, "runaway setup") && !strings.Contains(run, "--yes") && !strings.Contains(run, "--dry-run") {
			run += " --yes"
		}
		steps = append(steps, docStep{line: start + j, shown: l, run: run})
	}
	return steps
}

func consoleSteps(start int, block []string) []docStep {
	var steps []docStep
	for j, l := range block {
		if cmd, ok := strings.CutPrefix(l, "$ "); ok {
			steps = append(steps, docStep{line: start + j, shown: cmd, run: cmd, want: []string{}})
			continue
		}
		if len(steps) > 0 {
			last := &steps[len(steps)-1]
			last.want = append(last.want, l)
		}
	}
	return steps
}

// runDocLine runs one line as the page's reader would in a shell, in the
// page's home, and returns what it printed, stdout and stderr together as
// a terminal shows them.
func runDocLine(home string, env []string, line string) (string, error) {
	cmd := exec.Command("sh", "-ec", line)
	cmd.Dir = home
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

var spaces = regexp.MustCompile(` +`)

// matchShown says how out differs from the lines a page shows ("" when it
// does not).
func matchShown(want []string, out string) string {
	got := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
		want = want[:len(want)-1]
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d lines, the page shows %d", len(got), len(want))
	}
	for i, w := range want {
		pattern := regexp.QuoteMeta(strings.TrimRight(w, " "))
		pattern = strings.ReplaceAll(pattern, "…", ".*")
		pattern = spaces.ReplaceAllString(pattern, " +")
		if !regexp.MustCompile("^" + pattern + "$").MatchString(strings.TrimRight(got[i], " ")) {
			return fmt.Sprintf("line %d is %q, the page shows %q", i+1, got[i], w)
		}
	}
	return ""
}
