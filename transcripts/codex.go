package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// codexCum is a cumulative token count as Codex writes it (cached input
// inside input, reasoning inside output).
type codexCum struct {
	In     int64 `json:"i,omitempty"`
	Cached int64 `json:"c,omitempty"`
	Write  int64 `json:"w,omitempty"`
	Out    int64 `json:"o,omitempty"`
}

func (c codexCum) total() int64 { return c.In + c.Out }

type codexState struct {
	Model string `json:"m,omitempty"`
	// Tier is the service tier of the latest thread_settings_applied
	// ("priority" for Codex's fast mode, "flex"); empty is standard.
	Tier string `json:"st,omitempty"`
	// Counted is the thread's cumulative usage already yielded.
	Counted codexCum `json:"n,omitempty"`
	// Meta: the file's own session_meta was seen. Replay: still inside the
	// parent history a subagent or fork rollout copies at its head; MetaMs is
	// when the rollout began (Unix ms), to tell replayed lines by time.
	Meta   bool  `json:"s,omitempty"`
	Replay bool  `json:"r,omitempty"`
	MetaMs int64 `json:"t,omitempty"`
	// ReplayMs is the instant the replayed lines carry (the first line's
	// after session_meta): a line stamped later is the child's own.
	ReplayMs int64 `json:"rt,omitempty"`
	// Results holds the call ids whose result was yielded lately: a call can
	// be reported by a structured event and by its output text.
	Results []string `json:"k,omitempty"`
}

// resultsMax bounds codexState.Results.
const resultsMax = 16

// replayBurst is how long after a child rollout began its replayed lines may
// be stamped at most: Codex rewrites the copied history to the fork instant
// and writes it in one go, so the replay ends at the first line stamped
// later than that instant (the child's own, which can come within this
// burst: its first response was lost to it before, issue 23).
// The replayed history holds the parent's task_started events too, so those
// cannot mark the end of the replay; a MultiAgent V2 inter_agent_communication
// line with trigger_turn can.
const replayBurst = time.Second

// codexFormat: Codex lines are {timestamp, type, payload} with Codex's
// line types. Codex names a subagent's own rollout in its hook calls, with
// the root session's id: a session's main file is its root rollout, the
// first one named while it exists.
var codexFormat = Format{
	Agent: agent.Codex, Read: ReadCodex, discover: discoverCodex, AppendOnly: true,
	claims:     func(l *probeLine) bool { return l.Payload != nil && codexLineTypes[l.Type] },
	Main:       CodexRootRollout,
	FirstStays: true,
}

// codexLineTypes are the types of Codex's rollout lines.
var codexLineTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "token_usage_record": true, "world_state": true,
}

// ReadCodex reads what was appended to a Codex session since pos: the
// rollout at rolloutPath (.jsonl or .jsonl.zst) and the rollouts of the
// subagents and forks that share its root session id. See the package doc
// for the contract. more is true when ctx ended the read early.
func ReadCodex(ctx context.Context, rolloutPath string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(rolloutPath)
	if err != nil {
		return false, err
	}
	pos.follow(main, codexReset)
	pos.file(filepath.Base(main))
	discoverCodex(main, pos)
	return readFiles(ctx, pos, sink, codexReset, codexFileLine)
}

// ReadCodexRollout reads what was appended to the one rollout at path since
// pos, without looking for the session's other rollouts: for a caller that
// has listed them itself (a report over every rollout on the machine reads
// each once). A subagent's or fork's rollout yields only its own responses,
// as within ReadCodex.
func ReadCodexRollout(ctx context.Context, path string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	pos.follow(main, codexReset)
	pos.file(filepath.Base(main))
	return readFiles(ctx, pos, sink, codexReset, codexFileLine)
}

// codexReset keeps, for a file read again, the thread's cumulative count,
// so that the usage it counted is not counted again; the rest starts over.
func codexReset(fp *FilePos) {
	if fp.Codex != nil {
		fp.Codex = &codexState{Model: fp.Codex.Model, Tier: fp.Codex.Tier, Counted: fp.Codex.Counted, Results: fp.Codex.Results}
	}
}

func codexFileLine(line []byte, file string, fp *FilePos, sink *Sink) {
	if fp.Codex == nil {
		fp.Codex = &codexState{}
	}
	codexLine(line, file, fp, sink)
}

