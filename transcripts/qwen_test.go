package transcripts

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// qwenSession is a transcript Qwen Code 0.24.4 wrote offline against a fake
// Chat Completions server (every answer: 2000 prompt tokens, 1000 of them
// cached, 100 completion): five responses, a call that exited 1, one that
// exited 2, one a hook denied, one that ran; each response's tokens also in
// a ui_telemetry line. The subagent file beside it is hand-made in the
// format 0.24.4 wrote one in the e2e (no model, no provenance, its calls on
// lines of their own, results without a status).
const (
	qwenDir     = "testdata/qwen"
	qwenMain    = "chats/4a3c37f8-6bff-4e37-94d1-7e24b61760cd.jsonl"
	qwenSubagnt = "subagents/4a3c37f8-6bff-4e37-94d1-7e24b61760cd/agent-handmade1.jsonl"
)

func TestQwenReadsUsageOnceAndResults(t *testing.T) {
	dir := t.TempDir()
	loadSession(t, qwenDir, qwenMain).writeAll(t, dir)
	main := filepath.Join(dir, qwenMain)
	var results []ToolResult
	tt := newTotals()
	sink := tt.sink(true)
	count := sink.ToolResult
	sink.ToolResult = func(r ToolResult) { count(r); results = append(results, r) }
	var pos Position
	if _, err := ReadQwen(t.Context(), main, &pos, sink); err != nil {
		t.Fatal(err)
	}
	// Uncached input is the prompt less its cached part; the telemetry
	// lines' copies of the same tokens are not counted again.
	if want := (Usage{Input: 5 * 1000, CacheRead: 5 * 1000, Output: 5 * 100}); tt.Usage != want || tt.Responses != 5 {
		t.Errorf("usage %+v over %d responses, want %+v over 5", tt.Usage, tt.Responses, want)
	}
	if u := tt.PerModel["fake-1"]; u != tt.Usage {
		t.Errorf("by model: %+v", tt.PerModel)
	}
	if tt.Calls != 4 || tt.Results != 4 || tt.Failed != 3 {
		t.Errorf("%d calls, %d results, %d failed; want 4, 4, 3", tt.Calls, tt.Results, tt.Failed)
	}
	for i, r := range results {
		denied := i == 2
		if r.Refused != denied || denied && r.Blocked != "runaway-test deny" || r.ToolUseID == "" {
			t.Errorf("result %d: %+v (the third was denied by a hook)", i, r)
		}
	}
	if id, err := Detect(main); err != nil || id != agent.Qwen {
		t.Errorf("Detect: %s, %v", id, err)
	}
}

func TestQwenCountsItsSubagents(t *testing.T) {
	dir := t.TempDir()
	loadSession(t, qwenDir, qwenMain, qwenSubagnt).writeAll(t, dir)
	tt := readAll(t, ReadQwen, filepath.Join(dir, qwenMain))
	// The subagent's response names no model: it is priced as the
	// session's (fake-1). Its results carry no status: the second is an
	// error response, so failed.
	want := Usage{Input: 5*1000 + 200, CacheRead: 5*1000 + 100, Output: 5*100 + 25}
	if u := tt.PerModel["fake-1"]; u != want || len(tt.PerModel) != 1 || tt.Responses != 6 || tt.Calls != 6 {
		t.Errorf("by model %+v (want fake-1 %+v), %d responses, %d calls", tt.PerModel, want, tt.Responses, tt.Calls)
	}
	if tt.Results != 6 || tt.Failed != 4 {
		t.Errorf("%d results, %d failed; want 6 and 4 (3 of the main file's, the subagent's second)", tt.Results, tt.Failed)
	}
	files, err := qwenFormat.SessionFiles(filepath.Join(dir, qwenMain))
	if err != nil || len(files) != 2 || !qwenFormat.Subagent(files[1]) || qwenFormat.Subagent(files[0]) {
		t.Errorf("session files %v, %v", files, err)
	}
	// A subagent's file read alone is its own, its model unknown.
	alone := readAll(t, ReadQwen, filepath.Join(dir, qwenSubagnt))
	if alone.Responses != 1 || alone.PerModel[""] == (Usage{}) {
		t.Errorf("subagent alone: %d responses, %+v", alone.Responses, alone.PerModel)
	}
}

func TestQwenIncrementalEqualsFullRead(t *testing.T) {
	s := loadSession(t, qwenDir, qwenMain)
	rng := rand.New(rand.NewPCG(28, 1))
	for j := range 15 {
		checkIncrementalMoves(t, ReadQwen, s, rng, j%2 == 1)
	}
	// A subagent runs after the main file named the session's model (the
	// model its lines lack): its file, read as it grows, adds up to one
	// full read.
	for j := range 10 {
		dir := t.TempDir()
		loadSession(t, qwenDir, qwenMain, qwenSubagnt).writeAll(t, dir)
		main := filepath.Join(dir, qwenMain)
		want := normalise(readAll(t, ReadQwen, main))
		os.Remove(filepath.Join(dir, qwenSubagnt))
		b, err := os.ReadFile(filepath.Join(qwenDir, qwenSubagnt))
		if err != nil {
			t.Fatal(err)
		}
		got := newTotals()
		sink := got.sink(true)
		var pos Position
		for n := 0; n < len(b); {
			n = min(len(b), n+1+rng.IntN(300))
			if err := os.WriteFile(filepath.Join(dir, qwenSubagnt), b[:n], 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadQwen(t.Context(), main, &pos, sink); err != nil {
				t.Fatal(err)
			}
		}
		if got = normalise(got); !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: the subagent read as it grows\n got %+v\nwant %+v", j, got, want)
		}
	}
}

func TestQwenHostileLines(t *testing.T) {
	for _, line := range []string{
		``, `{`, `{"type":"assistant","usageMetadata":[]}`, `{"type":"assistant","uuid":"u","usageMetadata":{"promptTokenCount":-5,"cachedContentTokenCount":9}}`,
		`{"type":"tool_result","toolCallResult":{"status":"error"}}`, `{"type":"assistant","message":{"parts":[{"functionCall":null}]},"usageMetadata":null}`,
	} {
		var got int
		qwenLine([]byte(line), "f", &FilePos{}, &Sink{
			Response:   func(r Response) { got++; _ = r },
			ToolResult: func(ToolResult) { got++ },
			ToolCall:   func(ToolCall) { got++ },
		}, "")
		if got != 0 {
			t.Errorf("%s: yielded %d records", line, got)
		}
	}
	if _, err := os.Stat(filepath.Join(qwenDir, qwenMain)); err != nil {
		t.Fatal(err)
	}
}
