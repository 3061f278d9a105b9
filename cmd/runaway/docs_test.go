package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/pricing"
)

// updateDocs rewrites the generated pages: go test ./cmd/runaway -run TestCommandPages -update
var updateDocs = flag.Bool("update", false, "rewrite docs/commands from the commands")

// docsRoot is the command tree as people get it, with cobra's own help and
// completion commands in it, and no date stamped on the pages.
func docsRoot() *cobra.Command {
	root := newRootCmd(strings.NewReader(""), io.Discard, io.Discard)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true
	return root
}

// TestEveryCommandHasAnExample: each command's help shows how it is used.
func TestEveryCommandHasAnExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || (sub.Parent().Name() == "completion") {
				continue
			}
			if strings.TrimSpace(sub.Example) == "" {
				t.Errorf("%s has no Example", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(docsRoot())
}

// TestCommandPagesAreCurrent: docs/commands is made from the commands' own
// help (cobra/doc, linked into this test only, never into runaway), so it
// cannot drift from --help: a page that differs fails here.
func TestCommandPagesAreCurrent(t *testing.T) {
	out := t.TempDir()
	if err := doc.GenMarkdownTree(docsRoot(), out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "docs", "commands")
	if *updateDocs {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(dir, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, _ := os.ReadDir(out)
	have, _ := os.ReadDir(dir)
	if len(want) != len(have) {
		t.Errorf("docs/commands has %d pages, the commands make %d", len(have), len(want))
	}
	for _, e := range want {
		w, _ := os.ReadFile(filepath.Join(out, e.Name()))
		h, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !bytes.Equal(w, h) {
			t.Errorf("docs/commands/%s is out of date", e.Name())
		}
	}
	if t.Failed() {
		t.Log("make them again: go test ./cmd/runaway -run TestCommandPagesAreCurrent -update")
	}
}

// TestManPages makes the manual pages goreleaser ships: into
// $RUNAWAY_MAN_DIR when it is set (the release's before hook), else into a
// temp folder, to show they can be made.
func TestManPages(t *testing.T) {
	out := os.Getenv("RUNAWAY_MAN_DIR")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	header := &doc.GenManHeader{Title: "RUNAWAY", Section: "1", Source: "runaway", Manual: "runaway manual"}
	if err := doc.GenManTree(docsRoot(), header, out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "runaway-setup.1"))
	if err != nil || !bytes.Contains(page, []byte(".SH EXAMPLE")) {
		t.Fatalf("runaway-setup.1: %v\n%s", err, page)
	}
}

// Each agent's page opens with what setup and doctor say of it, made from
// installer.Harnesses between these markers; the rest of the page is
// written by hand and kept as it is.
const (
	genStart = "<!-- made from installer.Harnesses: go test ./cmd/runaway -run TestAgentPagesAreCurrent -update -->"
	genEnd   = "<!-- end of the made part -->"
)

// agentPage is the made part of an agent's page.
func agentPage(h installer.Harness) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n# %s\n\n**Support: %s.** %s\n", genStart, h.Name, h.Support, h.Why)
	if h.Todo != "" {
		fmt.Fprintf(&b, "\n**After setup:** %s\n", h.Todo)
	}
	if f, ok := agent.Lookup(h.ID); ok && len(f.Packages) > 0 {
		fmt.Fprintf(&b, "\nnpm: `%s`. In runaway's commands: `%s`.\n", strings.Join(f.Packages, "`, `"), h.ID)
	} else {
		fmt.Fprintf(&b, "\nIn runaway's commands: `%s`.\n", h.ID)
	}
	b.WriteString(genEnd + "\n")
	return b.String()
}

// TestAgentPagesAreCurrent: docs/agents/<id>.md starts with the agent's
// support text as setup shows it.
func TestAgentPagesAreCurrent(t *testing.T) {
	for _, h := range installer.Harnesses {
		path := filepath.Join("..", "..", "docs", "agents", string(h.ID)+".md")
		have, _ := os.ReadFile(path)
		made := agentPage(h)
		rest := string(have)
		if i := strings.Index(rest, genEnd+"\n"); i >= 0 {
			rest = rest[i+len(genEnd)+1:]
		}
		want := made + rest
		if *updateDocs {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if string(have) != want {
			t.Errorf("docs/agents/%s.md is out of date: go test ./cmd/runaway -run TestAgentPagesAreCurrent -update", h.ID)
		}
	}
}

// TestDocsLinks: every relative link in the README and docs/ leads to a
// file that exists, so a page moved or renamed cannot leave a dead link.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := []string{filepath.Join(root, "README.md")}
	filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return nil
	})
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), target)); err != nil {
				t.Errorf("%s links to %s, which is not there", p, m[1])
			}
		}
	}
}

// TestPriceTablePageIsCurrent: docs/price-table.md is the built-in price
// table as runaway prices it (pricing.Default, the one prices.json
// compiles to), so the page cannot show rates the binary does not use.
func TestPriceTablePageIsCurrent(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "price-table.md")
	want := priceTablePage()
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if have, _ := os.ReadFile(path); string(have) != want {
		t.Errorf("docs/price-table.md is not the built-in table: go test ./cmd/runaway -run TestPriceTablePageIsCurrent -update")
	}
}

func priceTablePage() string {
	var b strings.Builder
	t := pricing.Default()
	b.WriteString(`# The built-in price table

<!-- Made from pricing.Default (pricing/prices.json) by cmd/runaway TestPriceTablePageIsCurrent;
     do not edit by hand: go test ./cmd/runaway -run TestPriceTablePageIsCurrent -update -->

`)
	fmt.Fprintf(&b, "The rates runaway prices with when no `prices update` or config `prices` replaces them: USD per million tokens, each row with its source and the day it was checked (newest check %s). A model with rates for other dates has a row per period. `runaway prices` lists the table in use on your machine; [prices](prices.md) says how the table is made and kept up to date.\n\n", newestCheck(t))
	b.WriteString("| model | input | output | cache read | cache write | 1-hour cache write | checked | source |\n|---|---|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(name string, r pricing.Rates, checked, source string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, usd(r.Input), usd(r.Output), usd(r.CacheRead),
			usd(r.CacheWrite), usd(r.CacheWrite1h), dash(checked), cell(source))
	}
	models := t.Models()
	sort.SliceStable(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	for _, p := range models {
		name := "`" + p.ID + "`"
		if len(p.Dated) == 0 {
			row(name, p.Rates, p.Checked, p.Source)
			continue
		}
		row(name+" "+periodText(p.Period), p.Rates, p.Checked, p.Source)
		for _, d := range p.Dated {
			row(name+" "+periodText(d.Period), d.Rates, "", d.Source)
		}
	}
	return b.String()
}