// codexTags are the byte strings of the lines a Codex reader looks at; any
// other line is passed over without decoding.
var codexTags = [][]byte{
	[]byte(`"token_count"`), []byte(`"token_usage_record"`), []byte(`"turn_context"`),
	[]byte(`"session_meta"`), []byte(`"item_completed"`), []byte(`"exec_command_end"`),
	[]byte(`"patch_apply_end"`), []byte(`"function_call`), []byte(`"custom_tool_call`),
	[]byte(`"inter_agent_communication`), []byte(`"thread_settings_applied"`),
}

// codexUsageLine reports whether a line can matter to a read that wants
// responses only (no tool results or calls, as a report): its type, and an
// event's payload type, are read from the line's first fields (Codex writes
// timestamp, type, then payload), so that the big lines of tool output,
// reasoning and messages are passed over after a few bytes.
func codexUsageLine(line []byte) bool {
	var top string
	payload := -1
	_, err := walkFields(line, 0, func(k []byte, v int) (int, error) {
		switch string(k) {
		case "type":
			val, end, err := span(line, v)
			top = str(val)
			if err == nil && top != "event_msg" {
				return 0, errStop // the line's kind is known
			}
			if err == nil && payload >= 0 {
				return 0, errStop // and its payload was passed already
			}
			return end, err
		case "payload":
			payload = v
			if top == "event_msg" {
				return 0, errStop
			}
		}
		return skipValue(line, v)
	})
	if err != nil && err != errStop {
		return false // not JSON: the full reading would pass it over too
	}
	switch top {
	case "event_msg":
		if payload < 0 || line[payload] != '{' {
			return false
		}
		inner := ""
		walkFields(line, payload, func(k []byte, v int) (int, error) {
			if string(k) != "type" {
				return skipValue(line, v)
			}
			val, _, err := span(line, v)
			if err == nil {
				inner = str(val)
			}
			return 0, errStop
		})
		return inner == "token_count" || inner == "thread_settings_applied"
	case "response_item", "compacted", "world_state":
		return false
	}
	return true
}

