package guard

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

// Payloads as GitHub Copilot CLI 1.0.102 sent them (seen here, paths
// shortened).
const (
	copilotBash           = `{"sessionId":"s-main","timestamp":1796168451387,"cwd":"/w","toolName":"bash","toolArgs":{"command":"echo hi","description":"d"}}`
	copilotView           = `{"sessionId":"s-main","timestamp":1796168453037,"cwd":"/w","toolName":"view","toolArgs":{"path":"/w/a.txt"}}`
	copilotSubBash        = `{"sessionId":"s-sub","timestamp":1796168495734,"cwd":"/w","toolName":"bash","toolArgs":{"command":"echo from-sub","description":"d"},"agentId":"s-sub","agentType":"task","parentAgentId":"s-main"}`
	copilotPermissionCall = `{"hookName":"permissionRequest","sessionId":"s-main","timestamp":1796168451776,"cwd":"/w","toolName":"bash","toolInput":{"command":"echo hi"},"permissionSuggestions":[]}`
)

func TestCopilotInputs(t *testing.T) {
	for _, c := range []struct {
		name, in, hint       string
		event, session, tool string
		args                 string
	}{
		{"preToolUse", copilotBash, "copilot", "preToolUse", "s-main", "bash", `{"command":"echo hi","description":"d"}`},
		{"told from its fields alone", copilotBash, "", "preToolUse", "s-main", "bash", `{"command":"echo hi","description":"d"}`},
		{"a subagent's call is its session's", copilotSubBash, "copilot", "preToolUse", "s-main", "bash", `{"command":"echo from-sub","description":"d"}`},
		{"permissionRequest", copilotPermissionCall, "copilot", copilotPermission, "s-main", "bash", `{"command":"echo hi"}`},
	} {
		in, err := ParseInput([]byte(c.in), agent.ID(c.hint))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if in.Harness != agent.Copilot || in.HookEventName != c.event || in.SessionID != c.session || in.ToolName != c.tool || string(in.ToolInput) != c.args {
			t.Errorf("%s: %+v", c.name, in)
		}
	}
	in, _ := ParseInput([]byte(copilotPermissionCall), agent.Copilot)
	if !in.isModelRequest() || in.isToolCall() {
		t.Error("a permission request is answered by the stops only, not counted as a call")
	}
}

func TestCopilotTranscriptPath(t *testing.T) {
	env := func(m map[string]string) agent.Env { return func(k string) string { return m[k] } }
	in := &Input{SessionID: "abc"}
	if got := copilotTranscript(in, env(map[string]string{"HOME": "/h"})); got != filepath.FromSlash("/h/.copilot/session-state/abc/events.jsonl") {
		t.Errorf("under HOME: %s", got)
	}
	if got := copilotTranscript(in, env(map[string]string{"HOME": "/h", "COPILOT_HOME": "/c"})); got != filepath.FromSlash("/c/session-state/abc/events.jsonl") {
		t.Errorf("COPILOT_HOME: %s", got)
	}
	for _, id := range []string{"..", "../x", `a\b`, ""} {
		if got := copilotTranscript(&Input{SessionID: id}, env(map[string]string{"HOME": "/h"})); got != "" {
			t.Errorf("id %q names a file: %s", id, got)
		}
	}
}

// copilotSession writes a Copilot CLI session that spent usd-worth of
// gpt-5-mini tokens under home, and a config with the session cap.
func copilotSession(t *testing.T, h *Hook, home string, inputTokens int, cap float64) {
	t.Helper()
	dir := filepath.Join(home, ".copilot", "session-state", "s-main")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lines := `{"type":"session.start","data":{"sessionId":"s-main","producer":"copilot-agent"},"id":"e0","timestamp":"2026-11-30T11:59:00.000Z","parentId":null}` + "\n" +
		`{"type":"user.message","data":{"content":"go","messageId":"m1"},"id":"e1","timestamp":"2026-11-30T11:59:01.000Z","parentId":"e0"}` + "\n" +
		`{"type":"session.usage_record","data":{"usage":{"model":"gpt-5-mini","inputTokens":` + itoa(inputTokens) + `,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0,"cost":0.0,"isByok":true}},"id":"e2","timestamp":"2026-11-30T11:59:02.000Z","parentId":"e1"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"session_cap_usd": cap})
	if err := os.WriteFile(h.ConfigPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	h.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// At the cap, a shell command goes on to its permission request, which
// ends the turn (interrupt); a read, which gets none, is denied at once.
func TestCopilotStopEndsTheTurnAtThePermissionRequest(t *testing.T) {
	h := newTestHook(t)
	// 4M input tokens of gpt-5-mini: far past a $0.10 cap.
	copilotSession(t, h, t.TempDir(), 4_000_000, 0.10)
	run := func(in string) string {
		var out bytes.Buffer
		h.Run(strings.NewReader(in), &out, "copilot")
		return out.String()
	}
	if out := run(copilotBash); out != "" {
		t.Fatalf("preToolUse of a shell call at the cap: %q, want no decision (the stop waits for its permission request)", out)
	}
	out := run(copilotPermissionCall)
	var perm copilotPermissionOutput
	if err := json.Unmarshal([]byte(out), &perm); err != nil || perm.Behavior != "deny" || !perm.Interrupt || !strings.Contains(perm.Message, "session cap") {
		t.Fatalf("permissionRequest at the cap: %q (%v)", out, err)
	}
	var tool copilotToolOutput
	if err := json.Unmarshal([]byte(run(copilotView)), &tool); err != nil || tool.PermissionDecision != "deny" {
		t.Fatalf("a read at the cap: %+v (%v)", tool, err)
	}
	if log := errorLog(t, h); log != "" {
		t.Errorf("error log: %s", log)
	}
}

// Under the cap nothing is said at either event, and no stop is left over.
func TestCopilotUnderTheCap(t *testing.T) {
	h := newTestHook(t)
	copilotSession(t, h, t.TempDir(), 1000, 5)
	for _, in := range []string{copilotBash, copilotPermissionCall, copilotSubBash} {
		var out bytes.Buffer
		h.Run(strings.NewReader(in), &out, "copilot")
		if out.Len() != 0 {
			t.Errorf("%s: %q", in, out.String())
		}
	}
}

func TestDeferStop(t *testing.T) {
	now := newTestHook(t).now()
	stop := Verdict{Kind: Stop, Wire: "spend", Reason: "runaway: cap"}
	var s Session
	if got := s.deferStop(Answer{Verdicts: []Verdict{{Kind: Warn, Wire: "spend"}, stop}}, now); got.Kind() != Warn || s.Deferred == nil {
		t.Fatalf("a stop is kept for later: %+v, %+v", got, s.Deferred)
	}
	vs := s.takeDeferred([]Verdict{stop}, now)
	if len(vs) != 1 || s.Deferred != nil {
		t.Fatalf("the same wire's stop is given once: %+v", vs)
	}
	tamper := Verdict{Kind: Deny, Wire: "tamper", Reason: "runaway: no"}
	if got := s.deferStop(Answer{Verdicts: []Verdict{tamper, stop}}, now); got.Kind() != Stop || s.Deferred != nil {
		t.Fatalf("a deny of its own is answered now: %+v", got)
	}
	s.deferStop(Answer{Verdicts: []Verdict{stop}}, now)
	if vs := s.takeDeferred(nil, now.Add(deferredFor+1)); len(vs) != 0 {
		t.Fatalf("a stale deferred stop ends no later turn: %+v", vs)
	}
}
