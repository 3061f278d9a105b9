package transcripts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// Gemini CLI writes a session as JSON lines, append-only (see
// shared/reference/gemini-cli-observed.md §5):
//
//   - a header {"sessionId", "projectHash", "kind", …} first (again after a
//     resume that starts in the file's minute: a resumed session goes on in
//     its file, and the run's start-up file, header and session context,
//     then has the same name; from a later minute it is a file of its own
//     with no message, not read);
//   - message records {"id", "type", …}; the same id is written again each
//     time the message changes: a "gemini" message first with its "tokens"
//     when the stream ends, then with its "toolCalls" once the tools ran;
//   - {"$set": {…}} metadata updates, where "messages" is a snapshot of the
//     whole message list that repeats earlier records, tokens included;
//   - {"$rewindTo": id}, which drops messages from the list but not the
//     tokens they spent.
//
// So spend is the last tokens per message id, whether the record is a line
// of its own or inside a snapshot; a tool call's outcome is read from the
// first record that has it final.

// geminiRecentMax is how many messages per file keep the usage yielded for
// them: a message's records are written close together, so the last tokens
// of one that changes are counted exactly. Older ones keep only their id's
// hash (8 bytes), so that a snapshot or a resume repeating them counts
// nothing again.
const geminiRecentMax = 8

// geminiIDsMax bounds the hashed ids remembered per file (of messages and
// of tool calls). A session longer than that has its oldest ids forgotten:
// a snapshot repeating them counts them again, an overestimate rather than
// a runaway let through.
const geminiIDsMax = 4096

// geminiNestMax bounds how deep subagents of subagents are looked for.
const geminiNestMax = 4

type geminiState struct {
	// Recent holds the last messages' usage as yielded; Old the hashed ids
	// of the messages before them, and Calls those of the tool calls whose
	// outcome was yielded: 8 bytes each, base64 in the saved Position.
	Recent []geminiSeen `json:"r,omitempty"`
	Old    []byte       `json:"o,omitempty"`
	Calls  []byte       `json:"k,omitempty"`
	// Prompts are the hashed ids of the prompts yielded.
	Prompts []byte `json:"p,omitempty"`
}

type geminiSeen struct {
	Key uint64 `json:"k"`
	In  int64  `json:"i,omitempty"`
	CR  int64  `json:"c,omitempty"`
	Out int64  `json:"o,omitempty"`
}

// hasKey reports whether the packed list holds key.
func hasKey(list []byte, key uint64) bool {
	for i := 0; i+8 <= len(list); i += 8 {
		if binary.LittleEndian.Uint64(list[i:]) == key {
			return true
		}
	}
	return false
}

// addKey appends key to the packed list, dropping the oldest past
// geminiIDsMax.
func addKey(list []byte, key uint64) []byte {
	if len(list) >= geminiIDsMax*8 {
		list = list[len(list)-(geminiIDsMax-1)*8:]
	}
	return binary.LittleEndian.AppendUint64(list, key)
}

func (s geminiSeen) usage() Usage { return Usage{Input: s.In, CacheRead: s.CR, Output: s.Out} }

// geminiFormat: a Gemini CLI session starts with a header that carries
// projectHash; the file's name holds only 8 characters of the session id,
// the header all of it.
var geminiFormat = Format{
	Agent: agent.Gemini, Read: ReadGemini, discover: discoverGemini,
	claims:    func(l *probeLine) bool { return l.Project != "" && l.SessionID != "" },
	SessionID: GeminiSessionID,
}

// ReadGemini reads what was appended to a Gemini CLI session since pos: the
// session file at sessionPath (chats/session-<time>-<id>.jsonl) and its
// subagents' files (chats/<session id>/<subagent id>.jsonl, theirs in turn
// under chats/<subagent id>/). See the package doc for the contract. more is
// true when ctx ended the read early.
func ReadGemini(ctx context.Context, sessionPath string, pos *Position, sink Sink) (more bool, err error) {
	main, err := filepath.Abs(sessionPath)
	if err != nil {
		return false, err
	}
	pos.follow(main, func(*FilePos) {})
	pos.file(filepath.Base(main))
	discoverGemini(main, pos)
	// A file read again keeps the ids it counted: see the package doc.
	return readFiles(ctx, pos, sink, func(*FilePos) {}, func(line []byte, file string, fp *FilePos, sink *Sink) {
		if fp.Gemini == nil {
			fp.Gemini = &geminiState{}
		}
		geminiLine(line, file, fp.Gemini, sink)
	})
}

