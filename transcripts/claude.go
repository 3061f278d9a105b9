package transcripts

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// recentMax is how many responses per Claude file are remembered for the
// largest-usage rule. One response's lines are written next to each other,
// so a handful is plenty.
const recentMax = 4

type claudeState struct {
	Recent []recentResponse `json:"r,omitempty"`
	// Model is the latest response's model (a compaction is priced at it).
	Model string `json:"m,omitempty"`
}

type recentResponse struct {
	Key   string `json:"k"`
	Usage Usage  `json:"u"`
}

// claudeFormat: a Claude Code transcript's lines carry sessionId (or a
// uuid), or are its summary records; a subagent's file is agent-*.jsonl.
var claudeFormat = Format{
	Agent: agent.Claude, Read: ReadClaude, discover: discoverClaude, AppendOnly: true,
	claims: func(l *probeLine) bool {
		return l.SessionID != "" || l.UUID != "" || (l.Type == "summary" && l.Summary != nil) || claudeOnlyTypes[l.Type]
	},
	Subagent: func(path string) bool { return strings.HasPrefix(filepath.Base(path), "agent-") },
}

// claudeOnlyTypes are Claude Code record types that carry no session id; a
// session that is nothing but file snapshots so far is still Claude Code's.
var claudeOnlyTypes = map[string]bool{"file-history-snapshot": true, "queue-operation": true}

// ReadClaude reads what was appended to a Claude Code session since pos:
// the main transcript at transcriptPath and the session's subagent files.
// See the package doc for the contract. more is true when ctx ended the read
// early.
func ReadClaude(ctx context.Context, transcriptPath string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(transcriptPath)
	if err != nil {
		return false, err
	}
	pos.follow(main, func(*FilePos) {})
	pos.file(filepath.Base(main))
	discoverClaude(main, pos)
	// A file read again keeps what it counted: see FilePos.Counted.
	return readFiles(ctx, pos, sink, func(*FilePos) {}, claudeLine)
}

// discoverClaude adds the session's subagent files to pos: every
// agent-*.jsonl under <session>/subagents (nested folders too), and the older
// layout's agent-*.jsonl beside the main file whose lines carry the
// session's id. The project folder is searched again only when it changed.
func discoverClaude(main string, pos *Position) {
	dir := filepath.Dir(main)
	session := strings.TrimSuffix(filepath.Base(main), ".jsonl")
	var found []string
	_ = filepath.WalkDir(filepath.Join(dir, session, "subagents"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && isAgentFile(d.Name()) {
			found = append(found, p)
		}
		return nil
	})
	if fi, err := os.Stat(dir); err == nil && fi.ModTime().UnixNano() != pos.ScanMtime {
		pos.ScanMtime = fi.ModTime().UnixNano()
		entries, _ := os.ReadDir(dir)
		needle := []byte(`"sessionId":"` + session + `"`)
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if !e.Type().IsRegular() || !isAgentFile(e.Name()) || p == main || pos.has(pos.relPath(p)) {
				continue
			}
			switch has, complete := firstLineHas(p, needle); {
			case has:
				found = append(found, p)
			case !complete:
				// Created before its first line was written: the folder
				// will not change when the line comes, so look again.
				pos.ScanMtime = 0
			}
		}
	}
	sort.Strings(found)
	for _, p := range found {
		pos.file(pos.relPath(p))
	}
}

func isAgentFile(name string) bool {
	return strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl")
}

func (p *Position) has(rel string) bool {
	for _, f := range p.Files {
		if f.Path == rel {
			return true
		}
	}
	return false
}

