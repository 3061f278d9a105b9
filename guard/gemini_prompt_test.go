package guard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/configs"
)

// Issue 23, item 8: the prompt cap applies to Gemini CLI, whose hook calls
// carry no prompt id: a prompt starts at its user message in the session
// file. Prompt 1 spends $3, prompt 2 $3 then $3 more: stopped at $6 of
// its $5 cap (before: never, the prompt cap never applied).
func TestGeminiPromptCap(t *testing.T) {
	env := map[string]string{"RUNAWAY_SESSION_CAP_USD": "100", "RUNAWAY_PROMPT_CAP_USD": "5"}
	h := newTestHook(t)
	h.Getenv = func(k string) string { return env[k] }
	h.Prices = func(configs.Policy) (Pricer, []error) { return dollarPerMillion{}, nil }
	dir := filepath.Join(t.TempDir(), "chats")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "session-2026-11-30T12-00-gp000001.jsonl")
	add := func(lines ...string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, l := range lines {
			f.WriteString(l + "\n")
		}
	}
	n := 0
	respond := func() string {
		n++
		add(fmt.Sprintf(`{"id":"g%d","timestamp":"2026-11-30T12:00:%02d.000Z","type":"gemini","content":"","tokens":{"input":3000000,"output":0,"cached":0,"thoughts":0,"tool":0},"model":"gemini-3.8-flash"}`, n, n))
		in := fmt.Sprintf(`{"session_id":"gp000001-0000-4000-8000-000000000001","transcript_path":%q,"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"step %d"}}`, path, n)
		var out bytes.Buffer
		h.Run(strings.NewReader(in), &out, "gemini")
		return out.String()
	}
	add(`{"sessionId":"gp000001-0000-4000-8000-000000000001","projectHash":"ab","startTime":"2026-11-30T12:00:00.000Z","lastUpdated":"2026-11-30T12:00:00.000Z","kind":"main"}`,
		`{"id":"u1","timestamp":"2026-11-30T12:00:00.500Z","type":"user","content":[{"text":"first"}]}`)
	if got := respond(); got != "" {
		t.Fatalf("prompt 1, $3: %q", got)
	}
	add(`{"id":"u2","timestamp":"2026-11-30T12:00:01.500Z","type":"user","content":[{"text":"second"}]}`)
	if got := respond(); got != "" {
		t.Fatalf("prompt 2, $3: %q", got)
	}
	// A tool's result is no prompt.
	add(`{"id":"u3","timestamp":"2026-11-30T12:00:02.500Z","type":"user","content":[{"functionResponse":{"id":"x","name":"run_shell_command","response":{"output":"ok"}}}]}`)
	if got := respond(); !strings.Contains(got, "this prompt has spent $6.00; the prompt cap is $5.00") {
		t.Fatalf("prompt 2, $6 of its $5 cap: %q, want the stop", got)
	}
}
