package transcripts

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

const (
	geminiMain = "testdata/gemini/chats/session-2026-11-30T22-58-a334fe49.jsonl"
	geminiSub  = "testdata/gemini/chats/a334fe49-e05d-44a8-8199-ab7b67be0f8f/generalist-7f3e2a.jsonl"
)

// The hand-made session follows the records observed from Gemini CLI 0.61.0
// (shared/reference/gemini-cli-observed.md §5): each response's message is
// written twice, a $set.messages snapshot repeats three of them, a resume
// repeats them all again, and a subagent's file holds two more responses.
// Each response is counted once: 4 main responses of 100000 input (60000
// cached), 5000 output and 2000 thoughts, and 2 subagent responses of 50000
// input and 1000 output.
func TestGeminiCountsEachResponseOnce(t *testing.T) {
	tt := readAll(t, ReadGemini, geminiMain)
	want := Usage{Input: 4*40000 + 2*50000, CacheRead: 4 * 60000, Output: 4*7000 + 2*1000}
	if got := tokensOnly(tt.Usage); got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
	if tt.Responses != 6 {
		t.Errorf("%d responses, want 6", tt.Responses)
	}
	if got := tt.PerModel["gemini-3.8-flash"].Total(); got != tt.Usage.Total() {
		t.Errorf("per-model total %d, want all %d under gemini-3.8-flash", got, tt.Usage.Total())
	}
	// A naive sum of every record with tokens counts far more: the reason
	// for the per-id rule.
	naive := int64(0)
	for _, p := range []string{geminiMain, geminiSub} {
		b, _ := os.ReadFile(p)
		naive += int64(strings.Count(string(b), `"total":107000`))*107000 + int64(strings.Count(string(b), `"total":51000`))*51000
	}
	if naive <= tt.Usage.Total() {
		t.Errorf("naive sum %d not above the per-id sum %d: the fixture does not repeat records", naive, tt.Usage.Total())
	}
}

