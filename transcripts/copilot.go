package transcripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// GitHub Copilot CLI writes a session as events, one JSON object a line,
// append-only: $COPILOT_HOME/session-state/<session id>/events.jsonl (see
// shared/reference/copilot-cli.md §4). Each event is {"type", "data", "id",
// "timestamp", "parentId"}, with "agentId" when a subagent's: a subagent's
// events are in its parent's file, so a session is one file.
//
//   - session.usage_record: one per model request, with its tokens
//     (inputTokens includes the cached ones), whether it went to the
//     person's own key (isByok), and for a call Copilot billed, its cost
//     in premium-request units;
//   - session.compaction_complete: the compaction requests, which leave no
//     usage record, summed in compactionTokensUsed;
//   - tool.execution_complete: a tool call's outcome (a shell command that
//     exits non-zero is success: true with its exitCode);
//   - assistant.message: the tool calls a response made (toolRequests);
//   - user.message: a prompt (a subagent's task too, with its agentId).
//
// The usage record of a response is written before its tool calls start,
// so it is on disk when their hooks run.

// copilotFormat: a Copilot CLI session's event types are dotted
// ("session.start"), which no other agent's lines are.
var copilotFormat = Format{
	Agent: agent.Copilot, Read: ReadCopilot, discover: func(string, *Position) {},
	claims: func(l *probeLine) bool { return strings.HasPrefix(l.Type, "session.") },
	// The file's folder is named by the session's id.
	SessionID: func(path string) string { return filepath.Base(filepath.Dir(path)) },
}

// CopilotEventsName is the name of a Copilot CLI session's file in its
// session-state/<id>/ folder.
const CopilotEventsName = "events.jsonl"

// ReadCopilot reads what was appended to a Copilot CLI session's
// events.jsonl since pos. See the package doc for the contract. more is
// true when ctx ended the read early.
func ReadCopilot(ctx context.Context, path string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	pos.follow(main, func(*FilePos) {})
	pos.file(filepath.Base(main))
	return readFiles(ctx, pos, sink, func(*FilePos) {}, copilotLine)
}

// copilotTags pick the lines a reader decodes; the rest (hooks, turns,
// the model's text) are passed over.
var copilotTags = [][]byte{
	[]byte(`"type":"session.usage_record"`), []byte(`"type":"session.compaction_complete"`),
	[]byte(`"type":"tool.execution_complete"`), []byte(`"type":"assistant.message"`), []byte(`"type":"user.message"`),
}

type copilotEvent struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	AgentID   string          `json:"agentId"`
	Data      json.RawMessage `json:"data"`
}

// copilotTokens are a request's tokens as Copilot CLI records them, in a
// usage record and in compactionTokensUsed alike: input with its cached
// part (cache reads and writes) in it.
type copilotTokens struct {
	Model      string `json:"model"`
	Input      int64  `json:"inputTokens"`
	Output     int64  `json:"outputTokens"`
	CacheRead  int64  `json:"cacheReadTokens"`
	CacheWrite int64  `json:"cacheWriteTokens"`
}

func (t copilotTokens) usage() Usage {
	read, write := max(t.CacheRead, 0), max(t.CacheWrite, 0)
	return Usage{
		Input:     max(max(t.Input, 0)-read-write, 0),
		CacheRead: read, CacheCreation: write,
		Output: max(t.Output, 0),
	}
}

type copilotUsage struct {
	copilotTokens
	Cost   float64 `json:"cost"`
	IsBYOK *bool   `json:"isByok"`
}