// firstLineHas reports whether the first line of the file (up to 64 KiB)
// contains needle, and whether that line is complete (written up to its
// newline, or longer than looked at).
func firstLineHas(path string, needle []byte) (has, complete bool) {
	f, _, err := ownfiles.OpenRegularInfo(path, os.O_RDONLY, 0)
	if err != nil {
		return false, true
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	return bytes.Contains(line, needle), err == nil || errors.Is(err, bufio.ErrBufferFull)
}

// skipTypes are line types that never carry usage or tool results. Claude
// Code writes "type" first on these lines, so they are passed over after a
// look at their first bytes; other lines are walked once. ("system" is not
// among them: a compaction's boundary is a system line.)
var skipTypes = []string{"file-history-snapshot", "progress", "summary", "queue-operation",
	"attachment", "api-request-blob", "api-request", "api-request-shape", "cost-state", "last-prompt", "tools-used"}

var typePrefix = []byte(`{"type":"`)

// claudeBlock is what a content block says, as far as a reader cares.
type claudeBlock struct {
	typ, id, toolUseID, name, input []byte
	isError                         bool
}

// claudeLine handles one line of a Claude Code transcript in one pass: the
// fields it needs are picked out while walking, everything else (message
// text, thinking, tool output) is skipped at memchr speed. The one walk is
// the whole cost of a line: a search of the line for a key first ("usage")
// costs more than the walk, since the strings the walk skips with memchr a
// substring search goes through byte by byte.
func claudeLine(line []byte, file string, fp *FilePos, sink *Sink) {
	if bytes.HasPrefix(line, typePrefix) {
		rest := line[len(typePrefix):]
		for _, t := range skipTypes {
			if len(rest) > len(t) && rest[len(t)] == '"' && string(rest[:len(t)]) == t {
				return
			}
		}
	}
	var typ, subtype, reqID, ts, uuid, compact, id, model, usage, decision []byte
	var blocksBuf [4]claudeBlock
	blocks := blocksBuf[:0]
	wantBlocks := sink.ToolCall != nil || sink.ToolResult != nil
	block := func(e int) (int, error) {
		if line[e] != '{' {
			return skipValue(line, e)
		}
		var bl claudeBlock
		end, err := walkFields(line, e, func(k []byte, v int) (int, error) {
			var val []byte
			var end int
			var err error
			switch string(k) {
			case "type", "id", "tool_use_id", "name", "is_error":
				val, end, err = span(line, v)
				switch string(k) {
				case "type":
					bl.typ = val
				case "id":
					bl.id = val
				case "tool_use_id":
					bl.toolUseID = val
				case "name":
					bl.name = val
				case "is_error":
					bl.isError = isTrue(val)
				}
				return end, err
			case "input":
				if sink.ToolCall != nil {
					bl.input, end, err = span(line, v)
					return end, err
				}
			}
			return skipValue(line, v)
		})
		if err == nil && (str(bl.typ) == "tool_use" || str(bl.typ) == "tool_result") {
			blocks = append(blocks, bl)
		}
		return end, err
	}
	message := func(k []byte, v int) (int, error) {
		var end int
		var err error
		switch string(k) {
		case "id":
			id, end, err = span(line, v)
		case "model":
			model, end, err = span(line, v)
		case "usage":
			usage, end, err = span(line, v)
		case "content":
			if wantBlocks && line[v] == '[' {
				return walkElems(line, v, block)
			}
			return skipValue(line, v)
		default:
			return skipValue(line, v)
		}
		return end, err
	}
	_, err := walkFields(line, 0, func(k []byte, v int) (int, error) {
		var end int
		var err error
		switch string(k) {
		case "type":
			typ, end, err = span(line, v)
		case "requestId":
			reqID, end, err = span(line, v)
		case "timestamp":
			ts, end, err = span(line, v)
		case "subtype":
			subtype, end, err = span(line, v)
		case "uuid":
			uuid, end, err = span(line, v)
		case "compactMetadata":
			compact, end, err = span(line, v)
		case "permissionDecision":
			// {"decision": "accept"|"reject", "source": …} on a tool result's
			// user line (Claude Code 2.1.3xx): whether the call ran.
			if sink.ToolResult == nil || line[v] != '{' {
				return skipValue(line, v)
			}
			return walkFields(line, v, func(k []byte, v int) (int, error) {
				if string(k) != "decision" {
					return skipValue(line, v)
				}
				var end int
				var err error
				decision, end, err = span(line, v)
				return end, err
			})
		case "message":
			if line[v] == '{' {
				return walkFields(line, v, message)
			}
			return skipValue(line, v)
		default:
			return skipValue(line, v)
		}
		return end, err
	})
	if err != nil {
		return
	}
	switch str(typ) {
	case "system":
		if sink.Response != nil && str(subtype) == "compact_boundary" && len(compact) > 0 && compact[0] == '{' {
			claudeCompaction(compact, uuid, ts, file, fp, sink)
		}
	case "assistant":
		m := str(model)
		if m == "<synthetic>" {
			return
		}
		t := parseTime(ts)
		if m != "" {
			if fp.Claude == nil {
				fp.Claude = &claudeState{}
			}
			fp.Claude.Model = m
		}
		if len(usage) > 0 && usage[0] == '{' && sink.Response != nil {
			if u, ok := claudeUsage(usage); ok {
				claudeCount(Response{File: file, MessageID: str(id), RequestID: str(reqID), Model: m, Time: t, Usage: u}, fp, sink)
			}
		}
		if sink.ToolCall != nil {
			for _, bl := range blocks {
				if str(bl.typ) == "tool_use" {
					sink.ToolCall(ToolCall{File: file, ID: str(bl.id), Name: str(bl.name), Input: bytes.Clone(bl.input), Time: t})
				}
			}
		}
	case "user":
		if sink.ToolResult != nil {
			t := parseTime(ts)
			for _, bl := range blocks {
				if str(bl.typ) == "tool_result" && (len(bl.toolUseID) == 0 || fp.firstTime(sink, recordKey(fp.Path, "result", str(bl.toolUseID)))) {
					sink.ToolResult(ToolResult{File: file, ToolUseID: str(bl.toolUseID), Failed: bl.isError, Refused: str(decision) == "reject", Time: t})
				}
			}
		}
	}
}

// claudeCompaction counts the request of a compaction, which Claude Code
// 2.1.328 writes no assistant line for (seen in e2e: only a system
// compact_boundary line with compactMetadata). Its usage is estimated from
// the context's size: preTokens as input, priced uncached (a warm cache
// makes the real request cheaper), postTokens (the summary and what was
// kept) as output, at the file's latest model.
func claudeCompaction(meta, uuid, ts []byte, file string, fp *FilePos, sink *Sink) {
	var u Usage
	_ = walkObject(meta, func(k, v []byte) bool {
		switch string(k) {
		case "preTokens":
			u.Input = num(v)
		case "postTokens":
			u.Output = num(v)
		}
		return true
	})
	if u.Total() <= 0 || !fp.firstTime(sink, recordKey(fp.Path, "compact", str(uuid), str(ts))) {
		return
	}
	model := ""
	if fp.Claude != nil {
		model = fp.Claude.Model
	}
	sink.response(Response{File: file, MessageID: "compact:" + str(uuid), Model: model, Time: parseTime(ts), Usage: u, Estimated: true})
}

// claudeCount applies the largest-usage rule: a response already seen is
// yielded again only when this line's usage is larger, with Counted set to
// what was yielded before. A file read again after it was replaced yields
// none of the responses it yielded before.
func claudeCount(r Response, fp *FilePos, sink *Sink) {
	if r.MessageID == "" {
		// Nothing to dedupe on within the file; the line's time and usage
		// tell it when the file is read again.
		if fp.firstTime(sink, recordKey(fp.Path, "line", fmt.Sprintf("%d:%+v", r.Time.UnixNano(), r.Usage))) {
			sink.response(r)
		}
		return
	}
	if fp.Claude == nil {
		fp.Claude = &claudeState{}
	}
	key := r.MessageID + ":" + r.RequestID
	st := fp.Claude
	for i := range st.Recent {
		if st.Recent[i].Key == key {
			if r.Usage.Total() <= st.Recent[i].Usage.Total() {
				return
			}
			r.Counted = st.Recent[i].Usage
			st.Recent[i].Usage = r.Usage
			sink.response(r)
			return
		}
	}
	if !fp.firstTime(sink, recordKey(fp.Path, "response", key)) {
		return
	}
	if len(st.Recent) == recentMax {
		copy(st.Recent, st.Recent[1:])
		st.Recent = st.Recent[:recentMax-1]
	}
	st.Recent = append(st.Recent, recentResponse{Key: key, Usage: r.Usage})
	sink.response(r)
}

func claudeUsage(b []byte) (Usage, bool) {
	var u Usage
	err := walkObject(b, func(k, v []byte) bool {
		switch string(k) {
		case "input_tokens":
			u.Input = num(v)
		case "output_tokens":
			u.Output = num(v)
		case "cache_read_input_tokens":
			u.CacheRead = num(v)
		case "cache_creation_input_tokens":
			u.CacheCreation = num(v)
		case "cache_creation":
			if len(v) > 0 && v[0] == '{' {
				_ = walkObject(v, func(k, v []byte) bool {
					switch string(k) {
					case "ephemeral_5m_input_tokens":
						u.CacheWrite5m = num(v)
					case "ephemeral_1h_input_tokens":
						u.CacheWrite1h = num(v)
					}
					return true
				})
			}
		case "server_tool_use":
			if len(v) > 0 && v[0] == '{' {
				_ = walkObject(v, func(k, v []byte) bool {
					if string(k) == "web_search_requests" {
						u.WebSearch = num(v)
					}
					return true
				})
			}
		case "speed":
			u.Speed = str(v)
		case "inference_geo":
			u.Geo = str(v)
		}
		return true
	})
	return u, err == nil
}

func parseTime(v []byte) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, str(v))
	return t
}
