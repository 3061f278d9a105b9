package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// codexHookState asks the real Codex (`codex app-server`, JSON-RPC over
// stdio, method hooks/list) for the key, hash and trust status it has for
// each hook it sees.
func codexHookState(t *testing.T, s *sandbox) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codexAgent.path, "app-server")
	cmd.Dir = s.proj
	cmd.Env = s.environ(nil)
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	fmt.Fprintln(in, `{"id":1,"method":"initialize","params":{"clientInfo":{"name":"runaway-e2e","version":"1"}}}`)
	fmt.Fprintln(in, `{"method":"initialized"}`)
	fmt.Fprintf(in, `{"id":2,"method":"hooks/list","params":{"cwds":[%q]}}`+"\n", s.proj)
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				Data []struct {
					Hooks []map[string]any `json:"hooks"`
				} `json:"data"`
			} `json:"result"`
			Error any `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("hooks/list: %v", msg.Error)
		}
		var hooks []map[string]any
		for _, d := range msg.Result.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks
	}
	t.Fatalf("codex app-server gave no answer to hooks/list (%v)", sc.Err())
	return nil
}

// doctor's codex-trust checks compute the hash Codex records for each of
// runaway's entries (PreToolUse and UserPromptSubmit, each with its own key
// and hash): trusting them with the hashes the real Codex reports turns
// doctor's warnings into ok, and Codex then calls both entries trusted.
func TestDoctorCodexTrustMatchesCodex(t *testing.T) {
	codexAgent.require(t)
	requireCommand(t, "setup")
	s := newSandbox(t)
	s.installRunaway()

	r := s.runaway("doctor")
	for _, check := range []string{"codex-trust +runaway's PreToolUse entry", "codex-prompt-trust +runaway's UserPromptSubmit entry"} {
		if !regexp.MustCompile(`(?m)^warn +` + check + ` is not trusted yet`).MatchString(r.Stdout) {
			t.Fatalf("before trust, doctor said:\n%s", r.Stdout)
		}
	}

	hooks := codexHookState(t, s)
	if len(hooks) != 2 {
		t.Fatalf("codex lists %d hooks, want runaway's two: %v", len(hooks), hooks)
	}
	var toml strings.Builder
	keys := map[string]bool{}
	for _, h := range hooks {
		key, _ := h["key"].(string)
		hash, _ := h["currentHash"].(string)
		if h["trustStatus"] != "untrusted" || !strings.HasPrefix(hash, "sha256:") {
			t.Fatalf("codex reports %v", h)
		}
		keys[key] = true
		fmt.Fprintf(&toml, "[hooks.state.%q]\ntrusted_hash = %q\n\n", key, hash)
	}
	hooksJSON := filepath.Join(s.codexDir, "hooks.json")
	if !keys[hooksJSON+":pre_tool_use:0:0"] || !keys[hooksJSON+":user_prompt_submit:0:0"] {
		t.Errorf("codex's keys %v, doctor's %s:{pre_tool_use,user_prompt_submit}:0:0", keys, hooksJSON)
	}
	s.writeFile(filepath.Join(s.codexDir, "config.toml"), toml.String())

	r = s.runaway("doctor")
	for _, want := range []string{
		`(?m)^ok +codex-trust +runaway's PreToolUse entry is trusted \(` + regexp.QuoteMeta(hooksJSON+":pre_tool_use:0:0") + `\)`,
		`(?m)^ok +codex-prompt-trust +runaway's UserPromptSubmit entry is trusted \(` + regexp.QuoteMeta(hooksJSON+":user_prompt_submit:0:0") + `\)`,
	} {
		if !regexp.MustCompile(want).MatchString(r.Stdout) {
			t.Fatalf("with the hashes Codex reports, doctor said:\n%s", r.Stdout)
		}
	}
	for _, h := range codexHookState(t, s) {
		if h["trustStatus"] != "trusted" {
			t.Fatalf("after writing the trust, codex says %v", h)
		}
	}
}
