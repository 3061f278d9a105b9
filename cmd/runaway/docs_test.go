package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
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
