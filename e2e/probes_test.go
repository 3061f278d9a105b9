package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testhome"
)

// The wires live inside `runaway hook` and land one by one; a scenario that
// needs one skips until a probe shows the built binary has it. Each probe
// feeds the hook one Claude Code call over a transcript made to trigger the
// wire, in a throwaway home.
var haveWire = map[string]bool{}

func findWires() {
	if !hasCommand("hook") {
		return
	}
	haveWire["spend"] = probeWire("spend", spendProbeTranscript(), map[string]string{"RUNAWAY_SESSION_CAP_USD": "1"})
	haveWire["failure"] = probeWire("failure", failureProbeTranscript(), map[string]string{"RUNAWAY_FAILURE_RUN": "2", "RUNAWAY_REPEAT_RUN": "100"})
}

// requireWire skips the test while the hook lacks the wire.
func requireWire(t *testing.T, wire string) {
	t.Helper()
	requireCommand(t, "hook")
	if !haveWire[wire] {
		t.Skipf("needs the %s wire of `runaway hook`, which this build does not have yet (a transcript made to trigger it got no decision)", wire)
	}
}

// probeWire reports whether `runaway hook claude` answers a call over the
// transcript lines with a deny or an ask.
func probeWire(name string, transcript []string, env map[string]string) bool {
	dir, err := os.MkdirTemp("", "runaway-e2e-probe-")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	tp := filepath.Join(dir, "probe.jsonl")
	if os.WriteFile(tp, []byte(strings.Join(transcript, "\n")+"\n"), 0o600) != nil {
		return false
	}
	in, _ := json.Marshal(map[string]any{
		"session_id": "e2e-probe-" + name, "transcript_path": tp, "cwd": dir,
		"hook_event_name": "PreToolUse", "permission_mode": "default",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "echo probe"}, "tool_use_id": "toolu_probe_next",
	})
	cmd := exec.Command(runawayBin, "hook", "claude")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Env = testhome.Env([]string{"PATH=" + os.Getenv("PATH")}, dir)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.Output()
	if err != nil {
		return false
	}
	var ans struct {
		HookSpecificOutput struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	_ = json.Unmarshal(out, &ans)
	d := ans.HookSpecificOutput.PermissionDecision
	return d == "deny" || d == "ask"
}

// claudeLine is one transcript line of the kinds the wires read.
func claudeAssistantLine(n int, model string, usage claudeUsage, toolCmd string) string {
	return mustJSON(map[string]any{
		"type": "assistant", "sessionId": "e2e-probe", "uuid": fmt.Sprintf("a%d", n), "requestId": fmt.Sprintf("req_probe_%d", n),
		"message": map[string]any{"id": fmt.Sprintf("msg_probe_%d", n), "type": "message", "role": "assistant", "model": model,
			"content":     []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_probe_%d", n), "name": "Bash", "input": map[string]any{"command": toolCmd}}},
			"stop_reason": "tool_use", "usage": usage.json()},
	})
}

func claudeFailedResultLine(n int) string {
	return mustJSON(map[string]any{
		"type": "user", "sessionId": "e2e-probe", "uuid": fmt.Sprintf("u%d", n), "toolUseResult": "Error: Exit code 1",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_probe_%d", n), "is_error": true, "content": "Exit code 1\nfailed"}}},
	})
}

// spendProbeTranscript is one response worth $3,000.
func spendProbeTranscript() []string {
	return []string{claudeAssistantLine(1, "claude-sonnet-4-6", claudeUsage{Input: 1_000_000_000}, "echo probe")}
}

// failureProbeTranscript is three different calls that all failed.
func failureProbeTranscript() []string {
	var lines []string
	for i := 1; i <= 3; i++ {
		lines = append(lines, claudeAssistantLine(i, "claude-sonnet-4-6", claudeUsage{Input: 10}, fmt.Sprintf("exit %d", i)), claudeFailedResultLine(i))
	}
	return lines
}
