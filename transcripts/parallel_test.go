package transcripts

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recorder keeps every record a read yields, per file, in order.
type recorder map[string][]string

func (rec recorder) sink() Sink {
	return Sink{
		Response: func(r Response) {
			rec[r.File] = append(rec[r.File], fmt.Sprintf("resp %s %s %s %+v %+v %s", r.MessageID, r.RequestID, r.Model, r.Usage, r.Counted, r.Time))
		},
		ToolResult: func(r ToolResult) {
			rec[r.File] = append(rec[r.File], fmt.Sprintf("result %s %v %s", r.ToolUseID, r.Failed, r.Time))
		},
		ToolCall: func(c ToolCall) {
			rec[c.File] = append(rec[c.File], fmt.Sprintf("call %s %s %s %s", c.ID, c.Name, c.Input, c.Time))
		},
	}
}

// A read with Sink.Files yields, for every file, the records a file-by-file
// read yields for it, in the same order, and names the files in the
// session's order; the position it leaves reads nothing more.
func TestParallelReadEqualsFileByFile(t *testing.T) {
	real := realFixtures(t)
	readers := map[string]readFunc{"claude-code": ReadClaude, "codex": ReadCodex, "gemini": ReadGemini}
	n := 0
	for dir, read := range readers {
		for _, path := range jsonlFiles(t, filepath.Join(real, dir)) {
			if strings.Contains(path, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
				continue
			}
			want := recorder{}
			var wantPos Position
			if _, err := read(context.Background(), path, &wantPos, want.sink()); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			var order []string
			got := map[string]recorder{}
			var pos Position
			_, err := read(context.Background(), path, &pos, Sink{Files: func(file string) Sink {
				order = append(order, file)
				got[file] = recorder{}
				return got[file].sink()
			}})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			var wantOrder []string
			for _, f := range wantPos.Files {
				wantOrder = append(wantOrder, wantPos.absPath(f.Path))
			}
			if !reflect.DeepEqual(order, wantOrder) {
				t.Errorf("%s: files %v, want %v", path, order, wantOrder)
			}
			for file, records := range want {
				if !reflect.DeepEqual(got[file][file], records) {
					t.Errorf("%s: %s: the parallel read yielded %d records, file by file %d", path, file, len(got[file][file]), len(records))
				}
			}
			if !reflect.DeepEqual(pos, wantPos) {
				t.Errorf("%s: position after the parallel read %+v, file by file %+v", path, pos, wantPos)
			}
			n++
		}
	}
	if n < 50 {
		t.Errorf("only %d sessions read", n)
	}
}