// Tool results: a shell call's exit code is in its output text, a call a
// hook denied has status error and the hook's reason; a call still running
// is reported once it is final, and a resume's repeats are not reported again.
func TestGeminiToolResults(t *testing.T) {
	type result struct {
		id      string
		failed  bool
		blocked string
	}
	var got []result
	var calls []string
	_, err := ReadGemini(context.Background(), geminiMain, &Position{}, Sink{
		ToolResult: func(r ToolResult) { got = append(got, result{r.ToolUseID, r.Failed, r.Blocked}) },
		ToolCall:   func(c ToolCall) { calls = append(calls, c.Name+" "+string(c.Input)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []result{
		{"run_shell_command__run_shell_command_1_0", false, ""},
		{"invoke_agent__invoke_agent_2_0", false, ""},
		{"run_shell_command__run_shell_command_3_0", true, "runaway: the same run_shell_command call 5 times in a row."},
		{"run_shell_command__run_shell_command_4_0", true, ""},
		{"run_shell_command__run_shell_command_5_0", true, ""},
		{"complete_task__complete_task_6_0", false, ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("results\n got %+v\nwant %+v", got, want)
	}
	if len(calls) != 6 || calls[0] != `run_shell_command {"command":"echo hi","description":"say hi"}` {
		t.Errorf("calls %q", calls)
	}
}

func TestGeminiSessionFilesAndDetect(t *testing.T) {
	files, err := geminiFormat.SessionFiles(geminiMain)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != filepath.Base(geminiMain) || filepath.Base(files[1]) != filepath.Base(geminiSub) {
		t.Errorf("files %q", files)
	}
	for _, p := range []string{geminiMain, geminiSub} {
		if a, err := Detect(p); a != agent.Gemini || err != nil {
			t.Errorf("Detect(%s) = %q, %v", p, a, err)
		}
	}
}

// A subagent's file found later (Gemini CLI creates it when the subagent
// starts) and nested subagents are read too.
func TestGeminiFindsLaterAndNestedSubagents(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "chats")
	main := filepath.Join(chats, "session-2026-12-01T10-00-aaaaaaaa.jsonl")
	os.MkdirAll(chats, 0o755)
	header := func(id, kind string) string {
		return fmt.Sprintf(`{"sessionId":%q,"projectHash":"ab","startTime":"2026-12-01T10:00:00.000Z","lastUpdated":"2026-12-01T10:00:00.000Z","kind":%q}`+"\n", id, kind)
	}
	resp := func(id string, in int) string {
		return fmt.Sprintf(`{"id":%q,"timestamp":"2026-12-01T10:00:01.000Z","type":"gemini","content":"","tokens":{"input":%d,"output":1,"cached":0,"thoughts":0,"tool":0,"total":%d},"model":"gemini-2.5-pro"}`+"\n", id, in, in+1)
	}
	os.WriteFile(main, []byte(header("aaaaaaaa-1111", "main")+resp("m1", 10)), 0o600)
	var pos Position
	sum := int64(0)
	sink := Sink{Response: func(r Response) { sum += r.Usage.Input - r.Counted.Input }}
	read := func() {
		t.Helper()
		if _, err := ReadGemini(context.Background(), main, &pos, sink); err != nil {
			t.Fatal(err)
		}
	}
	read()
	os.MkdirAll(filepath.Join(chats, "aaaaaaaa-1111"), 0o755)
	os.WriteFile(filepath.Join(chats, "aaaaaaaa-1111", "sub-1.jsonl"), []byte(header("sub-1", "subagent")+resp("s1", 100)), 0o600)
	read()
	os.MkdirAll(filepath.Join(chats, "sub-1"), 0o755)
	os.WriteFile(filepath.Join(chats, "sub-1", "sub-2.jsonl"), []byte(header("sub-2", "subagent")+resp("s2", 1000)), 0o600)
	// Another session's subagent is not this session's.
	os.MkdirAll(filepath.Join(chats, "bbbbbbbb-2222"), 0o755)
	os.WriteFile(filepath.Join(chats, "bbbbbbbb-2222", "other.jsonl"), []byte(header("other", "subagent")+resp("o1", 5)), 0o600)
	read()
	if sum != 1110 {
		t.Errorf("read %d input tokens, want 1110 (main, subagent, nested subagent)", sum)
	}
}

// Tokens that change for an id (a message first written without them, or
// corrected) count as the last ones: the difference is yielded.
func TestGeminiLastTokensPerID(t *testing.T) {
	st := &geminiState{}
	var total Usage
	sink := &Sink{Response: func(r Response) { total = total.Add(r.Usage).Sub(r.Counted) }}
	for _, line := range []string{
		`{"id":"g","type":"gemini","content":"","model":"gemini-2.5-flash"}`,
		`{"id":"g","type":"gemini","tokens":{"input":10,"output":2,"cached":4,"thoughts":1},"model":"gemini-2.5-flash"}`,
		`{"id":"g","type":"gemini","tokens":{"input":10,"output":2,"cached":4,"thoughts":1},"toolCalls":[],"model":"gemini-2.5-flash"}`,
		`{"id":"g","type":"gemini","tokens":{"input":12,"output":3,"cached":4,"thoughts":1},"model":"gemini-2.5-flash"}`,
		`{"$set":{"messages":[{"id":"g","type":"gemini","tokens":{"input":12,"output":3,"cached":4,"thoughts":1}}]}}`,
	} {
		geminiLine([]byte(line), "f", st, sink)
	}
	if want := (Usage{Input: 8, CacheRead: 4, Output: 4}); total != want {
		t.Errorf("total %+v, want %+v", total, want)
	}
}

func TestGeminiOutputFailed(t *testing.T) {
	for text, want := range map[string]bool{
		"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 7\n</untrusted_context>": true,
		"<untrusted_context>\nOutput: ok\nProcess Group PGID: 7\n</untrusted_context>":                    false,
		"Output: x\nSignal: SIGKILL\nProcess Group PGID: 7":                                               true,
		"Output: the log said\nExit Code: 0":                                                              false,
		"Output: Exit Code: 3 is in this line":                                                            false,
		"":                                                                                                false,
	} {
		if got := geminiOutputFailed(text); got != want {
			t.Errorf("geminiOutputFailed(%q) = %v, want %v", text, got, want)
		}
	}
}

// genGeminiSession writes a random session shaped like Gemini CLI's: each
// response written once or twice, tool calls final or first running,
// snapshots, a resume, rewinds and some subagents.
func genGeminiSession(rng *rand.Rand) session {
	sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", rng.Uint32(), rng.Uint64()&0xffffffffffff)
	main := "chats/session-2026-12-01T10-00-" + sid[:8] + ".jsonl"
	s := session{main: main, files: map[string][]byte{}}
	line := func(v any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	header := func(id, kind string) string {
		return line(map[string]any{"sessionId": id, "projectHash": "ff", "startTime": "2026-12-01T10:00:00.000Z", "lastUpdated": "2026-12-01T10:00:00.000Z", "kind": kind})
	}
	file := func(id, kind string, n int) string {
		var b strings.Builder
		b.WriteString(header(id, kind))
		var msgs []map[string]any
		for i := range n {
			m := map[string]any{"id": fmt.Sprintf("%s-m%d", id, i), "timestamp": "2026-12-01T10:00:01.000Z", "type": "gemini", "content": "x",
				"model":  []string{"gemini-2.5-pro", "gemini-2.5-flash", "gemini-3.8-flash"}[rng.IntN(3)],
				"tokens": map[string]int{"input": 1000 + rng.IntN(1000), "cached": rng.IntN(1000), "output": rng.IntN(500), "thoughts": rng.IntN(300), "tool": rng.IntN(3), "total": 1}}
			b.WriteString(line(map[string]any{"id": fmt.Sprintf("%s-u%d", id, i), "type": "user", "content": []any{map[string]string{"text": "go \"tokens\""}}}))
			b.WriteString(line(m))
			b.WriteString(line(map[string]any{"$set": map[string]string{"lastUpdated": "2026-12-01T10:00:02.000Z"}}))
			call := map[string]any{"id": fmt.Sprintf("%s-c%d", id, i), "name": "run_shell_command", "args": map[string]any{"command": fmt.Sprintf("make %d", rng.IntN(3))}, "status": "executing"}
			if rng.IntN(2) == 0 {
				m2 := maps(m)
				m2["toolCalls"] = []any{call}
				b.WriteString(line(m2))
			}
			done := maps(call)
			done["status"] = []string{"success", "success", "error", "cancelled"}[rng.IntN(4)]
			done["result"] = []any{map[string]any{"functionResponse": map[string]any{"response": map[string]string{"output": fmt.Sprintf("Output: x\nExit Code: %d", rng.IntN(2))}}}}
			m3 := maps(m)
			m3["toolCalls"] = []any{done}
			b.WriteString(line(m3))
			msgs = append(msgs, m3)
			switch rng.IntN(8) {
			case 0:
				b.WriteString(line(map[string]any{"$set": map[string]any{"messages": msgs}}))
			case 1:
				// A legacy .json session converted on resume.
				b.WriteString(header(id, kind))
				for _, m := range msgs {
					b.WriteString(line(m))
				}
			case 4:
				b.WriteString(geminiResumeLines(id, kind, msgs, rng.IntN(2) == 0))
			case 2:
				b.WriteString(line(map[string]string{"$rewindTo": m["id"].(string)}))
			case 3:
				m4 := maps(m3)
				m4["tokens"] = map[string]int{"input": 5000, "cached": 10, "output": 7}
				b.WriteString(line(m4))
			}
		}
		return b.String()
	}
	s.files[main] = []byte(file(sid, "main", 2+rng.IntN(10)))
	if rng.IntN(2) == 0 {
		// A resume's start-up file, from a later minute: not the session's.
		s.files["chats/session-2026-12-01T10-07-"+sid[:8]+".jsonl"] = []byte(geminiResumeLines(sid, "main", nil, true))
	}
	parents := []string{sid}
	for range rng.IntN(4) {
		parent := parents[rng.IntN(len(parents))]
		id := fmt.Sprintf("sub-%d", rng.IntN(1_000_000))
		s.files["chats/"+parent+"/"+id+".jsonl"] = []byte(file(id, "subagent", 1+rng.IntN(5)))
		parents = append(parents, id)
	}
	return s
}

// geminiResumeLines are the lines Gemini CLI 0.61 appends to a session
// file it resumes (seen in e2e TestGeminiResumedUnderCap): with startUp,
// first the new run's start-up header and session context (when the resume
// starts in the file's minute the start-up file has its name), then
// $set.sessionId and a $set.messages snapshot of the whole conversation,
// the responses' content as parts, a user message "<id>_response" after
// each with tool calls.
func geminiResumeLines(id, kind string, msgs []map[string]any, startUp bool) string {
	var b strings.Builder
	line := func(v any) { j, _ := json.Marshal(v); b.Write(j); b.WriteByte('\n') }
	context := map[string]any{"id": "ctx", "type": "user", "content": []any{map[string]string{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}}}
	if startUp {
		line(map[string]any{"sessionId": id, "projectHash": "ff", "startTime": "2026-12-01T10:07:00.000Z", "lastUpdated": "2026-12-01T10:07:00.000Z", "kind": kind})
		line(map[string]any{"$set": map[string]any{"messages": []any{context}, "lastUpdated": "2026-12-01T10:07:00.000Z"}})
	}
	if msgs == nil {
		return b.String()
	}
	line(map[string]any{"$set": map[string]string{"sessionId": id}})
	all := []any{context}
	for _, m := range msgs {
		m := maps(m)
		m["content"] = []any{map[string]string{"text": "x"}}
		all = append(all, m)
		if m["toolCalls"] != nil {
			all = append(all, map[string]any{"id": m["id"].(string) + "_response", "type": "user", "content": []any{map[string]any{"functionResponse": map[string]any{"id": "c"}}}})
		}
	}
	line(map[string]any{"$set": map[string]any{"messages": all, "lastUpdated": "2026-12-01T10:07:00.001Z"}})
	line(map[string]any{"id": id + "-go-on", "type": "user", "content": []any{map[string]string{"text": "go on"}}})
	return b.String()
}

func maps(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Incremental reads equal one full read, for any way the files are cut into
// appends, on the hand-made session and on generated ones.
func TestGeminiIncrementalEqualsFullRead(t *testing.T) {
	sessions := []session{loadSession(t, "testdata/gemini", "chats/"+filepath.Base(geminiMain),
		"chats/a334fe49-e05d-44a8-8199-ab7b67be0f8f/"+filepath.Base(geminiSub))}
	rng := rand.New(rand.NewPCG(13, 13))
	for range 20 {
		sessions = append(sessions, genGeminiSession(rng))
	}
	for i, s := range sessions {
		rng := rand.New(rand.NewPCG(uint64(i), 11))
		for j := range 10 {
			checkIncrementalMoves(t, ReadGemini, s, rng, j%2 == 1)
		}
	}
}

var geminiSeeds = []string{
	`{"sessionId":"a","projectHash":"b","startTime":"2026-11-30T22:58:00.000Z","kind":"main"}`,
	`{"id":"g1","timestamp":"2026-11-30T22:58:02.000Z","type":"gemini","content":"Trying again.","thoughts":[],"tokens":{"input":100000,"output":5000,"cached":60000,"thoughts":2000,"tool":0,"total":107000},"model":"gemini-3.8-flash"}`,
	`{"id":"g1","type":"gemini","tokens":{"input":1,"output":1},"toolCalls":[{"id":"c","name":"run_shell_command","args":{"command":"false"},"result":[{"functionResponse":{"id":"c","name":"run_shell_command","response":{"output":"Output: (empty)\nExit Code: 1"}}}],"status":"success"}]}`,
	`{"id":"g2","type":"gemini","toolCalls":[{"id":"d","name":"x","status":"error","result":[{"functionResponse":{"response":{"error":"Tool execution blocked: runaway: no"}}}]}]}`,
	`{"id":"g5","type":"gemini","toolCalls":[{"id":"e","name":"x","status":"error","result":[{"functionResponse":{"response":{"error":"Agent execution stopped by hook: runaway: cap"}}}]}]}`,
	`{"$set":{"messages":[{"id":"g1","type":"gemini","tokens":{"input":3,"cached":9}}]}}`,
	`{"$rewindTo":"g1"}`,
	`{"id":"g3","type":"gemini","tokens":{"input":-5,"output":1e3,"cached":"x"}}`,
	`{"id":"g4","type":"gemini","tokens":null,"toolCalls":null}`,
}

// FuzzGeminiLine: any line is handled without panicking, never yields
// negative tokens, and reading the same line again changes no total and
// reports no tool call again.
func FuzzGeminiLine(f *testing.F) {
	for _, s := range geminiSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		st := &geminiState{}
		var yielded int
		var total Usage
		sink := &Sink{
			Response: func(r Response) {
				total = total.Add(r.Usage).Sub(r.Counted)
				for _, n := range []int64{r.Usage.Input, r.Usage.Output, r.Usage.CacheRead} {
					if n < 0 {
						t.Errorf("line %q yielded negative tokens: %+v", line, r.Usage)
					}
				}
			},
			ToolResult: func(ToolResult) { yielded++ },
			ToolCall:   func(ToolCall) { yielded++ },
		}
		geminiLine(line, "f", st, sink)
		calls, sum := yielded, total
		geminiLine(line, "f", st, sink)
		if yielded != calls || total != sum {
			t.Errorf("line %q counted again when read twice: %+v then %+v", line, sum, total)
		}
	})
}

// A call stopped with the run (continue: false) is a hook's block too.
func TestGeminiStoppedCallIsBlocked(t *testing.T) {
	var got []ToolResult
	geminiLine([]byte(`{"id":"g","type":"gemini","toolCalls":[{"id":"c","name":"run_shell_command","status":"error","result":[{"functionResponse":{"response":{"error":"Agent execution stopped by hook: runaway: cap"}}}]}]}`),
		"f", &geminiState{}, &Sink{ToolResult: func(r ToolResult) { got = append(got, r) }})
	if len(got) != 1 || !got[0].Failed || got[0].Blocked != "runaway: cap" {
		t.Errorf("got %+v", got)
	}
}

// A resumed session goes on in its file (Gemini CLI 0.61, e2e
// TestGeminiResumedUnderCap): the resume appends a snapshot repeating every
// response (more than geminiRecentMax of them), then its own responses.
// Each is counted once, each tool result reported once, and the resume's start-up file beside it (same session id,
// a later minute, no messages) is not one of the session's files.
func TestGeminiResumeGoesOnInItsFile(t *testing.T) {
	dir := t.TempDir()
	chats := filepath.Join(dir, "chats")
	os.MkdirAll(chats, 0o755)
	sid := "e0e0d10e-8ae7-46c4-86a9-ab4618027a0e"
	main := filepath.Join(chats, "session-2026-12-01T11-33-e0e0d10e.jsonl")
	startUp := filepath.Join(chats, "session-2026-12-01T11-34-e0e0d10e.jsonl")
	header := fmt.Sprintf(`{"sessionId":%q,"projectHash":"19","startTime":"2026-12-01T11:33:29.617Z","lastUpdated":"2026-12-01T11:33:29.617Z","kind":"main"}`+"\n", sid)
	var msgs []map[string]any
	run := func(ids ...string) string {
		var b strings.Builder
		for _, id := range ids {
			m := map[string]any{"id": id, "timestamp": "2026-12-01T11:33:30.644Z", "type": "gemini", "content": "Trying again.", "model": "gemini-3.8-flash",
				"tokens": map[string]int{"input": 100000, "output": 5000, "cached": 60000, "thoughts": 2000, "tool": 0, "total": 107000}}
			j, _ := json.Marshal(m)
			b.Write(j)
			b.WriteString("\n")
			m = maps(m)
			m["toolCalls"] = []any{map[string]any{"id": "call-" + id, "name": "run_shell_command", "args": map[string]string{"command": "echo " + id}, "status": "success",
				"result": []any{map[string]any{"functionResponse": map[string]any{"response": map[string]string{"output": "Output: " + id}}}}}}
			j, _ = json.Marshal(m)
			b.Write(j)
			b.WriteString("\n")
			msgs = append(msgs, m)
		}
		return b.String()
	}
	var first []string
	for i := range geminiRecentMax + 2 {
		first = append(first, fmt.Sprintf("g%d", i+1))
	}
	os.WriteFile(main, []byte(header+run(first...)), 0o600)
	var pos Position
	var total Usage
	var results []string
	sink := Sink{
		Response:   func(r Response) { total = total.Add(r.Usage).Sub(r.Counted) },
		ToolResult: func(r ToolResult) { results = append(results, r.ToolUseID) },
	}
	read := func() {
		t.Helper()
		if _, err := ReadGemini(context.Background(), main, &pos, sink); err != nil {
			t.Fatal(err)
		}
	}
	read()
	os.WriteFile(startUp, []byte(geminiResumeLines(sid, "main", nil, true)), 0o600)
	f, _ := os.OpenFile(main, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(geminiResumeLines(sid, "main", msgs, false) + run("r1", "r2"))
	f.Close()
	read()
	n := int64(len(first) + 2)
	if want := (Usage{Input: n * 40000, CacheRead: n * 60000, Output: n * 7000}); total != want {
		t.Errorf("total %+v, want %d responses' %+v", total, n, want)
	}
	var want []string
	for _, id := range append(first, "r1", "r2") {
		want = append(want, "call-"+id)
	}
	if !slices.Equal(results, want) {
		t.Errorf("tool results %q, want %q", results, want)
	}
	if full := readAll(t, ReadGemini, main); tokensOnly(full.Usage) != total || int64(full.Responses) != n {
		t.Errorf("a full read: %+v in %d responses, the incremental one %+v", full.Usage, full.Responses, total)
	}
	if files, _ := geminiFormat.SessionFiles(main); len(files) != 1 {
		t.Errorf("session files %q, want only the resumed file", files)
	}
}

// A Gemini CLI prompt is a user message that is no tool's result, yielded
// once, in file order among the responses, however the file is cut.
func TestGeminiPrompts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session-2026-11-30T12-00-ab.jsonl")
	lines := []string{
		`{"sessionId":"ab","projectHash":"p","kind":"main"}`,
		`{"id":"u1","timestamp":"2026-11-30T12:00:00Z","type":"user","content":[{"text":"first"}]}`,
		`{"id":"g1","timestamp":"2026-11-30T12:00:01Z","type":"gemini","content":"","tokens":{"input":10},"model":"m","toolCalls":[{"id":"c1","name":"x","args":{"type":"user"},"status":"success"}]}`,
		`{"id":"u2","timestamp":"2026-11-30T12:00:02Z","type":"user","content":[{"functionResponse":{"id":"c1","name":"x","response":{"output":"ok"}}}]}`,
		`{"id":"u3","timestamp":"2026-11-30T12:00:03Z","type":"user","content":[{"text":"second"}]}`,
		`{"id":"u3","timestamp":"2026-11-30T12:00:03Z","type":"user","content":[{"text":"second"}]}`,
		`{"id":"g2","timestamp":"2026-11-30T12:00:04Z","type":"gemini","content":"","tokens":{"input":20},"model":"m"}`,
	}
	var got []string
	sink := Sink{
		Prompt:   func(p Prompt) { got = append(got, "prompt "+p.ID) },
		Response: func(r Response) { got = append(got, fmt.Sprintf("response %s %d", r.MessageID, r.Usage.Input)) },
	}
	var pos Position
	for _, l := range lines {
		f, _ := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		f.WriteString(l + "\n")
		f.Close()
		if _, err := ReadGemini(t.Context(), path, &pos, sink); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"prompt u1", "response g1 10", "prompt u3", "response g2 20"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