// discoverGemini adds the session's subagent files to pos. The session id
// comes from the main file's header (its name holds only 8 characters of
// it); a subagent file's id is its name. A subagent file's subagents are
// under chats/<its id>/, beside the session's own folder.
func discoverGemini(main string, pos *Position) {
	chats := filepath.Dir(main)
	if pos.Root == "" {
		if strings.HasPrefix(filepath.Base(main), "session-") {
			pos.Root = geminiHeaderID(main)
		} else {
			// A subagent's own file: its children are beside its folder.
			pos.Root = strings.TrimSuffix(filepath.Base(main), ".jsonl")
			chats = filepath.Dir(chats)
		}
		if pos.Root == "" {
			return // no header yet: look again next time
		}
	} else if !strings.HasPrefix(filepath.Base(main), "session-") {
		chats = filepath.Dir(chats)
	}
	ids := []string{pos.Root}
	for depth := 0; depth < geminiNestMax && len(ids) > 0; depth++ {
		var next []string
		for _, id := range ids {
			if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
				continue
			}
			entries, err := os.ReadDir(filepath.Join(chats, id))
			if err != nil {
				continue
			}
			var found []string
			for _, e := range entries {
				if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
					found = append(found, e.Name())
				}
			}
			sort.Strings(found)
			for _, name := range found {
				p := filepath.Join(chats, id, name)
				if p == main {
					continue
				}
				pos.file(pos.relPath(p))
				next = append(next, strings.TrimSuffix(name, ".jsonl"))
			}
		}
		ids = next
	}
}

// GeminiSessionID is the session id of a Gemini CLI session file, from its
// header ("" when it has none): the file's name holds only 8 characters of it.
func GeminiSessionID(path string) string { return geminiHeaderID(path) }

// geminiHeaderID is the sessionId of the header on the file's first line.
func geminiHeaderID(path string) string {
	f, _, err := ownfiles.OpenRegularInfo(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil {
		return ""
	}
	var h struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(line, &h) != nil {
		return ""
	}
	return h.SessionID
}

// geminiTags are the byte strings of the lines a reader looks at; any other
// line (user prompts, lastUpdated updates, the header) is passed over
// without decoding.
var geminiTags = [][]byte{[]byte(`"tokens"`), []byte(`"toolCalls"`)}

type geminiRecord struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Model     string          `json:"model"`
	Tokens    *geminiTokens   `json:"tokens"`
	ToolCalls []geminiToolRun `json:"toolCalls"`
	Set       *struct {
		Messages []geminiRecord `json:"messages"`
	} `json:"$set"`
}

// geminiTokens is one response's usage as Gemini CLI records it: input is
// the prompt with its cached part, thoughts are billed as output, tool is
// the prompt of server-side tool use.
type geminiTokens struct {
	Input    int64 `json:"input"`
	Output   int64 `json:"output"`
	Cached   int64 `json:"cached"`
	Thoughts int64 `json:"thoughts"`
	Tool     int64 `json:"tool"`
}

type geminiToolRun struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args"`
	Status    string          `json:"status"`
	Timestamp string          `json:"timestamp"`
	Result    []struct {
		FunctionResponse *struct {
			Response struct {
				Output json.RawMessage `json:"output"`
				Error  json.RawMessage `json:"error"`
			} `json:"response"`
		} `json:"functionResponse"`
	} `json:"result"`
}

func (t geminiTokens) usage() Usage {
	cached := min(max(t.Cached, 0), max(t.Input, 0))
	return Usage{
		Input:     max(t.Input, 0) - cached + max(t.Tool, 0),
		CacheRead: cached,
		Output:    max(t.Output, 0) + max(t.Thoughts, 0),
	}
}

