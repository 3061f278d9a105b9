package transcripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

const handMade0169 = "testdata/rollout-2026-11-30T22-43-24-01a22ea0-8ee9-7293-a4ae-1e672d72b015.jsonl"

// The 0.169 shapes from codex-observed.md: a token_usage_record per
// response, token_count after it with the same total, item_completed
// CommandExecution for results, a hook-blocked call with only its output.
func TestCodex0169Rollout(t *testing.T) {
	got := readAll(t, ReadCodex, handMade0169)
	want := Usage{Input: 4 * 40000, CacheRead: 4 * 60000, Output: 4 * 5000}
	if tokensOnly(got.Usage) != want {
		t.Errorf("usage %+v, want %+v", got.Usage, want)
	}
	// Codex's own "tokens used" line: Σ input − cached + output.
	if n := got.Usage.Input + got.Usage.Output; n != 180000 {
		t.Errorf("tokens used %d, want 180000 as codex exec printed", n)
	}
	if got.Responses != 4 || len(got.PerModel) != 1 || got.PerModel["gpt-5.1-codex"] == (Usage{}) {
		t.Errorf("responses %d per model %v", got.Responses, got.PerModel)
	}
	if got.Results != 3 || got.Failed != 2 {
		t.Errorf("results %d failed %d, want 3 (exit 1, exit 0, blocked) and 2", got.Results, got.Failed)
	}
	if got.Calls != 3 {
		t.Errorf("calls %d, want 3", got.Calls)
	}
}

// When the hook runs, the rollout ends with the token_usage_record of the
// response that made the call: that response is already counted.
func TestCodexUsageRecordIsCurrentAtHookTime(t *testing.T) {
	data, err := os.ReadFile(handMade0169)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var cut []byte
	records := 0
	for _, l := range lines {
		cut = append(cut, l...)
		if bytes.Contains(l, []byte(`"type":"token_usage_record"`)) {
			if records++; records == 2 {
				break
			}
		}
	}
	path := filepath.Join(t.TempDir(), "rollout-x.jsonl")
	if err := os.WriteFile(path, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, ReadCodex, path)
	if got.Usage.Input+got.Usage.CacheRead != 200000 {
		t.Errorf("at call 2 the reader should see 2 responses (200000 input), saw %+v", got.Usage)
	}
}