// copilotLine handles one line of a session file.
func copilotLine(line []byte, file string, fp *FilePos, sink *Sink) {
	tag := -1
	for i, t := range copilotTags {
		if bytes.Contains(line, t) {
			tag = i
			break
		}
	}
	switch tag {
	case -1:
		return
	case 2:
		if sink.ToolResult == nil {
			return
		}
	case 3:
		if sink.ToolCall == nil {
			return
		}
	case 4:
		if sink.Prompt == nil {
			return
		}
	}
	var ev copilotEvent
	if json.Unmarshal(line, &ev) != nil || ev.ID == "" {
		return
	}
	switch ev.Type {
	case "session.usage_record":
		var d struct {
			Usage copilotUsage `json:"usage"`
		}
		if json.Unmarshal(ev.Data, &d) != nil {
			return
		}
		u := d.Usage
		r := Response{File: file, MessageID: ev.ID, Model: u.Model, Time: parseTimeString(ev.Timestamp), Usage: u.usage()}
		// A record that does not say it went to the person's own key is
		// Copilot's to bill: its cost is premium requests, not dollars.
		if u.IsBYOK == nil || !*u.IsBYOK {
			r.Subscription, r.Premium = true, max(u.Cost, 0)
		}
		if fp.firstTime(sink, recordKey(fp.Path, "response", ev.ID)) {
			sink.response(r)
		}
	case "session.compaction_complete":
		var d struct {
			Used *struct {
				copilotTokens
				Status string `json:"aiCreditsStatus"`
			} `json:"compactionTokensUsed"`
		}
		if json.Unmarshal(ev.Data, &d) != nil || d.Used == nil {
			return
		}
		u := d.Used.copilotTokens.usage()
		if u.Total() <= 0 || !fp.firstTime(sink, recordKey(fp.Path, "response", ev.ID)) {
			return
		}
		// Compaction carries no cost of its own: a request Copilot billed
		// (its credits status known) is counted as its plan's, unpriced.
		r := Response{File: file, MessageID: ev.ID, Model: d.Used.Model, Time: parseTimeString(ev.Timestamp), Usage: u}
		r.Subscription = d.Used.Status != "" && d.Used.Status != "unavailable"
		sink.response(r)
	case "tool.execution_complete":
		copilotResult(&ev, file, fp, sink)
	case "assistant.message":
		var d struct {
			ToolRequests []struct {
				ID        string          `json:"toolCallId"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"toolRequests"`
		}
		if json.Unmarshal(ev.Data, &d) != nil {
			return
		}
		for _, tr := range d.ToolRequests {
			in := tr.Arguments
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			sink.ToolCall(ToolCall{File: file, ID: tr.ID, Name: tr.Name, Input: bytes.Clone(in), Time: parseTimeString(ev.Timestamp)})
		}
	case "user.message":
		if ev.AgentID != "" {
			return // a subagent's task is no prompt of the person's
		}
		var d struct {
			MessageID string `json:"messageId"`
		}
		if json.Unmarshal(ev.Data, &d) != nil {
			return
		}
		id := d.MessageID
		if id == "" {
			id = ev.ID
		}
		if fp.firstTime(sink, recordKey(fp.Path, "prompt", id)) {
			sink.Prompt(Prompt{File: file, ID: id, Time: parseTimeString(ev.Timestamp)})
		}
	}
}

// copilotResult yields a tool call's outcome: failed when Copilot CLI says
// so, or when its shell command exited non-zero; refused (with the hook's
// reason) when a hook denied it.
func copilotResult(ev *copilotEvent, file string, fp *FilePos, sink *Sink) {
	var d struct {
		ID      string `json:"toolCallId"`
		Success *bool  `json:"success"`
		Shell   *struct {
			ExitCode *int `json:"exitCode"`
		} `json:"shellExecution"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(ev.Data, &d) != nil || d.ID == "" {
		return
	}
	if !fp.firstTime(sink, recordKey(fp.Path, "result", d.ID)) {
		return
	}
	r := ToolResult{File: file, ToolUseID: d.ID, Time: parseTimeString(ev.Timestamp)}
	r.Failed = d.Success != nil && !*d.Success
	if d.Shell != nil && d.Shell.ExitCode != nil && *d.Shell.ExitCode != 0 {
		r.Failed = true
	}
	if e := d.Error; e != nil {
		r.Failed = true
		r.Refused = e.Code == "denied"
		for _, prefix := range copilotBlocked {
			if reason, ok := strings.CutPrefix(e.Message, prefix); ok {
				r.Blocked = reason
				break
			}
		}
	}
	sink.toolResult(r)
}

// copilotBlocked start the error a call gets when a hook denied it (1.0.102).
var copilotBlocked = []string{
	"Denied by preToolUse hook: ",
	"Denied by preToolUse hook (unable to ask user for confirmation): ",
	"Permission denied by a PermissionRequest hook: ",
}

// CopilotCwd is the folder a Copilot CLI session ran in, from the cwd line
// of its workspace.yaml ("" when it has none); only that line is read, as
// Copilot CLI writes it: `cwd: <path>`.
func CopilotCwd(workspace string) string {
	f, _, err := ownfiles.OpenRegularInfo(workspace, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "cwd: "); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
