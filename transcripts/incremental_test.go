package transcripts

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// budgetCtx is a context whose deadline hits after a number of checks, so a
// read stops at an arbitrary line.
type budgetCtx struct {
	context.Context
	left int
}

func (c *budgetCtx) Err() error {
	if c.left <= 0 {
		return context.DeadlineExceeded
	}
	c.left--
	return nil
}

// session is a set of files (relative path → final bytes) with a main file.
type session struct {
	main  string
	files map[string][]byte
}

func loadSession(t *testing.T, dir, main string, others ...string) session {
	t.Helper()
	s := session{main: main, files: map[string][]byte{}}
	for _, rel := range append([]string{main}, others...) {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		s.files[rel] = b
	}
	return s
}

func (s session) writeAll(t *testing.T, dir string) {
	t.Helper()
	for rel, b := range s.files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func normalise(tt *totals) *totals {
	slices.Sort(tt.ResultIDs)
	// A file read again after it was replaced yields its calls again: tool
	// calls are found, not counted (see the package doc).
	slices.Sort(tt.CallIDs)
	tt.CallIDs = slices.Compact(tt.CallIDs)
	tt.Calls = len(tt.CallIDs)
	for m, u := range tt.PerModel {
		tt.PerModel[m] = tokensOnly(u)
	}
	tt.Usage = tokensOnly(tt.Usage)
	return tt
}

// checkIncrementalMoves is checkIncremental; with moves, the session's
// folder is now and then moved or copied elsewhere, and reading goes on
// there with the same Position (issue 23: a transcript that moves, a
// session resumed from a copy).
func checkIncrementalMoves(t *testing.T, read readFunc, s session, rng *rand.Rand, moves bool) {
	t.Helper()
	full := t.TempDir()
	s.writeAll(t, full)
	want := normalise(readAll(t, read, filepath.Join(full, s.main)))

	dir := t.TempDir()
	written := map[string]int{}
	var names []string
	for rel := range s.files {
		names = append(names, rel)
	}
	slices.Sort(names)
	got := newTotals()
	sink := got.sink(true)
	if rng.IntN(2) == 0 {
		// The keys of what was counted kept by the caller, as the guard
		// keeps them beside its state, instead of in the Position.
		sink.Counted = mapCounted{}
	}
	var state []byte
	readOnce := func(budget int) bool {
		var pos Position
		if state != nil {
			if err := json.Unmarshal(state, &pos); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Context(&budgetCtx{Context: context.Background(), left: budget})
		more, err := read(ctx, filepath.Join(dir, s.main), &pos, sink)
		if err != nil {
			t.Fatal(err)
		}
		if state, err = json.Marshal(pos); err != nil {
			t.Fatal(err)
		}
		return more
	}
	for {
		var open []string
		for _, rel := range names {
			if written[rel] < len(s.files[rel]) {
				open = append(open, rel)
			}
		}
		if len(open) == 0 {
			break
		}
		rel := open[rng.IntN(len(open))]
		b := s.files[rel]
		if moves && rng.IntN(25) == 0 {
			// The whole session goes elsewhere with its position: moved
			// (Claude Code on worktree enter and exit), or copied and
			// resumed in the copy (the old one stays, and no longer grows).
			next := filepath.Join(t.TempDir(), "elsewhere")
			if rng.IntN(2) == 0 {
				if err := os.Rename(dir, next); err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(dir, 0o755) // TempDir's cleanup wants it
			} else {
				copyTree(t, dir, next)
			}
			dir = next
			readOnce(rng.IntN(3))
			continue
		}
		if written[rel] > 0 && rng.IntN(10) == 0 {
			p := filepath.Join(dir, rel)
			if rng.IntN(2) == 0 {
				replaceWithCopy(t, p)
			} else {
				written[rel] = rng.IntN(written[rel])
				if err := os.Truncate(p, int64(written[rel])); err != nil {
					t.Fatal(err)
				}
			}
			readOnce(rng.IntN(3))
			continue
		}
		n := 1 + rng.IntN(max(1, len(b)/6))
		if rng.IntN(4) == 0 {
			n = 1 + rng.IntN(200) // small cuts, often inside a line
		}
		end := min(len(b), written[rel]+n)
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b[written[rel]:end])
		f.Close()
		written[rel] = end
		readOnce(rng.IntN(3))
	}
	for i := 0; readOnce(1 + rng.IntN(3)); i++ {
		if i > 100000 {
			t.Fatal("reads never finish")
		}
	}
	if len(state) > 16<<10 {
		t.Errorf("position grew to %d bytes", len(state))
	}
	got = normalise(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("incremental reads differ from one full read:\n got %+v\nwant %+v", got, want)
	}
}

// copyTree copies the files under from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(to, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mapCounted is a Counted kept in memory across the reads of a test.
type mapCounted map[uint64]bool

func (m mapCounted) Add(k uint64)      { m[k] = true }
func (m mapCounted) Has(k uint64) bool { return m[k] }

// replaceWithCopy puts a copy of the file at path in its place: the same
// bytes in a new file, written beside it and renamed over it.
func replaceWithCopy(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestClaudeIncrementalEqualsFullRead(t *testing.T) {
	real := realFixtures(t)
	sessions := []session{
		loadSession(t, filepath.Join(real, "claude-code/codemie-ai__codemie-code/tests/integration/session/fixtures/claude/incremental-subagents"),
			"turn-2.jsonl", "turn-2/subagents/agent-a485154.jsonl"),
		loadSession(t, filepath.Join(real, "claude-code/daaain__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample"),
			"12a546d1-83a7-49a6-abba-5400db340b43.jsonl"),
		loadSession(t, filepath.Join(real, "claude-code/Mai0313__VibeCodingTracker/at-c4badfb/tests/fixtures/sessions"), "claude_code.jsonl"),
	}
	for i, s := range sessions {
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		for j := range 15 {
			checkIncrementalMoves(t, ReadClaude, s, rng, j%2 == 1)
		}
	}
}

func TestCodexIncrementalEqualsFullRead(t *testing.T) {
	real := realFixtures(t)
	parentSrc := filepath.Join(real, "codex/codemie-ai__codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
	parent, err := os.ReadFile(parentSrc)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := forkOf(t, parentSrc, "019e9999-0000-7000-8000-000000000002", "019e1625-789d-76c0-80ab-3724b5ddb799", true)
	withChild := session{main: "2026/05/11/" + filepath.Base(parentSrc), files: map[string][]byte{
		"2026/05/11/" + filepath.Base(parentSrc):                                            parent,
		"2026/06/01/rollout-2026-06-01T10-00-00-019e9999-0000-7000-8000-000000000002.jsonl": child,
	}}
	sessions := []session{
		withChild,
		loadSession(t, filepath.Join(real, "codex/AcidicSoil__codex-session-view/at-23314e0/.sample_session"), "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"),
		loadSession(t, filepath.Join(real, "codex/tiermetric__tier/internal/collector/codexrollout/testdata"), "rollout-duplicate-token-count.jsonl"),
		loadSession(t, "testdata", filepath.Base(handMade0169)),
	}
	for i, s := range sessions {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		for j := range 15 {
			checkIncrementalMoves(t, ReadCodex, s, rng, j%2 == 1)
		}
	}
}

// A file that shrank or was replaced is read again from the start.
func TestReplacedFileIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	line := func(id string, in int) string {
		return `{"type":"assistant","requestId":"r","message":{"id":"` + id + `","model":"claude-sonnet-4-5","usage":{"input_tokens":` + itoa(in) + `,"output_tokens":1}}}` + "\n"
	}
	os.WriteFile(path, []byte(line("m1", 10)+line("m2", 20)), 0o600)
	var pos Position
	sum := int64(0)
	sink := Sink{Response: func(r Response) { sum += r.Usage.Input - r.Counted.Input }}
	ReadClaude(context.Background(), path, &pos, sink)
	if sum != 30 {
		t.Fatalf("first read %d", sum)
	}
	// Replaced by a new file (new inode), longer than the old offset.
	os.Remove(path)
	os.WriteFile(path, []byte(line("m3", 100)+line("m4", 200)+line("m5", 300)), 0o600)
	sum = 0
	ReadClaude(context.Background(), path, &pos, sink)
	if sum != 600 {
		t.Errorf("replaced file: read %d, want 600 from the start", sum)
	}
	// Truncated in place.
	os.WriteFile(path, []byte(line("m6", 1)), 0o600)
	sum = 0
	ReadClaude(context.Background(), path, &pos, sink)
	if sum != 1 {
		t.Errorf("shrunk file: read %d, want 1", sum)
	}
	// Rewritten in place with other bytes, not shorter.
	os.WriteFile(path, []byte(line("m7", 7)+line("m8", 8)), 0o600)
	sum = 0
	ReadClaude(context.Background(), path, &pos, sink)
	if sum != 15 {
		t.Errorf("rewritten file: read %d, want 15", sum)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