// lastTotal is the oracle for a rollout without replayed history: the
// largest cumulative total the file carries.
func lastTotal(t *testing.T, path string) Usage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var best codexUsageJSON
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					Total codexUsageJSON `json:"total_token_usage"`
				} `json:"info"`
				Thread *codexUsageJSON `json:"thread_token_usage"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		var u *codexUsageJSON
		if l.Payload.Info != nil {
			u = &l.Payload.Info.Total
		}
		if l.Payload.Thread != nil {
			u = l.Payload.Thread
		}
		if u != nil && u.InputTokens+u.OutputTokens > best.InputTokens+best.OutputTokens {
			best = *u
		}
	}
	return Usage{Input: best.InputTokens - best.CachedInputTokens - best.CacheWriteInputTokens,
		CacheRead: best.CachedInputTokens, CacheCreation: best.CacheWriteInputTokens, Output: best.OutputTokens}
}

func TestCodexEveryRealFixture(t *testing.T) {
	root := filepath.Join(realFixtures(t), "codex")
	files := jsonlFiles(t, root)
	if len(files) != 5 {
		t.Fatalf("expected the 5 Codex fixtures, found %d", len(files))
	}
	// Tool results and failures per file, counted from the files with a
	// script: exec_command_end exit codes, else the exit code the call's
	// output states (JSON metadata in 0.58, "Process exited with code N"
	// later); outputs of commands still running say nothing.
	wantResults := map[string][2]int{
		"rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl": {37, 3},
		"rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl": {89, 8},
		"rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl": {35, 1},
		"rollout-clean-session.jsonl":                                            {0, 0},
		"rollout-duplicate-token-count.jsonl":                                    {0, 0},
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			got := readAll(t, ReadCodex, path)
			if want := lastTotal(t, path); tokensOnly(got.Usage) != want {
				t.Errorf("usage %+v, want %+v", got.Usage, want)
			}
			if w := wantResults[name]; got.Results != w[0] || got.Failed != w[1] {
				t.Errorf("results %d (%d failed), want %d (%d failed)", got.Results, got.Failed, w[0], w[1])
			}
		})
	}
}

// The re-emit rule, pinned on the real rollout where Codex wrote the same
// token_count twice: summing last_token_usage would count 20779 tokens twice.
func TestCodexReEmittedTokenCountCountedOnce(t *testing.T) {
	path := filepath.Join(realFixtures(t), "codex/tiermetric__tier/internal/collector/codexrollout/testdata/rollout-duplicate-token-count.jsonl")
	got := readAll(t, ReadCodex, path)
	want := Usage{Input: 120036 - 107520, CacheRead: 107520, Output: 4350}
	if tokensOnly(got.Usage) != want {
		t.Errorf("usage %+v, want %+v", got.Usage, want)
	}
	if got.Responses != 6 {
		t.Errorf("responses %d, want 6 (7 token_count events, one a repeat)", got.Responses)
	}
	if got.PerModel["gpt-5.6-terra"] == (Usage{}) {
		t.Errorf("model from turn_context missing: %v", got.PerModel)
	}
}

// rewriteTimestamps gives every line of a rollout the same timestamp, as
// Codex does when it replays a parent's history into a fork.
func rewriteTimestamps(t *testing.T, data []byte, ts string) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		m["timestamp"], _ = json.Marshal(ts)
		b, _ := json.Marshal(m)
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func codexLineJSONText(t *testing.T, ts, typ string, payload any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"timestamp": ts, "type": typ, "payload": payload})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// forkOf builds a fork rollout of a real parent: its own session_meta, the
// parent's history replayed at the fork instant, then one own response whose
// cumulative total continues from the parent's (Codex seeds the fork's
// counter from the replayed history).
func forkOf(t *testing.T, parentPath, childID, root string, spawn bool) ([]byte, Usage) {
	t.Helper()
	parent, err := os.ReadFile(parentPath)
	if err != nil {
		t.Fatal(err)
	}
	pt := lastTotal(t, parentPath)
	parentID := strings.Split(string(parent[:bytes.IndexByte(parent, '\n')]), `"id":"`)[1][:36]
	const forkAt = "2026-06-01T10:00:00.000Z"
	meta := map[string]any{"id": childID, "timestamp": forkAt, "cwd": "/repo", "cli_version": "0.169.0"}
	if root != "" {
		meta["session_id"] = root
	}
	if spawn {
		meta["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": parentID, "depth": 1}}}
	} else {
		meta["forked_from_id"] = parentID
	}
	var b bytes.Buffer
	b.WriteString(codexLineJSONText(t, forkAt, "session_meta", meta))
	b.Write(rewriteTimestamps(t, parent, "2026-06-01T10:00:00.020Z"))
	own := codexUsageJSON{InputTokens: 1000, CachedInputTokens: 400, OutputTokens: 50}
	total := map[string]any{
		"input_tokens": pt.Input + pt.CacheRead + own.InputTokens, "cached_input_tokens": pt.CacheRead + own.CachedInputTokens,
		"output_tokens": pt.Output + own.OutputTokens,
	}
	b.WriteString(codexLineJSONText(t, "2026-06-01T10:00:07.000Z", "turn_context", map[string]any{"model": "gpt-5.5"}))
	b.WriteString(codexLineJSONText(t, "2026-06-01T10:00:07.001Z", "event_msg", map[string]any{"type": "task_started"}))
	b.WriteString(codexLineJSONText(t, "2026-06-01T10:00:12.000Z", "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": total, "last_token_usage": own}}))
	return b.Bytes(), Usage{Input: 600, CacheRead: 400, Output: 50}
}