// geminiUser marks the lines that can be a person's prompt.
var geminiUser = []byte(`"type":"user"`)

// geminiPrompt yields a user message that is no tool's result as a prompt,
// the first time its id is seen in the file.
func geminiPrompt(line []byte, file string, st *geminiState, sink *Sink) {
	if bytes.Contains(line, []byte(`"functionResponse"`)) {
		return
	}
	var f [3][]byte
	if _, err := pick(line, promptKeys, f[:]); err != nil {
		return
	}
	id, typ, ts := f[0], f[1], f[2]
	if str(typ) != "user" || str(id) == "" {
		return
	}
	key := hashID(str(id))
	if hasKey(st.Prompts, key) {
		return
	}
	st.Prompts = addKey(st.Prompts, key)
	sink.Prompt(Prompt{File: file, ID: str(id), Time: parseTime(ts)})
}

var promptKeys = []string{"id", "type", "timestamp"}

// geminiLine handles one line of a session file.
func geminiLine(line []byte, file string, st *geminiState, sink *Sink) {
	if sink.Prompt != nil && bytes.Contains(line, geminiUser) && !bytes.Contains(line, setKey) {
		geminiPrompt(line, file, st, sink)
	}
	hit := false
	for _, tag := range geminiTags {
		if bytes.Contains(line, tag) {
			hit = true
			break
		}
	}
	if !hit {
		return
	}
	if sink.ToolResult == nil && sink.ToolCall == nil && geminiTokensLine(line, file, st, sink) {
		return
	}
	var r geminiRecord
	if err := json.Unmarshal(line, &r); err != nil {
		return
	}
	if r.Set != nil {
		for i := range r.Set.Messages {
			geminiTokensOf(&r.Set.Messages[i], file, st, sink)
		}
		return
	}
	if r.ID == "" || r.Type != "gemini" {
		return
	}
	geminiTokensOf(&r, file, st, sink)
	if sink.ToolResult != nil || sink.ToolCall != nil {
		for i := range r.ToolCalls {
			geminiToolCall(&r.ToolCalls[i], &r, file, st, sink)
		}
	}
}

// geminiTokensLine is geminiLine for a read of responses only (a report):
// it picks a message's id, type, time, model and tokens out of the line
// without decoding its text and tool output, which are most of its bytes.
// It reports false for a line it leaves to the full decoding: a $set
// snapshot, or fields of an unexpected type.
func geminiTokensLine(line []byte, file string, st *geminiState, sink *Sink) bool {
	var f [6][]byte
	odd, err := pick(line, tokensKeys, f[:])
	if err != nil {
		return true // not JSON: passed over, as the full decoding does
	}
	id, typ, ts, model, tokens, set := f[0], f[1], f[2], f[3], f[4], f[5]
	if odd || set != nil {
		return false
	}
	for _, v := range [][]byte{id, typ, ts, model} {
		if len(v) > 0 && v[0] != '"' && string(v) != "null" {
			return false
		}
	}
	if str(typ) != "gemini" || str(id) == "" || len(tokens) == 0 || string(tokens) == "null" {
		return true
	}
	t, ok := geminiTokensOfLine(tokens)
	if !ok {
		return false
	}
	r := geminiRecord{ID: str(id), Type: "gemini", Timestamp: str(ts), Model: str(model), Tokens: &t}
	geminiTokensOf(&r, file, st, sink)
	return true
}

var tokensKeys = []string{"id", "type", "timestamp", "model", "tokens", "$set"}

// geminiTokensOfLine reads a message's tokens object as encoding/json would
// into geminiTokens; false for anything it would take otherwise (a count
// that is no integer, a key in another case).
func geminiTokensOfLine(b []byte) (geminiTokens, bool) {
	var t geminiTokens
	if b[0] != '{' {
		return t, false
	}
	var f [5][]byte
	odd, err := pick(b, geminiTokenKeys, f[:])
	if odd || err != nil {
		return t, false
	}
	for i, dst := range []*int64{&t.Input, &t.Output, &t.Cached, &t.Thoughts, &t.Tool} {
		if f[i] == nil || string(f[i]) == "null" {
			continue
		}
		n, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil {
			return t, false
		}
		*dst = n
	}
	return t, true
}

