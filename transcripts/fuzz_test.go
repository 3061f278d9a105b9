package transcripts

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

var claudeSeeds = []string{
	`{"type":"assistant","requestId":"req_1","timestamp":"2026-11-30T10:00:00Z","message":{"id":"msg_1","model":"claude-opus-4-5-20251101","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls \"x\""}}],"usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":7,"cache_read_input_tokens":3,"cache_creation":{"ephemeral_5m_input_tokens":2,"ephemeral_1h_input_tokens":5},"server_tool_use":{"web_search_requests":1},"speed":"fast","inference_geo":"us"}}}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"Exit code 1"}]}}`,
	`{"type":"user","message":{"role":"user","content":"plain \\" text with \"type\":\"assistant\" inside"}}`,
	`{"type": "assistant", "message": {"id": "m", "usage": {"input_tokens": 1e3, "output_tokens": null}}}`,
	`{"type":"assistant","message":{"id":"m","usage":[]}}`,
	`{"type":"assistant"`,
	`{"type":"assistant","message":{"id":"m\u0041","model":"<synthetic>","usage":{"input_tokens":1}}}`,
	``,
}

// FuzzClaudeLine: any line is handled without panicking, and where the line
// is valid JSON the usage found equals what encoding/json decodes.
func FuzzClaudeLine(f *testing.F) {
	for _, s := range claudeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got []Usage
		fp := &FilePos{}
		claudeLine(line, "f", fp, &Sink{
			Response:   func(r Response) { got = append(got, r.Usage) },
			ToolResult: func(ToolResult) {},
			ToolCall:   func(ToolCall) {},
		})
		// Decoded with maps: encoding/json matches struct fields without
		// regard to case, Claude Code's keys are exact.
		obj := func(b []byte) map[string]json.RawMessage {
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) != nil {
				return nil
			}
			return m
		}
		top := obj(line)
		msg := obj(top["message"])
		usage := obj(msg["usage"])
		var typ, model string
		json.Unmarshal(top["type"], &typ)
		json.Unmarshal(msg["model"], &model)
		// A line that starts with one of the types that carry no usage is
		// passed over after its first bytes (a later duplicate "type" key
		// does not count).
		for _, t := range skipTypes {
			if strings.HasPrefix(string(line), `{"type":"`+t+`"`) {
				return
			}
		}
		if typ != "assistant" || usage == nil || model == "<synthetic>" {
			return
		}
		var in, out int64
		if usage["input_tokens"] != nil && json.Unmarshal(usage["input_tokens"], &in) != nil {
			return
		}
		if usage["output_tokens"] != nil && json.Unmarshal(usage["output_tokens"], &out) != nil {
			return
		}
		if len(got) != 1 || got[0].Input != in || got[0].Output != out {
			t.Errorf("line %q: got %+v, want input %d output %d", line, got, in, out)
		}
	})
}

// FuzzCodexLine: any line is handled without panicking, and the counted
// usage never goes down.
func FuzzCodexLine(f *testing.F) {
	f.Add([]byte(`{"timestamp":"2026-07-23T00:14:05.333Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":17011,"cached_input_tokens":11008,"output_tokens":118,"total_tokens":17129}}}}`))
	f.Add([]byte(`{"timestamp":"2026-11-30T22:43:24.100Z","type":"session_meta","payload":{"id":"a","forked_from_id":"b"}}`))
	f.Add([]byte(`{"type":"token_usage_record","payload":{"response_id":"r","thread_token_usage":{"input_tokens":5,"output_tokens":1}}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Process exited with code 2\n"}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","call_id":"c","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"}}`))
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c","status":"failed","exit_code":1}}}`))
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":null}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		st := &codexState{Counted: codexCum{In: 10, Out: 10}}
		before := st.Counted.total()
		codexLine(line, "f", &FilePos{Codex: st}, &Sink{
			Response: func(r Response) {
				if r.Usage.Total() <= 0 {
					t.Errorf("line %q yielded a response with no tokens: %+v", line, r.Usage)
				}
			},
			ToolResult: func(ToolResult) {},
			ToolCall:   func(ToolCall) {},
		})
		if st.Counted.total() < before {
			t.Errorf("line %q moved the counted total back", line)
		}
	})
}

