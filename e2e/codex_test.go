package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// codexModel is the model the fake provider serves to Codex.
const codexModel = "gpt-5.5"

// writeCodexConfig points Codex at the fake Responses API on loopback, as
// codex-observed.md shows: a custom provider, no approvals, no sandbox.
func (s *sandbox) writeCodexConfig(srv *openaiServer) {
	s.t.Helper()
	s.writeFile(filepath.Join(s.codexDir, "config.toml"), fmt.Sprintf(`model = %q
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_KEY"
`, codexModel, srv.URL()))
}

// codexRun is one finished `codex exec` run.
type codexRun struct {
	procResult
	Rollout string           // the session's rollout file
	Lines   []map[string]any // its JSON lines
}

// runCodex runs `codex exec` with the prompt; the sandbox's config.toml must
// point at srv (writeCodexConfig).
func (s *sandbox) runCodex(srv *openaiServer, prompt string, env map[string]string) codexRun {
	s.t.Helper()
	return s.codexExec(env, "", prompt)
}

// resumeCodex goes on with a recorded session: `codex exec resume <id>`.
func (s *sandbox) resumeCodex(session, prompt string, env map[string]string) codexRun {
	s.t.Helper()
	return s.codexExec(env, session, prompt)
}

func (s *sandbox) codexExec(env map[string]string, resume, prompt string) codexRun {
	s.t.Helper()
	codexAgent.require(s.t)
	before := s.rollouts()
	e := map[string]string{"FAKE_KEY": "dummy"}
	for k, v := range env {
		e[k] = v
	}
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"}
	if resume != "" {
		args = append(args, "resume", resume)
	}
	r := codexRun{procResult: s.exec(e, "", codexAgent.path, append(args, prompt)...)}
	var fresh []string
	for p := range s.rollouts() {
		if !before[p] || (resume != "" && strings.Contains(filepath.Base(p), resume)) {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) != 1 {
		s.t.Fatalf("codex exec (exit %d) wrote %d rollouts for the run, want 1: %v\nstderr:\n%s", r.Code, len(fresh), fresh, r.Stderr)
	}
	r.Rollout = fresh[0]
	for _, l := range nonEmptyLines(s.readFile(r.Rollout)) {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil {
			r.Lines = append(r.Lines, m)
		}
	}
	s.t.Logf("codex: exit %d in %s, %d rollout lines, session %s", r.Code, r.Took.Round(1e6), len(r.Lines), r.Session())
	return r
}

func (s *sandbox) rollouts() map[string]bool {
	m, _ := filepath.Glob(filepath.Join(s.codexDir, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	set := map[string]bool{}
	for _, p := range m {
		set[p] = true
	}
	return set
}

func payload(l map[string]any) map[string]any {
	p, _ := l["payload"].(map[string]any)
	return p
}

// Session is the rollout's session id (session_meta).
func (r codexRun) Session() string {
	for _, l := range r.Lines {
		if l["type"] == "session_meta" {
			if id, ok := payload(l)["id"].(string); ok {
				return id
			}
		}
	}
	return ""
}

// ToolOutputs are the function_call_output texts, in order: what the model
// was told each call did.
func (r codexRun) ToolOutputs() []string {
	var out []string
	for _, l := range r.Lines {
		p := payload(l)
		if l["type"] == "response_item" && p["type"] == "function_call_output" {
			switch o := p["output"].(type) {
			case string:
				out = append(out, o)
			default:
				b, _ := json.Marshal(o)
				out = append(out, string(b))
			}
		}
	}
	return out
}

// Executed are the CommandExecution items Codex completed (commands that
// really ran), as "status exit_code".
func (r codexRun) Executed() []string {
	var out []string
	for _, l := range r.Lines {
		p := payload(l)
		if l["type"] != "event_msg" || p["type"] != "item_completed" {
			continue
		}
		item, _ := p["item"].(map[string]any)
		if item["type"] == "CommandExecution" {
			out = append(out, fmt.Sprintf("%v %v", item["status"], item["exit_code"]))
		}
	}
	return out
}

// blockedPrefix starts the tool output of a call a PreToolUse hook denied.
const blockedPrefix = "Command blocked by PreToolUse hook: "

// Blocked returns the reasons of the calls a hook denied.
func (r codexRun) Blocked() []string {
	var out []string
	for _, o := range r.ToolOutputs() {
		if strings.HasPrefix(o, blockedPrefix) {
			out = append(out, strings.TrimPrefix(o, blockedPrefix))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