var geminiTokenKeys = []string{"input", "output", "cached", "thoughts", "tool"}

var setKey = []byte(`"$set"`)

// geminiTokensOf yields a message's tokens when they differ from what was
// yielded for its id before, with Counted set to that.
func geminiTokensOf(r *geminiRecord, file string, st *geminiState, sink *Sink) {
	if r.ID == "" || r.Type != "gemini" || r.Tokens == nil {
		return
	}
	u := r.Tokens.usage()
	key := hashID(r.ID)
	var counted Usage
	found := false
	for i := range st.Recent {
		if st.Recent[i].Key == key {
			counted, found = st.Recent[i].usage(), true
			if counted == u {
				return
			}
			st.Recent[i].In, st.Recent[i].CR, st.Recent[i].Out = u.Input, u.CacheRead, u.Output
			break
		}
	}
	if !found {
		if u == (Usage{}) || hasKey(st.Old, key) {
			return
		}
		if len(st.Recent) == geminiRecentMax {
			st.Old = addKey(st.Old, st.Recent[0].Key)
			st.Recent = append(st.Recent[:0], st.Recent[1:]...)
		}
		st.Recent = append(st.Recent, geminiSeen{Key: key, In: u.Input, CR: u.CacheRead, Out: u.Output})
	}
	sink.response(Response{File: file, MessageID: r.ID, Model: r.Model, Time: parseTimeString(r.Timestamp), Usage: u, Counted: counted,
		Prompt: max(r.Tokens.Input, 0), Candidates: max(r.Tokens.Output, 0)})
}

// geminiToolCall yields a tool call and its outcome once its status is
// final, once per call id.
func geminiToolCall(tc *geminiToolRun, r *geminiRecord, file string, st *geminiState, sink *Sink) {
	if tc.ID == "" {
		return
	}
	switch tc.Status {
	case "success", "error", "cancelled":
	default:
		return // still running: its final record comes later
	}
	key := hashID(tc.ID)
	if hasKey(st.Calls, key) {
		return
	}
	st.Calls = addKey(st.Calls, key)

	t := parseTimeString(tc.Timestamp)
	if t.IsZero() {
		t = parseTimeString(r.Timestamp)
	}
	if sink.ToolCall != nil {
		in := tc.Args
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		sink.ToolCall(ToolCall{File: file, ID: tc.ID, Name: tc.Name, Input: bytes.Clone(in), Time: t})
	}
	res := ToolResult{File: file, ToolUseID: tc.ID, Failed: tc.Status != "success", Time: t}
	for _, part := range tc.Result {
		if part.FunctionResponse == nil {
			continue
		}
		resp := part.FunctionResponse.Response
		if text, ok := jsonString(resp.Error); ok {
			res.Failed = true
			for _, prefix := range geminiBlocked {
				if reason, ok := strings.CutPrefix(text, prefix); ok {
					res.Blocked = reason
				}
			}
		}
		if text, ok := jsonString(resp.Output); ok && geminiOutputFailed(text) {
			res.Failed = true
		}
	}
	sink.toolResult(res)
}

// geminiBlocked start the error a call gets when a BeforeTool hook denied
// it, or stopped the run (continue: false).
var geminiBlocked = []string{"Tool execution blocked: ", "Agent execution stopped by hook: "}

// geminiOutputFailed reads a shell call's outcome from its output: Gemini
// CLI appends "Exit Code: N" (only when N is not 0), "Signal: S" or
// "Error: …" lines after the command's own output. The last such line
// decides, so output that merely quotes one is rarely mistaken.
func geminiOutputFailed(text string) bool {
	for _, marker := range []string{"\nExit Code: ", "\nSignal: "} {
		i := strings.LastIndex(text, marker)
		if i < 0 {
			continue
		}
		rest := text[i+len(marker):]
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		if rest != "" && rest != "0" && rest != "null" {
			return true
		}
	}
	return false
}

// hashID keeps an id small in the saved Position.
func hashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func parseTimeString(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
