package demo

import (
	"os"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testhome"
)

func TestMain(m *testing.M) { os.Exit(testhome.Main(m.Run)) }

// The replay decides what runaway decided when Claude Code recorded the
// session: the same decision at every call, and the story the demo tells.
func TestReplayDecidesAsRecorded(t *testing.T) {
	want := map[string]map[int]string{
		"claude-loop.jsonl": {5: "ask", 7: "ask", 10: "stop"},
		"claude-cap.jsonl":  {3: "warn", 4: "stop"},
	}
	for _, s := range Sessions {
		t.Run(s.File, func(t *testing.T) {
			steps, err := Replay(s, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			got := map[int]string{}
			for _, st := range steps {
				if st.Decision != "" {
					got[st.N] = st.Decision
				}
				if st.Decision != st.RecordedDecision {
					t.Errorf("call %d: runaway decides %q, and decided %q when it was recorded", st.N, st.Decision, st.RecordedDecision)
				}
			}
			if len(got) != len(want[s.File]) {
				t.Errorf("decisions %v, want %v", got, want[s.File])
			}
			for n, d := range want[s.File] {
				if got[n] != d {
					t.Errorf("call %d: %q, want %q (all: %v)", n, got[n], d, got)
				}
			}
			last := steps[len(steps)-1]
			if last.Decision != "stop" || last.Stopped == "" {
				t.Errorf("the session does not end in a stop Claude Code showed: %+v", last)
			}
		})
	}
}

func TestRunTellsTheStory(t *testing.T) {
	var out strings.Builder
	if err := Run(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Hook PreToolUse:Bash requires confirmation: runaway: the same Bash call 5 times in a row",
		"PreToolUse:Bash hook stopped continuation: ",
		"the person runs: runaway allow ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}