// codexUsageFast decodes, for a read of responses only, the lines that
// carry usage or what prices it (token_count, token_usage_record,
// turn_context, thread_settings_applied, session_meta) with the walker: they are most of
// the lines such a read decodes, and encoding/json spent more on them than
// reading the whole rollout did. It decodes what encoding/json would into l
// and p, and reports false, leaving the line to encoding/json, for any other
// line and anything unusual: a line cut short, a key written in another
// case or with escapes (encoding/json matches those too), a key given
// twice, a value of another type. (Like the other readers' walks it does
// not check the JSON of the values it skips.)
func codexUsageFast(line []byte, l *codexLineJSON, p *codexPayload) bool {
	var seen uint32
	once := func(bit uint32) bool {
		dup := seen&bit != 0
		seen |= bit
		return !dup
	}
	ok := true
	walk := func(b []byte, fn func(k, v []byte) bool) {
		if walkObject(b, fn) != nil {
			ok = false // cut short or broken: encoding/json drops the line
		}
	}
	// field reads a wanted key's value; any other key that encoding/json
	// could take for a wanted one sends the line to it.
	field := func(k []byte, wanted ...string) int {
		for i, w := range wanted {
			if string(k) == w {
				return i
			}
		}
		if bytes.IndexByte(k, '\\') >= 0 {
			ok = false
			return -1
		}
		for _, w := range wanted {
			if strings.EqualFold(string(k), w) {
				ok = false
			}
		}
		return -1
	}
	text := func(v []byte, dst *string) {
		switch {
		case string(v) == "null":
		case len(v) > 0 && v[0] == '"':
			*dst = str(v)
		default:
			ok = false
		}
	}
	integer := func(v []byte, dst *int64) {
		if string(v) == "null" {
			return
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			ok = false // a fraction, a string, too large: as encoding/json says
			return
		}
		*dst = n
	}
	usage := func(v []byte) *codexUsageJSON {
		if string(v) == "null" {
			return nil
		}
		if v[0] != '{' {
			ok = false
			return nil
		}
		u := &codexUsageJSON{}
		var useen uint32
		walk(v, func(k, v []byte) bool {
			i := field(k, "input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
			if i < 0 {
				return ok
			}
			if useen&(1<<i) != 0 {
				ok = false
			}
			useen |= 1 << i
			integer(v, []*int64{&u.InputTokens, &u.CachedInputTokens, &u.CacheWriteInputTokens, &u.OutputTokens}[i])
			return ok
		})
		return u
	}
	var payload []byte
	walk(line, func(k, v []byte) bool {
		switch field(k, "timestamp", "type", "payload") {
		case 0:
			ok = ok && once(1)
			text(v, &l.Timestamp)
		case 1:
			ok = ok && once(2)
			text(v, &l.Type)
		case 2:
			ok = ok && once(4)
			payload = v
		}
		return ok
	})
	if !ok || payload == nil || payload[0] != '{' {
		return false
	}
	switch l.Type {
	case "token_usage_record", "turn_context", "event_msg", "session_meta":
	default:
		return false
	}
	walk(payload, func(k, v []byte) bool {
		i := field(k, "type", "model", "thread_settings", "info", "response_id", "thread_token_usage",
			"id", "session_id", "forked_from_id", "cwd", "timestamp", "source")
		switch i {
		case 0:
			ok = ok && once(1<<3)
			text(v, &p.Type)
		case 1:
			ok = ok && once(1<<4)
			text(v, &p.Model)
		case 2:
			ok = ok && once(1<<5)
			switch {
			case string(v) == "null":
			case v[0] != '{':
				ok = false
			default:
				p.ThreadSettings = &struct {
					ServiceTier string `json:"service_tier"`
				}{}
				walk(v, func(k, v []byte) bool {
					if field(k, "service_tier") == 0 {
						ok = ok && once(1<<6)
						text(v, &p.ThreadSettings.ServiceTier)
					}
					return ok
				})
			}
		case 3:
			ok = ok && once(1<<7)
			switch {
			case string(v) == "null":
			case v[0] != '{':
				ok = false
			default:
				p.Info = &struct {
					Total *codexUsageJSON `json:"total_token_usage"`
				}{}
				walk(v, func(k, v []byte) bool {
					if field(k, "total_token_usage") == 0 {
						ok = ok && once(1<<8)
						p.Info.Total = usage(v)
					}
					return ok
				})
			}
		case 4:
			ok = ok && once(1<<9)
			text(v, &p.ResponseID)
		case 5:
			ok = ok && once(1<<10)
			p.ThreadUsage = usage(v)
		case 6, 7, 8, 9, 10:
			ok = ok && once(1<<(11+i))
			text(v, []*string{&p.ID, &p.SessionID, &p.ForkedFromID, &p.Cwd, &p.Timestamp}[i-6])
		case 11:
			ok = ok && once(1<<16)
			p.Source = json.RawMessage(v)
		default:
			// Another field of the payload, given in a form encoding/json
			// would decode (and fail on, where its type is not the one
			// expected): for it to decide.
			for _, f := range codexOtherFields {
				if strings.EqualFold(string(k), f) {
					ok = false
				}
			}
		}
		return ok
	})
	return ok && (l.Type != "event_msg" || p.Type == "token_count" || p.Type == "thread_settings_applied")
}

// codexOtherFields are codexPayload's other fields, which codexUsageFast
// does not read.
var codexOtherFields = []string{"call_id", "exit_code", "status", "success", "item", "output", "name", "arguments", "input", "trigger_turn"}

type codexLineJSON struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexUsageJSON struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
}

func (u *codexUsageJSON) cum() codexCum {
	return codexCum{In: u.InputTokens, Cached: u.CachedInputTokens, Write: u.CacheWriteInputTokens, Out: u.OutputTokens}
}