// The replay rule, pinned on a real rollout used as the parent of a fork:
// only the fork's own response counts.
func TestCodexForkReplayNotCounted(t *testing.T) {
	parent := filepath.Join(realFixtures(t), "codex/codemie-ai__codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
	data, own := forkOf(t, parent, "019e9999-0000-7000-8000-000000000001", "", false)
	path := filepath.Join(t.TempDir(), "rollout-2026-06-01T10-00-00-019e9999-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, ReadCodex, path)
	if tokensOnly(got.Usage) != own {
		t.Errorf("fork usage %+v, want only its own %+v", got.Usage, own)
	}
	if got.Results != 0 || got.Calls != 0 {
		t.Errorf("replayed tool results/calls must not count: %d results, %d calls", got.Results, got.Calls)
	}
}

// A session's subagent rollouts are found in the sessions tree and summed,
// the replayed parent prefix left out; .jsonl.zst rollouts read too.
func TestCodexSessionFindsSubagentRollouts(t *testing.T) {
	real := realFixtures(t)
	withSystemUnzstd(t)
	parentSrc := filepath.Join(real, "codex/codemie-ai__codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
	sessions := filepath.Join(t.TempDir(), "sessions")
	day1 := filepath.Join(sessions, "2026", "05", "11")
	day2 := filepath.Join(sessions, "2026", "06", "01")
	for _, d := range []string{day1, day2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	parentData, _ := os.ReadFile(parentSrc)
	parent := filepath.Join(day1, filepath.Base(parentSrc))
	if err := os.WriteFile(parent, parentData, 0o600); err != nil {
		t.Fatal(err)
	}
	// A rollout of another session in between must be left out.
	other, _ := os.ReadFile(handMade0169)
	if err := os.WriteFile(filepath.Join(day1, "rollout-2026-05-11T23-00-00-01a22ea0-8ee9-7293-a4ae-1e672d72b015.jsonl"), other, 0o600); err != nil {
		t.Fatal(err)
	}
	root := "019e1625-789d-76c0-80ab-3724b5ddb799"
	child, own := forkOf(t, parentSrc, "019e9999-0000-7000-8000-000000000002", root, true)
	var zbuf bytes.Buffer
	zw, _ := zstd.NewWriter(&zbuf)
	zw.Write(child)
	zw.Close()
	if err := os.WriteFile(filepath.Join(day2, "rollout-2026-06-01T10-00-00-019e9999-0000-7000-8000-000000000002.jsonl.zst"), zbuf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	meta, err := ReadCodexMeta(filepath.Join(day2, "rollout-2026-06-01T10-00-00-019e9999-0000-7000-8000-000000000002.jsonl.zst"))
	if err != nil || meta != (CodexMeta{ThreadID: "019e9999-0000-7000-8000-000000000002", RootID: root, ParentID: root, Cwd: "/repo"}) {
		t.Errorf("child meta %+v (%v)", meta, err)
	}
	files, err := codexFormat.SessionFiles(parent)
	if err != nil || len(files) != 2 {
		t.Fatalf("session files %v (%v), want parent and the .zst child", files, err)
	}
	got := readAll(t, ReadCodex, parent)
	want := lastTotal(t, parentSrc).Add(own)
	if tokensOnly(got.Usage) != tokensOnly(want) {
		t.Errorf("session usage %+v, want parent + child's own %+v", got.Usage, want)
	}

	// A later call finds a rollout that appeared since, without a full rescan.
	var pos Position
	if _, err := ReadCodex(context.Background(), parent, &pos, Sink{}); err != nil {
		t.Fatal(err)
	}
	if pos.ScanDay != "2026/06/01" {
		t.Errorf("scan stopped at %q, want the newest date folder", pos.ScanDay)
	}
	day3 := filepath.Join(sessions, "2026", "06", "02")
	os.MkdirAll(day3, 0o755)
	grand, _ := forkOf(t, parentSrc, "019e9999-0000-7000-8000-000000000003", root, true)
	os.WriteFile(filepath.Join(day3, "rollout-2026-06-02T10-00-00-019e9999-0000-7000-8000-000000000003.jsonl"), grand, 0o600)
	var extra Usage
	if _, err := ReadCodex(context.Background(), parent, &pos, Sink{Response: func(r Response) { extra = extra.Add(r.Usage) }}); err != nil {
		t.Fatal(err)
	}
	if tokensOnly(extra) != own {
		t.Errorf("new subagent yielded %+v, want %+v", extra, own)
	}

	// Read from a subagent's own rollout, the session is that subagent and
	// its descendants: its sibling is not included.
	childFiles, err := codexFormat.SessionFiles(filepath.Join(day2, "rollout-2026-06-01T10-00-00-019e9999-0000-7000-8000-000000000002.jsonl.zst"))
	if err != nil || len(childFiles) != 1 {
		t.Errorf("a subagent's session files %v (%v), want only its own", childFiles, err)
	}
}

// A field of an unexpected type in a newer version's payload does not hide
// the fields that matter.
func TestCodexToleratesOtherFieldTypes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout-x.jsonl")
	os.WriteFile(path, []byte(`{"timestamp":"2026-11-30T10:00:00Z","type":"turn_context","payload":{"model":"gpt-5.5","status":{"new":"shape"}}}
{"timestamp":"2026-11-30T10:00:01Z","type":"event_msg","payload":{"type":"token_count","id":42,"info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10}}}}
`), 0o600)
	got := readAll(t, ReadCodex, path)
	if tokensOnly(got.Usage) != (Usage{Input: 60, CacheRead: 40, Output: 10}) || got.PerModel["gpt-5.5"] == (Usage{}) {
		t.Errorf("usage %+v per model %v", got.Usage, got.PerModel)
	}
}

// Any rollout of a session leads to the root's: a subagent's by its
// session_id, an older one without it by its parent, walked up.
func TestCodexRootRollout(t *testing.T) {
	sessions := filepath.Join(t.TempDir(), "sessions")
	write := func(day, name, meta string) string {
		p := filepath.Join(sessions, day, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(`{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":`+meta+"}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := write("2026/11/30", "rollout-2026-11-30T10-00-00-r0.jsonl", `{"id":"r0","session_id":"r0"}`)
	sub := write("2026/12/01", "rollout-2026-12-01T10-00-00-s1.jsonl", `{"id":"s1","session_id":"r0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"r0"}}}}`)
	oldRoot := write("2026/11/30", "rollout-2026-11-30T11-00-00-o0.jsonl", `{"id":"o0"}`)
	oldChild := write("2026/11/30", "rollout-2026-11-30T11-01-00-o1.jsonl", `{"id":"o1","forked_from_id":"o0"}`)
	oldGrandchild := write("2026/12/01", "rollout-2026-12-01T11-02-00-o2.jsonl", `{"id":"o2","forked_from_id":"o1"}`)
	orphan := write("2026/12/01", "rollout-2026-12-01T12-00-00-x1.jsonl", `{"id":"x1","session_id":"gone"}`)
	loose := filepath.Join(t.TempDir(), "loose.jsonl") // in no sessions/ tree
	os.WriteFile(loose, []byte(`{"type":"session_meta","payload":{"id":"l1","session_id":"r0"}}`+"\n"), 0o600)
	for _, c := range []struct{ from, want string }{
		{root, root}, {sub, root}, {oldChild, oldRoot}, {oldGrandchild, oldRoot}, {orphan, orphan}, {loose, loose},
	} {
		if got := CodexRootRollout(c.from); got != c.want {
			t.Errorf("CodexRootRollout(%s) = %s, want %s", filepath.Base(c.from), got, filepath.Base(c.want))
		}
	}
}

// Codex run with `service_tier = "fast"` (0.169.0 and 0.171.0 against the
// fake server, 2026-12-01; the prompts and instructions left out): the
// requests asked for service_tier "priority" and thread_settings_applied
// says "priority". Every response carries the tier to pricing.
func TestCodexPriorityTierFromRealRollouts(t *testing.T) {
	for _, f := range []string{"testdata/rollout-codex-0.169-priority.jsonl", "testdata/rollout-codex-0.171-priority.jsonl"} {
		n := 0
		sink := Sink{Response: func(r Response) {
			n++
			if r.Usage.Tier != "priority" {
				t.Errorf("%s: response %s tier %q, want priority", f, r.MessageID, r.Usage.Tier)
			}
		}}
		var pos Position
		if _, err := ReadCodex(context.Background(), f, &pos, sink); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("%s: %d responses, want 2", f, n)
		}
	}
}

// A thread whose settings go back to the standard tier prices its next
// responses at standard rates.
func TestCodexTierFollowsThreadSettings(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "rollout-2026-12-01T10-00-00-01a23368-41dd-7561-b6f7-c8471d0e6f22.jsonl")
	lines := []string{
		`{"timestamp":"2026-12-01T10:00:00Z","type":"session_meta","payload":{"id":"01a23368-41dd-7561-b6f7-c8471d0e6f22","cli_version":"0.171.0"}}`,
		`{"timestamp":"2026-12-01T10:00:01Z","type":"turn_context","payload":{"model":"gpt-5.5"}}`,
		`{"timestamp":"2026-12-01T10:00:01Z","type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"model":"gpt-5.5","service_tier":"flex"}}}`,
		`{"timestamp":"2026-12-01T10:00:02Z","type":"token_usage_record","payload":{"response_id":"r1","thread_token_usage":{"input_tokens":100,"output_tokens":10}}}`,
		`{"timestamp":"2026-12-01T10:00:03Z","type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"model":"gpt-5.5"}}}`,
		`{"timestamp":"2026-12-01T10:00:04Z","type":"token_usage_record","payload":{"response_id":"r2","thread_token_usage":{"input_tokens":200,"output_tokens":20}}}`,
	}
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var tiers []string
	var pos Position
	if _, err := ReadCodex(context.Background(), f, &pos, Sink{Response: func(r Response) { tiers = append(tiers, r.Usage.Tier) }}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(tiers, ",") != "flex," {
		t.Errorf("tiers %q, want flex then standard", tiers)
	}
}

// Issue 23, item 9: a fork's or subagent's own first response within a
// second of its start counts (before, the replay window swallowed it). The
// replayed history carries the one instant it was copied at; the child's
// own lines come after it.
func TestCodexForkFirstResponseWithinASecond(t *testing.T) {
	parent := filepath.Join(realFixtures(t), "codex/codemie-ai__codemie-code/src/agents/plugins/codex/__tests__/fixtures/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl")
	data, own := forkOf(t, parent, "019e9999-0000-7000-8000-000000000009", "", true)
	for from, to := range map[string]string{"10:00:07.000Z": "10:00:00.300Z", "10:00:07.001Z": "10:00:00.301Z", "10:00:12.000Z": "10:00:00.900Z"} {
		data = bytes.ReplaceAll(data, []byte(from), []byte(to))
	}
	path := filepath.Join(t.TempDir(), "rollout-2026-06-01T10-00-00-019e9999-0000-7000-8000-000000000009.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, ReadCodex, path)
	if tokensOnly(got.Usage) != own {
		t.Errorf("fork usage %+v, want its own %+v", got.Usage, own)
	}
}
