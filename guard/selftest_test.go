package guard

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// Each agent's sample call (doctor's live test) is taken for that agent's,
// answers "no decision" with nothing in the error log, and its transcript
// shows the call, as the agent's does before it runs the hook: the hook
// finds the call and does not wait for it (doctor reported "answered in
// 330ms" for a hook that takes 15 ms).
func TestSelfTestSamples(t *testing.T) {
	for _, d := range dialects {
		if d.stayOut {
			continue
		}
		t.Run(string(d.id), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "transcript.jsonl")
			st, err := Sample(d.id, path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Transcript != "" {
				if err := os.WriteFile(path, []byte(st.Transcript), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			in, err := ParseInput(st.Call, "")
			if err != nil || in.Harness != d.id {
				t.Fatalf("the sample is taken for %q (%v), want %s", in.Harness, err, d.id)
			}
			h := newTestHook(t)
			var out bytes.Buffer
			h.Run(bytes.NewReader(st.Call), &out, string(d.id))
			h.running.Wait()
			if out.Len() != 0 {
				t.Errorf("answer %s, want no decision", out.String())
			}
			if log, _ := os.ReadFile(filepath.Join(h.StateDir, "errors.log")); len(log) > 0 {
				t.Errorf("error log: %s", log)
			}
			format, ok := transcripts.FormatOf(d.id)
			if !ok {
				return
			}
			// The call's id as runaway reads it (Qwen Code's tool_call_id).
			callID := in
			calls, responses := 0, 0
			_, err = format.Read(context.Background(), path, &transcripts.Position{}, transcripts.Sink{
				ToolCall: func(tc transcripts.ToolCall) {
					if tc.ID == callID.ToolUseID {
						calls++
					}
				},
				Response: func(transcripts.Response) { responses++ },
			})
			if err != nil || callID.ToolUseID != "" && calls != 1 || responses > 1 {
				t.Errorf("the sample transcript shows call %q %d times and %d responses (%v), want once and at most one", callID.ToolUseID, calls, responses, err)
			}
		})
	}
	if _, err := Sample(agent.Cursor, "t"); err == nil {
		t.Error("Cursor is not hooked: no sample")
	}
}
