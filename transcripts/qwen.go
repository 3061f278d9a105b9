package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// Qwen Code writes a session as JSON lines, append-only, one record a line
// (shared/reference/qwen-code.md §4):
// <QWEN_HOME>/projects/<cwd, / → ->/chats/<session id>.jsonl, the
// transcript_path of its hook calls. Every line carries uuid, sessionId,
// type and provenance. One "assistant" line is one model response, with
// its model and usageMetadata (Gemini's: promptTokenCount holds the cached
// tokens, thoughts are billed as output); a "tool_result" line holds a
// call's toolCallResult (status success, error or cancelled; errorType
// execution_denied for a call a hook denied). The ui_telemetry lines repeat
// each response's tokens (qwen-code.api_response): they are not counted.
//
// A subagent's transcript is <project>/subagents/<session id>/agent-<agent
// id>.jsonl, beside chats/ (nested subagents in the same folder: their
// lineage is in the .meta.json files), read from 0.24.4's bundle
// (agent-transcript.ts).
var qwenFormat = Format{
	Agent: agent.Qwen, Read: ReadQwen, discover: discoverQwen,
	claims:   func(l *probeLine) bool { return l.Provenance != "" && l.SessionID != "" },
	Subagent: func(path string) bool { return strings.HasPrefix(filepath.Base(path), "agent-") },
}

// ReadQwen reads what was appended to a Qwen Code session since pos: the
// transcript at transcriptPath and its subagents' transcripts. See the
// package doc for the contract. more is true when ctx ended the read early.
func ReadQwen(ctx context.Context, transcriptPath string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(transcriptPath)
	if err != nil {
		return false, err
	}
	pos.follow(main, func(*FilePos) {})
	pos.file(filepath.Base(main))
	discoverQwen(main, pos)
	// A file read again keeps the keys it counted: see the package doc.
	// A subagent's lines name no model: it is the session's, as the main
	// file last named it (a subagent configured with a model of its own is
	// priced as the session's).
	main0 := &pos.Files[0]
	return readFiles(ctx, pos, sink, func(*FilePos) {}, func(line []byte, file string, fp *FilePos, sink *Sink) {
		model := ""
		if fp != main0 && main0.Qwen != nil {
			model = main0.Qwen.Model
		}
		qwenLine(line, file, fp, sink, model)
	})
}

// qwenState is what a file's reading keeps: the model its responses last
// named (the session's model, for its subagents).
type qwenState struct {
	Model string `json:"m,omitempty"`
}

// discoverQwen adds the session's subagent transcripts to pos, in name
// order.
func discoverQwen(main string, pos *Position) {
	session := strings.TrimSuffix(filepath.Base(main), ".jsonl")
	if session == "" || session == "." || session == ".." || strings.HasPrefix(session, "agent-") {
		return // a subagent's own file: its session's folder is not known from it
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(main)), "subagents", session)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var found []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), "agent-") && strings.HasSuffix(e.Name(), ".jsonl") {
			found = append(found, e.Name())
		}
	}
	sort.Strings(found)
	for _, name := range found {
		pos.file(pos.relPath(filepath.Join(dir, name)))
	}
}

// qwenTags mark the lines a reader decodes; any other (prompts, telemetry,
// snapshots) is passed over.
var (
	qwenUsageTag  = []byte(`"usageMetadata"`)
	qwenResultTag = []byte(`"toolCallResult"`)
	qwenCallTag   = []byte(`"functionCall"`)
)

