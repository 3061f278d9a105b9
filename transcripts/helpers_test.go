package transcripts

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// realFixtures returns ../shared/fixtures/real relative to the module root,
// or skips the test when it is absent.
func realFixtures(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	real := filepath.Join(dir, "..", "shared", "fixtures", "real")
	if _, err := os.Stat(real); err != nil {
		t.Skipf("real fixtures not found at %s (they live outside the repository)", real)
	}
	return real
}

// jsonlFiles lists the .jsonl and .jsonl.zst files under dir.
func jsonlFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".jsonl.zst")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// totals is what a reader yielded, summed the way the guard sums it.
type totals struct {
	Usage     Usage
	PerModel  map[string]Usage
	Responses int // records with Counted zero
	Results   int
	Failed    int
	Calls     int
	ResultIDs []string
	CallIDs   []string
}

func newTotals() *totals { return &totals{PerModel: map[string]Usage{}} }

func (tt *totals) sink(calls bool) Sink {
	s := Sink{
		Response: func(r Response) {
			tt.Usage = tt.Usage.Add(r.Usage).Sub(r.Counted)
			tt.PerModel[r.Model] = tt.PerModel[r.Model].Add(r.Usage).Sub(r.Counted)
			if r.Counted == (Usage{}) {
				tt.Responses++
			}
		},
		ToolResult: func(r ToolResult) {
			tt.Results++
			tt.ResultIDs = append(tt.ResultIDs, r.ToolUseID)
			if r.Failed {
				tt.Failed++
			}
		},
	}
	if calls {
		s.ToolCall = func(c ToolCall) {
			tt.Calls++
			tt.CallIDs = append(tt.CallIDs, c.ID)
		}
	}
	return s
}

type readFunc func(ctx context.Context, path string, pos *Position, sink Sink) (bool, error)

// readAll reads path from a fresh position until done.
func readAll(t testing.TB, read readFunc, path string) *totals {
	t.Helper()
	tt := newTotals()
	var pos Position
	more, err := read(context.Background(), path, &pos, tt.sink(true))
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	if more {
		t.Fatalf("reading %s: more=true without a deadline", path)
	}
	return tt
}

// stripSpeedGeo drops the fields Add copies rather than sums, to compare
// token counts.
func tokensOnly(u Usage) Usage { u.Speed, u.Geo = "", ""; return u }
