//go:build unix

package guard

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// fuzzTmp in a fuzz input stands for the run's own temp folder, so that
// seeds can name transcripts and settings files that exist.
const fuzzTmp = "@TMP@"

const fuzzClaudeTranscript = `{"type":"assistant","sessionId":"s1","requestId":"req_1","timestamp":"2026-11-30T10:00:00Z","message":{"id":"msg_1","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":100000,"output_tokens":0}}}
{"type":"user","sessionId":"s1","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"boom"}]}}
`

const fuzzCodexRollout = `{"timestamp":"2026-11-30T22:43:24.000Z","type":"session_meta","payload":{"session_id":"c1","id":"c1","timestamp":"2026-11-30T22:43:24.100Z","cwd":"/tmp/proj","source":"exec"}}
{"timestamp":"2026-11-30T22:43:25.000Z","type":"turn_context","payload":{"model":"gpt-5"}}
{"timestamp":"2026-11-30T22:43:31.100Z","type":"token_usage_record","payload":{"response_id":"resp_1","thread_token_usage":{"input_tokens":1000000,"cached_input_tokens":0,"output_tokens":0}}}
`

// FuzzHookRun: whatever the agent sends, Run returns, prints nothing or one
// line of JSON in a shape the agent accepts, and writes nothing outside
// runaway's state folder.
func FuzzHookRun(f *testing.F) {
	seeds := []string{
		``,
		`{`,
		`null`,
		`[]`,
		`"x"`,
		bashCall,
		`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"transcript_path":"@TMP@/t/claude.jsonl","tool_use_id":"toolu_1","prompt_id":"p1"}`,
		`{"session_id":"c1","turn_id":"t1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"transcript_path":"@TMP@/t/rollout.jsonl"}`,
		`{"session_id":"s1","cursor_version":"1.7","hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}`,
		`{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"@TMP@/config/config.json","content":"{}"}}`,
		`{"session_id":"c1","turn_id":"t1","tool_name":"Bash","tool_input":{"command":"runaway allow c1 --add 100"}}`,
		`{"session_id":"s1","tool_name":"Edit","cwd":"@TMP@/proj","tool_input":{"file_path":".claude/settings.json","old_string":"hooks","new_string":"x"}}`,
		`{"session_id":"../../../x","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/nonexistent/dir"}`,
		`{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"transcript_path":"@TMP@/t"}`,
		`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"transcript_path":"/dev/zero"}`,
		`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"transcript_path":"@TMP@/t/fifo"}`,
		`{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"transcript_path":"@TMP@/t/loop"}`,
		"{\"session_id\":\"s\xff\xfe1\",\"tool_name\":\"B\xc3\",\"tool_input\":{\"command\":\"\xed\xa0\x80\"}}",
		`{"session_id":"s1","tool_name":"Bash","tool_input":` + strings.Repeat(`[`, 20000) + strings.Repeat(`]`, 20000) + `}`,
		`{"session_id":"s1","tool_name":"Bash","tool_input":"not an object"}`,
		`{"session_id":1,"tool_name":["Bash"]}`,
		`{"session_id":"s\n1","tool_name":"Bash\n","tool_input":{"command":"ls\nrm -rf /"}}`,
		`{"hook_event_name":"tool.execute.before","session_id":"ses_1","tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"call_1","opencode":{"plugin":1,"instance":"i","seq":1,"cost_usd":0.3,"tokens":{"in":5},"unpriced":[{"model":"fake-1","in":100000}],"results":[{"id":"call_0","failed":true}]}}`,
		`{"hook_event_name":"chat.params","session_id":"ses_1","opencode":{"plugin":1,"instance":"i","seq":2,"cost_usd":1e308,"unpriced":[{"model":"","out":9223372036854775807}]}}`,
		`{"hook_event_name":"chat.params","session_id":"ses_1","opencode":{"cost_usd":-5,"seq":-1,"results":[{"id":"","failed":true}]}}`,
		`{"hook_event_name":"tool.execute.before","session_id":"ses_1","tool_name":"write","tool_input":{"filePath":"@TMP@/config/config.json","content":"{}"},"opencode":{}}`,
		`{"session_id":"ses_1","tool_name":"bash","opencode":"not an object"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stdin []byte) {
		parent := t.TempDir()
		root := filepath.Join(parent, "r")
		h := fuzzHook(t, root)
		stdin = bytes.ReplaceAll(stdin, []byte(fuzzTmp), []byte(root))
		cwdBefore := dirNames(t, ".")
		want := expectedHarness(stdin)
		// Twice: the second call of the same session meets the state the
		// first left (a loop of two with repeat_run 2).
		for range 2 {
			var out bytes.Buffer
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.Run(bytes.NewReader(stdin), &out, "claude")
			}()
			select {
			case <-done:
			case <-time.After(h.Deadline + 5*time.Second):
				t.Fatalf("Run did not return within its deadline for %q", stdin)
			}
			checkAnswerShape(t, want, out.Bytes())
		}
		if got := dirNames(t, parent); !slices.Equal(got, []string{"r"}) {
			t.Errorf("Run wrote beside its folder: %v", got)
		}
		checkWritesInside(t, root, filepath.Join(root, "state"))
		if got := dirNames(t, "."); !slices.Equal(got, cwdBefore) {
			t.Errorf("Run wrote into the working directory: %v", got)
		}
	})
}

// fuzzHook builds a hook whose every file lives under root, with low
// thresholds so that each wire can answer within two calls, and the files
// seeds refer to.
func fuzzHook(t *testing.T, root string) *Hook {
	t.Helper()
	for _, d := range []string{"config", "state", "home/.claude", "home/.codex", "proj/.claude", "t"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"config/config.json":         `{"session_cap_usd":0.5,"prompt_cap_usd":0.2,"daily_cap_usd":1,"repeat_run":2,"failure_run":2}`,
		"home/.claude/settings.json": `{"hooks":{}}`,
		"proj/.claude/settings.json": `{"hooks":{}}`,
		"t/claude.jsonl":             fuzzClaudeTranscript,
		"t/rollout.jsonl":            fuzzCodexRollout,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Symlink("loop", filepath.Join(root, "t", "loop"))
	if err := syscall.Mkfifo(filepath.Join(root, "t", "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"HOME":              filepath.Join(root, "home"),
		"CLAUDE_CONFIG_DIR": filepath.Join(root, "home/.claude"),
		"CODEX_HOME":        filepath.Join(root, "home/.codex"),
	}
	return &Hook{
		StateDir:   filepath.Join(root, "state"),
		ConfigPath: filepath.Join(root, "config", "config.json"),
		BinPath:    filepath.Join(root, "bin", "runaway"),
		Getenv:     func(k string) string { return env[k] },
		Now:        func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) },
		Stderr:     &bytes.Buffer{},
		Deadline:   2 * time.Second,
		LockWait:   time.Second,
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkWritesInside fails for any file under root, outside state, that
// fuzzHook did not make.
func checkWritesInside(t *testing.T, root, state string) {
	t.Helper()
	made := map[string]bool{}
	for _, p := range []string{"config", "config/config.json", "state", "home", "home/.claude", "home/.claude/settings.json",
		"home/.codex", "proj", "proj/.claude", "proj/.claude/settings.json", "t", "t/claude.jsonl", "t/rollout.jsonl", "t/loop", "t/fifo"} {
		made[filepath.Join(root, p)] = true
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p == root || p == state || strings.HasPrefix(p, state+"/") {
			return nil
		}
		if !made[p] {
			t.Errorf("Run wrote %s, outside its state folder", p)
		}
		return nil
	})
}

// expectedHarness is the harness whose format the answer must be in:
// "" when the input is no call at all.
func expectedHarness(stdin []byte) agent.ID {
	in, err := ParseInput(stdin, agent.Claude)
	if err != nil {
		return ""
	}
	return in.Harness
}

// checkAnswerShape holds an answer to what each agent accepts (see
// DESIGN.md, "Answers per harness").
func checkAnswerShape(t *testing.T, h agent.ID, out []byte) {
	t.Helper()
	if len(out) == 0 {
		if h == agent.Cursor {
			t.Errorf("Cursor input got no answer; it wants {}")
		}
		return
	}
	if h == "" {
		t.Fatalf("input that is no call got an answer: %q", out)
	}
	if bytes.IndexByte(out, '\n') != len(out)-1 {
		t.Fatalf("answer is not one line: %q", out)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("answer is not a JSON object: %q: %v", out, err)
	}
	allowed := map[agent.ID][]string{
		agent.Claude:   {"continue", "stopReason", "systemMessage", "hookSpecificOutput"},
		agent.Codex:    {"systemMessage", "hookSpecificOutput"},
		agent.Cursor:   {},
		agent.OpenCode: {"deny", "stop", "message"},
	}[h]
	for k := range m {
		if !slices.Contains(allowed, k) {
			t.Fatalf("%s answer has field %q: %s", h, k, out)
		}
	}
	if h == agent.Cursor {
		return
	}
	if len(m) == 0 {
		t.Fatalf("%s answer is an empty object, which is no decision spelled out: %q", h, out)
	}
	if raw, ok := m["hookSpecificOutput"]; ok {
		var hs map[string]any
		if err := json.Unmarshal(raw, &hs); err != nil {
			t.Fatalf("hookSpecificOutput: %v", err)
		}
		d, _ := hs["permissionDecision"].(string)
		reason, _ := hs["permissionDecisionReason"].(string)
		if hs["hookEventName"] != "PreToolUse" || len(hs) != 3 || reason == "" {
			t.Fatalf("%s hookSpecificOutput = %s", h, raw)
		}
		if d != "deny" && (h == agent.Codex || d != "ask") {
			t.Fatalf("%s permissionDecision %q", h, d)
		}
	}
	if raw, ok := m["continue"]; ok && string(raw) != "false" {
		t.Fatalf("continue = %s", raw)
	}
}