type codexPayload struct {
	Type string `json:"type"`
	// session_meta
	ID           string          `json:"id"`
	SessionID    string          `json:"session_id"`
	ForkedFromID string          `json:"forked_from_id"`
	Cwd          string          `json:"cwd"`
	Timestamp    string          `json:"timestamp"`
	Source       json.RawMessage `json:"source"`
	// turn_context
	Model string `json:"model"`
	// thread_settings_applied: the tier the thread asks for. Codex 0.169
	// and 0.171 write service_tier "priority" for `service_tier = "fast"`
	// (and send "priority" to the API), "flex" for flex, and leave it out
	// for standard.
	ThreadSettings *struct {
		ServiceTier string `json:"service_tier"`
	} `json:"thread_settings"`
	// token_count
	Info *struct {
		Total *codexUsageJSON `json:"total_token_usage"`
	} `json:"info"`
	// token_usage_record
	ResponseID  string          `json:"response_id"`
	ThreadUsage *codexUsageJSON `json:"thread_token_usage"`
	// tool results
	CallID   string `json:"call_id"`
	ExitCode *int64 `json:"exit_code"`
	Status   string `json:"status"`
	Success  *bool  `json:"success"`
	Item     *struct {
		Type     string `json:"type"`
		ID       string `json:"id"`
		Status   string `json:"status"`
		ExitCode *int64 `json:"exit_code"`
	} `json:"item"`
	Output json.RawMessage `json:"output"`
	// tool calls
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Input     string `json:"input"`
	// inter_agent_communication
	TriggerTurn bool `json:"trigger_turn"`
}

// codexLine handles one rollout line.
func codexLine(line []byte, file string, fp *FilePos, sink *Sink) {
	st := fp.Codex
	if sink.ToolResult == nil && sink.ToolCall == nil && !codexUsageLine(line) {
		return
	}
	var l codexLineJSON
	var p codexPayload
	if sink.ToolResult != nil || sink.ToolCall != nil || !codexUsageFast(line, &l, &p) {
		hit := false
		for _, tag := range codexTags {
			if bytes.Contains(line, tag) {
				hit = true
				break
			}
		}
		if !hit {
			return
		}
		if json.Unmarshal(line, &l) != nil {
			return
		}
		if err := json.Unmarshal(l.Payload, &p); err != nil {
			// A field of another type than expected (a newer version's shape)
			// leaves the others decoded; only broken JSON drops the line.
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) {
				return
			}
		}
	}
	t, _ := time.Parse(time.RFC3339Nano, l.Timestamp)

	if l.Type == "session_meta" {
		if !st.Meta {
			st.Meta = true
			if codexParent(&p) != "" {
				st.Replay = true
				meta := t
				if pt, err := time.Parse(time.RFC3339Nano, p.Timestamp); err == nil && pt.After(meta) {
					meta = pt
				}
				st.MetaMs = meta.UnixMilli()
			}
		}
		return
	}
	if st.Replay {
		if st.ReplayMs == 0 && !t.IsZero() {
			st.ReplayMs = t.UnixMilli()
		}
		switch {
		case (l.Type == "inter_agent_communication" || l.Type == "inter_agent_communication_metadata") && p.TriggerTurn,
			!t.IsZero() && t.UnixMilli() > st.ReplayMs,
			!t.IsZero() && t.UnixMilli() > st.MetaMs+replayBurst.Milliseconds():
			st.Replay = false
		}
	}

	switch l.Type {
	case "turn_context":
		if p.Model != "" {
			st.Model = p.Model
		}
	case "token_usage_record":
		if p.ThreadUsage != nil {
			codexUsage(p.ThreadUsage.cum(), p.ResponseID, t, file, st, sink)
		}
	case "event_msg":
		switch p.Type {
		case "thread_settings_applied":
			if p.ThreadSettings != nil {
				switch t := p.ThreadSettings.ServiceTier; t {
				case "", "default", "standard", "auto":
					st.Tier = ""
				case "fast":
					st.Tier = "priority"
				default:
					st.Tier = t
				}
			}
		case "token_count":
			if p.Info != nil && p.Info.Total != nil {
				codexUsage(p.Info.Total.cum(), "", t, file, st, sink)
			}
		case "exec_command_end":
			codexResult(p.CallID, p.Status == "failed" || (p.ExitCode != nil && *p.ExitCode != 0), t, file, fp, sink)
		case "patch_apply_end":
			codexResult(p.CallID, p.Success != nil && !*p.Success, t, file, fp, sink)
		case "item_completed":
			if p.Item != nil && p.Item.Type == "CommandExecution" {
				codexResult(p.Item.ID, p.Item.Status == "failed" || (p.Item.ExitCode != nil && *p.Item.ExitCode != 0), t, file, fp, sink)
			}
		}
	case "response_item":
		switch p.Type {
		case "function_call_output", "custom_tool_call_output":
			if failed, ok := outputOutcome(p.Output); ok {
				codexResult(p.CallID, failed, t, file, fp, sink)
			}
		case "function_call":
			if sink.ToolCall != nil && !st.Replay {
				in := json.RawMessage(p.Arguments)
				if !json.Valid(in) {
					in, _ = json.Marshal(p.Arguments)
				}
				sink.ToolCall(ToolCall{File: file, ID: p.CallID, Name: p.Name, Input: in, Time: t})
			}
		case "custom_tool_call":
			if sink.ToolCall != nil && !st.Replay {
				in, _ := json.Marshal(p.Input)
				sink.ToolCall(ToolCall{File: file, ID: p.CallID, Name: p.Name, Input: in, Time: t})
			}
		}
	}
}

