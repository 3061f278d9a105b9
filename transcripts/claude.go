package transcripts

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// recentMax is how many responses per Claude file are remembered for the
// largest-usage rule. One response's lines are written next to each other,
// so a handful is plenty.
const recentMax = 4

type claudeState struct {
	Recent []recentResponse `json:"r,omitempty"`
}

type recentResponse struct {
	Key   string `json:"k"`
	Usage Usage  `json:"u"`
}

// ReadClaude reads what was appended to a Claude Code session since pos:
// the main transcript at transcriptPath and the session's subagent files.
// See the package doc for the contract. more is true when ctx ended the read
// early.
func ReadClaude(ctx context.Context, transcriptPath string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(transcriptPath)
	if err != nil {
		return false, err
	}
	if pos.Main != main {
		pos.reset(main)
	}
	pos.file(filepath.Base(main))
	discoverClaude(main, pos)
	for i := range pos.Files {
		fp := &pos.Files[i]
		abs := pos.absPath(fp.Path)
		more, err := readLines(ctx, abs, fp, func() { fp.Claude = nil }, func(line []byte, _ int64) {
			claudeLine(line, abs, fp, &sink)
		})
		if err != nil {
			return false, fmt.Errorf("reading %s: %w", abs, err)
		}
		if more {
			return true, nil
		}
	}
	return false, nil
}

// ClaudeSessionFiles lists the files ReadClaude reads for the transcript at
// transcriptPath: the main file first, then its subagents' files.
func ClaudeSessionFiles(transcriptPath string) ([]string, error) {
	main, err := filepath.Abs(transcriptPath)
	if err != nil {
		return nil, err
	}
	var pos Position
	pos.reset(main)
	pos.file(filepath.Base(main))
	discoverClaude(main, &pos)
	files := make([]string, len(pos.Files))
	for i, f := range pos.Files {
		files[i] = pos.absPath(f.Path)
	}
	return files, nil
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
			if e.Type().IsRegular() && isAgentFile(e.Name()) && p != main && !pos.has(pos.relPath(p)) && firstLineHas(p, needle) {
				found = append(found, p)
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
// contains needle.
func firstLineHas(path string, needle []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	return bytes.Contains(line, needle)
}

var (
	typeAssistant = []byte(`"type":"assistant"`)
	toolResultTag = []byte(`"tool_result"`)
	usageTag      = []byte(`"usage"`)
)

// claudeLine handles one line of a Claude Code transcript. Lines that can
// hold neither usage nor a tool result are passed over by a byte scan.
func claudeLine(line []byte, file string, fp *FilePos, sink *Sink) {
	asst := bytes.Contains(line, typeAssistant)
	if asst {
		if sink.ToolCall == nil && !bytes.Contains(line, usageTag) {
			return
		}
	} else if sink.ToolResult == nil || !bytes.Contains(line, toolResultTag) {
		return
	}
	var typ, reqID, ts, msg []byte
	if walkObject(line, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "requestId":
			reqID = v
		case "timestamp":
			ts = v
		case "message":
			msg = v
		}
		return true
	}) != nil || msg == nil {
		return
	}
	switch str(typ) {
	case "assistant":
		claudeAssistant(msg, str(reqID), parseTime(ts), file, fp, sink)
	case "user":
		if sink.ToolResult != nil {
			claudeToolResults(msg, parseTime(ts), file, sink)
		}
	}
}

func claudeAssistant(msg []byte, reqID string, t time.Time, file string, fp *FilePos, sink *Sink) {
	var id, model, usage, content []byte
	if walkObject(msg, func(k, v []byte) bool {
		switch string(k) {
		case "id":
			id = v
		case "model":
			model = v
		case "usage":
			usage = v
		case "content":
			content = v
		}
		return true
	}) != nil {
		return
	}
	m := str(model)
	if m == "<synthetic>" {
		return
	}
	if usage != nil && usage[0] == '{' && sink.Response != nil {
		if u, ok := claudeUsage(usage); ok {
			claudeCount(Response{File: file, MessageID: str(id), RequestID: reqID, Model: m, Time: t, Usage: u}, fp, sink)
		}
	}
	if sink.ToolCall != nil && content != nil && content[0] == '[' {
		_ = walkArray(content, func(block []byte) {
			var typ, bid, name, input []byte
			if walkObject(block, func(k, v []byte) bool {
				switch string(k) {
				case "type":
					typ = v
				case "id":
					bid = v
				case "name":
					name = v
				case "input":
					input = v
				}
				return true
			}) != nil || str(typ) != "tool_use" {
				return
			}
			sink.ToolCall(ToolCall{File: file, ID: str(bid), Name: str(name), Input: bytes.Clone(input), Time: t})
		})
	}
}

// claudeCount applies the largest-usage rule: a response already seen is
// yielded again only when this line's usage is larger, with Counted set to
// what was yielded before.
func claudeCount(r Response, fp *FilePos, sink *Sink) {
	if r.MessageID == "" {
		sink.response(r) // nothing to dedupe on
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

func claudeToolResults(msg []byte, t time.Time, file string, sink *Sink) {
	var content []byte
	_ = walkObject(msg, func(k, v []byte) bool {
		if string(k) == "content" {
			content = v
			return false
		}
		return true
	})
	if len(content) == 0 || content[0] != '[' {
		return
	}
	_ = walkArray(content, func(block []byte) {
		var typ, id, isErr []byte
		if walkObject(block, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = v
			case "tool_use_id":
				id = v
			case "is_error":
				isErr = v
			}
			return true
		}) != nil || str(typ) != "tool_result" {
			return
		}
		sink.toolResult(ToolResult{File: file, ToolUseID: str(id), Failed: isTrue(isErr), Time: t})
	})
}

func parseTime(v []byte) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, str(v))
	return t
}