type qwenRecord struct {
	UUID      string     `json:"uuid"`
	Type      string     `json:"type"`
	Timestamp string     `json:"timestamp"`
	Model     string     `json:"model"`
	Usage     *qwenUsage `json:"usageMetadata"`
	Message   *struct {
		Parts []struct {
			FunctionCall *struct {
				ID   string          `json:"id"`
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			} `json:"functionCall"`
			FunctionResponse *struct {
				Response struct {
					Error json.RawMessage `json:"error"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"message"`
	Result *struct {
		CallID string `json:"callId"`
		// Status is success, error or cancelled; a subagent's file writes
		// none but for some errors, and its functionResponse tells.
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		// Display is the reason text when a hook denied the call (an
		// object for a call that ran).
		Display json.RawMessage `json:"resultDisplay"`
	} `json:"toolCallResult"`
}

// qwenUsage is one response's usage as Qwen Code records it (the Gemini
// API's usageMetadata, filled from the provider's usage).
type qwenUsage struct {
	Prompt     int64 `json:"promptTokenCount"`
	Candidates int64 `json:"candidatesTokenCount"`
	Thoughts   int64 `json:"thoughtsTokenCount"`
	Cached     int64 `json:"cachedContentTokenCount"`
}

func (u qwenUsage) usage() Usage {
	cached := min(max(u.Cached, 0), max(u.Prompt, 0))
	return Usage{
		Input:     max(u.Prompt, 0) - cached,
		CacheRead: cached,
		Output:    max(u.Candidates, 0) + max(u.Thoughts, 0),
	}
}

// qwenLine handles one line of a Qwen Code transcript; model is the one a
// line that names none was made with ("": unknown).
func qwenLine(line []byte, file string, fp *FilePos, sink *Sink, model string) {
	usage := bytes.Contains(line, qwenUsageTag)
	result := sink.ToolResult != nil && bytes.Contains(line, qwenResultTag)
	call := sink.ToolCall != nil && bytes.Contains(line, qwenCallTag)
	if !usage && !result && !call {
		return
	}
	var r qwenRecord
	if json.Unmarshal(line, &r) != nil {
		return
	}
	t := parseTimeString(r.Timestamp)
	switch r.Type {
	case "assistant":
		if call && r.Message != nil {
			for _, p := range r.Message.Parts {
				if c := p.FunctionCall; c != nil && c.ID != "" {
					in := c.Args
					if len(in) == 0 || string(in) == "null" {
						in = json.RawMessage("{}")
					}
					sink.ToolCall(ToolCall{File: file, ID: c.ID, Name: c.Name, Input: bytes.Clone(in), Time: t})
				}
			}
		}
		if r.Model != "" {
			if fp.Qwen == nil {
				fp.Qwen = &qwenState{}
			}
			fp.Qwen.Model = r.Model
		} else {
			r.Model = model
		}
		if r.Usage == nil || r.UUID == "" {
			return
		}
		u := r.Usage.usage()
		if u == (Usage{}) || !fp.firstTime(sink, recordKey(qwenKeyFile(fp), "response", r.UUID)) {
			return
		}
		sink.response(Response{File: file, MessageID: r.UUID, Model: r.Model, Time: t, Usage: u})
	case "tool_result":
		res := r.Result
		if !result || res == nil || res.CallID == "" || !fp.firstTime(sink, recordKey(qwenKeyFile(fp), "result", res.CallID)) {
			return
		}
		failed := res.Status != "success"
		if res.Status == "" && r.Message != nil {
			// A subagent's result: failed when its response is an error.
			failed = false
			for _, p := range r.Message.Parts {
				if fr := p.FunctionResponse; fr != nil && len(fr.Response.Error) > 0 && string(fr.Response.Error) != "null" && string(fr.Response.Error) != `""` {
					failed = true
				}
			}
		}
		tr := ToolResult{File: file, ToolUseID: res.CallID, Failed: failed, Time: t}
		if res.ErrorType == "execution_denied" {
			tr.Refused = true
			tr.Blocked, _ = jsonString(res.Display)
		}
		sink.toolResult(tr)
	}
}

// qwenKeyFile is the file's name in the keys of its records: a subagent's
// file is outside the main file's folder, so its path in the Position is
// absolute and changes when the session's folder moves; its name does not.
func qwenKeyFile(fp *FilePos) string { return filepath.Base(fp.Path) }