// FuzzCodexResponsesOnly: a read for responses only (a report) yields from
// any run of lines what a full read yields, and leaves the thread's model,
// tier, count and replay state where the full read does.
func FuzzCodexResponsesOnly(f *testing.F) {
	meta := `{"timestamp":"2026-11-30T10:00:00.000Z","type":"session_meta","payload":{"id":"a","forked_from_id":"b","timestamp":"2026-11-30T10:00:00.000Z"}}`
	f.Add([]byte(`{"timestamp":"2026-07-23T00:14:05.333Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":17011,"cached_input_tokens":11008,"output_tokens":118,"total_tokens":17129}}}}`))
	f.Add([]byte(meta + "\n" + `{"timestamp":"2026-11-30T10:00:00.000Z","type":"token_usage_record","payload":{"response_id":"r","thread_token_usage":{"input_tokens":50,"output_tokens":1}}}` + "\n" +
		`{"timestamp":"2026-11-30T10:00:09.000Z","type":"token_usage_record","payload":{"response_id":"s","thread_token_usage":{"input_tokens":70,"cache_write_input_tokens":3,"output_tokens":2}}}`))
	f.Add([]byte(`{"timestamp":"2026-11-30T10:00:00.000Z","type":"turn_context","payload":{"model":"gpt-5.5","Model":"gpt-5.4"}}` + "\n" +
		`{"timestamp":"2026-11-30T10:00:01.000Z","type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"service_tier":"fast"}}}` + "\n" +
		`{"timestamp":"2026-11-30T10:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1e3,"output_tokens":9}},"info":{}}}` + "\n" +
		`{"timestamp":"2026-11-30T10:00:03.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":"5","output_tokens":null,"in\u0070ut_tokens":900}}}}`))
	f.Fuzz(func(t *testing.T, lines []byte) {
		for _, line := range bytes.Split(lines, []byte("\n")) {
			if !codexPlainJSON(line) {
				return
			}
		}
		read := func(only bool) ([]Response, codexState) {
			var out []Response
			sink := &Sink{Response: func(r Response) { out = append(out, r) }}
			if !only {
				sink.ToolResult = func(ToolResult) {}
				sink.ToolCall = func(ToolCall) {}
			}
			fp := &FilePos{Codex: &codexState{}}
			for _, line := range bytes.Split(lines, []byte("\n")) {
				codexLine(line, "f", fp, sink)
			}
			st := *fp.Codex
			st.Results = nil
			return out, st
		}
		fullR, fullS := read(false)
		onlyR, onlyS := read(true)
		if !reflect.DeepEqual(fullR, onlyR) || !reflect.DeepEqual(fullS, onlyS) {
			t.Errorf("lines %q:\nresponses-only %+v %+v\nfull           %+v %+v", lines, onlyR, onlyS, fullR, fullS)
		}
	})
}

// codexPlainJSON reports whether line is valid JSON whose keys are written
// as Codex writes them: snake_case, each once in its object. Only on such
// lines does a responses-only read promise what encoding/json would decode
// (which also takes "Payload" for "payload", and merges a key given twice).
func codexPlainJSON(line []byte) bool {
	if !json.Valid(line) {
		return false
	}
	type level struct {
		object, key bool
		seen        map[string]bool
	}
	var stack []*level
	dec := json.NewDecoder(bytes.NewReader(line))
	for {
		tok, err := dec.Token()
		if err != nil {
			return err == io.EOF
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				stack = append(stack, &level{object: d == '{', key: d == '{', seen: map[string]bool{}})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		} else if top != nil && top.object && top.key {
			k := tok.(string)
			if top.seen[k] || strings.Trim(k, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
				return false
			}
			top.seen[k] = true
			top.key = false
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
}

// FuzzWalkObject: on every valid JSON object the walker finds the same
// top-level values encoding/json does.
func FuzzWalkObject(f *testing.F) {
	for _, s := range claudeSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":"x\\\"y","b":[1,{"c":"]"}],"d":{"e":"}"}, "f" : -1.5e3 ,"g":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			return
		}
		got := map[string]json.RawMessage{}
		if err := walkObject(b, func(k, v []byte) bool {
			var key string
			if json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &key) != nil {
				key = string(k)
			}
			got[key] = append(json.RawMessage(nil), v...)
			return true
		}); err != nil {
			t.Fatalf("walkObject(%q): %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("walkObject(%q) found %d keys, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("key %q: walker %q, encoding/json %q", k, got[k], v)
			}
		}
	})
}