// codexParent is the thread a rollout was forked or spawned from, if any.
func codexParent(p *codexPayload) string {
	if p.ForkedFromID != "" {
		return p.ForkedFromID
	}
	var src struct {
		Subagent struct {
			ThreadSpawn struct {
				ParentThreadID string `json:"parent_thread_id"`
			} `json:"thread_spawn"`
		} `json:"subagent"`
	}
	if len(p.Source) > 0 && p.Source[0] == '{' && json.Unmarshal(p.Source, &src) == nil {
		return src.Subagent.ThreadSpawn.ParentThreadID
	}
	return ""
}

// codexUsage yields the growth of the thread's cumulative usage. Lines whose
// total did not grow (a token_count lagging behind the token_usage_record,
// or re-emitted unchanged) yield nothing; lines of a replayed parent history
// only move the baseline, since the child's counter starts from the
// parent's total.
func codexUsage(c codexCum, respID string, t time.Time, file string, st *codexState, sink *Sink) {
	if c.total() <= st.Counted.total() {
		return
	}
	d := codexCum{In: c.In - st.Counted.In, Cached: c.Cached - st.Counted.Cached, Write: c.Write - st.Counted.Write, Out: c.Out - st.Counted.Out}
	st.Counted = c
	if st.Replay {
		return
	}
	sink.response(Response{
		File: file, MessageID: respID, Model: st.Model, Time: t,
		Usage: Usage{Input: d.In - d.Cached - d.Write, CacheRead: d.Cached, CacheCreation: d.Write, Output: d.Out, Tier: st.Tier},
	})
}

func codexResult(callID string, failed bool, t time.Time, file string, fp *FilePos, sink *Sink) {
	st := fp.Codex
	if callID == "" || st.Replay {
		return
	}
	for _, id := range st.Results {
		if id == callID {
			return
		}
	}
	if !fp.firstTime(sink, recordKey(fp.Path, "result", callID)) {
		return
	}
	if len(st.Results) == resultsMax {
		copy(st.Results, st.Results[1:])
		st.Results = st.Results[:resultsMax-1]
	}
	st.Results = append(st.Results, callID)
	sink.toolResult(ToolResult{File: file, ToolUseID: callID, Failed: failed, Time: t})
}

// exitedRe finds the exit code in a command's output. It compiles on first
// use, not at every start of the hook.
var exitedRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:) (-?\d+)`)
})

// outputOutcome reads a call's outcome from its output when the output says
// it: older versions wrote JSON with metadata.exit_code, newer ones text with
// "Process exited with code N"; a call a hook blocked failed. An output of a
// command still running says nothing.
func outputOutcome(raw json.RawMessage) (failed, ok bool) {
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return false, false
	}
	if strings.HasPrefix(text, "Command blocked by PreToolUse hook") {
		return true, true
	}
	var structured struct {
		Metadata *struct {
			ExitCode *int64 `json:"exit_code"`
		} `json:"metadata"`
	}
	if len(text) > 0 && text[0] == '{' && json.Unmarshal([]byte(text), &structured) == nil &&
		structured.Metadata != nil && structured.Metadata.ExitCode != nil {
		return *structured.Metadata.ExitCode != 0, true
	}
	head := text
	if len(head) > 512 {
		head = head[:512]
	}
	if m := exitedRe().FindStringSubmatch(head); m != nil {
		code, _ := strconv.Atoi(m[1])
		return code != 0, true
	}
	return false, false
}
