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
	var list struct {
		Data []struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"data"`
	}
	codexAppServer(t, s, "hooks/list", fmt.Sprintf(`{"cwds":[%q]}`, s.proj), &list)
	var hooks []map[string]any
	for _, d := range list.Data {
		hooks = append(hooks, d.Hooks...)
	}
	return hooks
}

// codexTrustHooks trusts the hooks the way Codex's /hooks does: its
// app-server's config/batchWrite of hooks.state."<key>".trusted_hash.
func codexTrustHooks(t *testing.T, s *sandbox, hooks []map[string]any) {
	t.Helper()
	type edit struct {
		KeyPath       string `json:"keyPath"`
		Value         any    `json:"value"`
		MergeStrategy string `json:"mergeStrategy"`
	}
	var edits []edit
	for _, h := range hooks {
		edits = append(edits, edit{fmt.Sprintf("hooks.state.%q.trusted_hash", h["key"]), h["currentHash"], "replace"})
	}
	params, _ := json.Marshal(map[string]any{"edits": edits})
	var res map[string]any
	codexAppServer(t, s, "config/batchWrite", string(params), &res)
	if res["status"] != "ok" {
		t.Fatalf("config/batchWrite: %v", res)
	}
}

// codexAppServer sends one request to the real `codex app-server` and
// decodes its result into out.
func codexAppServer(t *testing.T, s *sandbox, method, params string, out any) {
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
	stdout, err := cmd.StdoutPipe()
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
	fmt.Fprintf(in, `{"id":2,"method":%q,"params":%s}`+"\n", method, params)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  any             `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID != 2 {
			continue
		}
		if msg.Error != nil {
			t.Fatalf("%s: %v", method, msg.Error)
		}
		if err := json.Unmarshal(msg.Result, out); err != nil {
			t.Fatalf("%s: %v in %s", method, err, msg.Result)
		}
		return
	}
	t.Fatalf("codex app-server gave no answer to %s (%v)", method, sc.Err())
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

// The person trusts runaway's two entries as /hooks does, and Codex writes
// its trust records into config.toml; runaway remove then gives
// config.toml back byte for byte (issue 20 item 7).
func TestRemoveTakesOutCodexTrust(t *testing.T) {
	codexAgent.require(t)
	requireCommand(t, "setup")
	requireCommand(t, "remove")
	s := newSandbox(t)
	config := filepath.Join(s.codexDir, "config.toml")
	s.writeFile(config, "model = \"gpt-5.1-codex\"\n\n[projects.\"/x\"]\ntrust_level = \"trusted\"\n\n[hooks.state.\"/elsewhere/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:2222\"\n")
	before := s.readFile(config)
	s.installRunaway()
	codexTrustHooks(t, s, codexHookState(t, s))
	trusted := s.readFile(config)
	for _, h := range codexHookState(t, s) {
		if h["trustStatus"] != "trusted" {
			t.Fatalf("after config/batchWrite, codex says %v\nconfig.toml:\n%s", h, trusted)
		}
	}
	if r := s.runaway("remove", "--yes"); r.Code != 0 {
		t.Fatalf("runaway remove --yes: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after := s.readFile(config); after != before {
		t.Errorf("config.toml after remove:\n%s\nbefore setup:\n%s\nwith Codex's trust:\n%s", after, before, trusted)
	}
}
