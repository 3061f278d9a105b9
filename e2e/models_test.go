package e2e

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/runaway-guard/runaway/pricing"
)

// bundledStrings scans the agent's native binary (the largest file of its
// npm package) for the matches of re's first group, without reading the
// whole file into memory.
func bundledStrings(t *testing.T, a agent, re *regexp.Regexp) []string {
	t.Helper()
	a.require(t)
	root := filepath.Join(filepath.Dir(a.path), "..")
	var bin string
	var size int64
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > size {
			bin, size = p, fi.Size()
		}
		return nil
	})
	f, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	buf := make([]byte, 8<<20)
	var tail []byte
	for {
		n, err := f.Read(buf)
		chunk := append(append([]byte(nil), tail...), buf[:n]...)
		for _, m := range re.FindAllSubmatch(chunk, -1) {
			seen[string(m[1])] = true
		}
		if len(chunk) > 256 {
			tail = bytes.Clone(chunk[len(chunk)-256:])
		}
		if err == io.EOF || n == 0 {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	t.Logf("%s (%s, %d MB): %v", a.pin, bin, size>>20, out)
	return out
}

// Every model the installed Claude Code knows (its bundled catalogue's
// first-party ids) is in runaway's table: none is priced by family only.
func TestClaudeCodesModelsArePriced(t *testing.T) {
	ids := bundledStrings(t, claudeAgent, regexp.MustCompile(`first_party:"(claude-[a-z0-9-]+)"`))
	if len(ids) < 10 {
		t.Fatalf("found %d model ids in Claude Code's binary: the pattern no longer matches its catalogue", len(ids))
	}
	for _, id := range ids {
		if p, est := pricing.Default().Lookup(id); est {
			t.Errorf("Claude Code knows %s; runaway prices it as an estimate (like %s)", id, p.ID)
		}
	}
}

// The models the installed Codex names: the ones runaway has no price for
// are priced no lower than the newest of their line (logged, for whoever
// adds their prices).
func TestCodexModelsArePriced(t *testing.T) {
	ids := bundledStrings(t, codexAgent, regexp.MustCompile(`"(gpt-[0-9][a-z0-9.-]*)"`))
	for _, id := range ids {
		if p, est := pricing.Default().Lookup(id); est {
			t.Logf("Codex names %s: not in runaway's table, priced as an estimate like %s", id, p.ID)
		}
	}
}
