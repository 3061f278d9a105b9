// Package demo replays sessions that a real agent recorded through the real
// hook, in a temporary folder, and shows step by step what runaway decided
// and what the agent showed for it.
//
// The sessions (sessions/*.jsonl) are Claude Code 2.1.332 transcripts,
// recorded by e2e's TestRecordDemoSessions: the real agent, guarded by
// runaway, against e2e's scripted model on loopback. Each tool call in them
// becomes the PreToolUse input Claude Code sends, with the transcript as it
// stood when the agent asked; the agent's own display of each decision (the
// tool result, the stop) comes from the same transcript.
package demo

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/guard"
)

//go:embed sessions/*.jsonl
var sessions embed.FS

// Session is one recorded session and the limits it is replayed under.
type Session struct {
	File  string // in sessions/
	Title string
	Story string // what the model does in it
	// Config is runaway's config.json for the replay ("" for the defaults).
	Config string
}

// Sessions are what the demo replays, in order.
var Sessions = []Session{
	{
		File:  "claude-loop.jsonl",
		Title: "a loop and a failure streak",
		Story: "the model runs `npm test` again and again, and it fails every time",
	},
	{
		File:   "claude-cap.jsonl",
		Title:  "a spend cap",
		Story:  "each step costs about $0.30, and the session cap is $1",
		Config: "{\n  \"session_cap_usd\": 1\n}\n",
	},
}

// Step is one tool call of a replayed session: what runaway answered, and
// what the agent showed for it in the recording.
type Step struct {
	N       int    // the call's number in the session
	Tool    string // "Bash"
	Command string // the command, or the input as JSON
	// Decision is runaway's answer now: "" (none: the call runs), "warn",
	// "ask", "deny" or "stop"; Reason and Message are its texts for the
	// model and for the person.
	Decision, Reason, Message string
	// Recorded is what the agent recorded for the call: its tool result
	// (first lines), and Stopped its "hook stopped continuation" message.
	Recorded, Stopped string
	Failed            bool // the recorded result was an error
	// RecordedDecision is what runaway's hook answered when the session
	// was recorded ("" for no answer), for tests to hold the replay to.
	RecordedDecision string
}

// Replay runs every tool call of s through the hook, with state and config
// in dir, and returns the steps up to the one that ended the session.
func Replay(s Session, dir string) ([]Step, error) {
	data, err := sessions.ReadFile("sessions/" + s.File)
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	recs := make([]record, len(lines))
	for i, l := range lines {
		_ = json.Unmarshal(l, &recs[i]) // a line that is not JSON is no step
	}
	configPath := filepath.Join(dir, "config.json")
	if err := os.WriteFile(configPath, []byte(s.Config), 0o600); err != nil {
		return nil, err
	}
	transcript := filepath.Join(dir, strings.TrimSuffix(s.File, ".jsonl")+"-transcript.jsonl")
	h := &guard.Hook{
		StateDir:   filepath.Join(dir, "state"),
		ConfigPath: configPath,
		// None of the person's RUNAWAY_* settings: the demo's limits only.
		Getenv: func(string) string { return "" },
	}
	var steps []Step
	prompt := ""
	for i, r := range recs {
		if r.PromptID != "" {
			prompt = r.PromptID
		}
		if r.Type != "assistant" || r.Message == nil {
			continue
		}
		for _, b := range r.Message.Content {
			if b.Type != "tool_use" {
				continue
			}
			// The transcript as Claude Code had written it when it ran the hook.
			if err := os.WriteFile(transcript, bytes.Join(lines[:i+1], nil), 0o600); err != nil {
				return nil, err
			}
			in, _ := json.Marshal(map[string]any{
				"session_id": r.SessionID, "transcript_path": transcript, "cwd": r.Cwd,
				"permission_mode": "default", "hook_event_name": "PreToolUse", "prompt_id": prompt,
				"tool_name": b.Name, "tool_input": b.Input, "tool_use_id": b.ID,
			})
			if t, err := time.Parse(time.RFC3339Nano, r.Timestamp); err == nil {
				h.Now = func() time.Time { return t }
			}
			var out bytes.Buffer
			h.Run(bytes.NewReader(in), &out, "claude")
			st := Step{N: len(steps) + 1, Tool: b.Name, Command: command(b.Input)}
			st.answer(out.Bytes())
			st.recorded(recs[i+1:], b.ID)
			steps = append(steps, st)
			if st.Decision == "stop" {
				return steps, nil
			}
		}
	}
	return steps, nil
}

// record is the part of a Claude Code transcript line the demo reads.
type record struct {
	Type      string `json:"type"`
	SessionID string `json:"sessionId"`
	PromptID  string `json:"promptId"`
	Cwd       string `json:"cwd"`
	Timestamp string `json:"timestamp"`
	Message   *struct {
		Content []block `json:"content"`
	} `json:"message"`
	Attachment *struct {
		Type      string `json:"type"`
		ToolUseID string `json:"toolUseID"`
		Message   string `json:"message"`
		Stdout    string `json:"stdout"`
	} `json:"attachment"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// UnmarshalJSON takes a user message's content as a string too.
func (r *record) UnmarshalJSON(b []byte) error {
	type plain record
	var raw struct {
		plain
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*r = record(raw.plain)
	r.Message = nil
	if raw.Message != nil {
		var blocks []block
		if json.Unmarshal(raw.Message.Content, &blocks) == nil {
			r.Message = &struct {
				Content []block `json:"content"`
			}{blocks}
		}
	}
	return nil
}

func command(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) == nil && in.Command != "" {
		return in.Command
	}
	return string(input)
}

// answer reads the hook's answer in Claude Code's format.
func (st *Step) answer(out []byte) {
	var a struct {
		Continue      *bool  `json:"continue"`
		StopReason    string `json:"stopReason"`
		SystemMessage string `json:"systemMessage"`
		Specific      *struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if len(bytes.TrimSpace(out)) == 0 || json.Unmarshal(out, &a) != nil {
		return
	}
	st.Message = a.SystemMessage
	if a.SystemMessage != "" {
		st.Decision = "warn"
	}
	if a.Specific != nil {
		st.Decision, st.Reason = a.Specific.Decision, a.Specific.Reason
	}
	if a.Continue != nil && !*a.Continue {
		st.Decision, st.Message = "stop", a.StopReason
	}
}

// recorded finds what the agent recorded for the call id in the lines
// after it: its tool result and a hook's stop.
func (st *Step) recorded(after []record, id string) {
	for _, r := range after {
		if a := r.Attachment; a != nil && a.ToolUseID == id {
			switch a.Type {
			case "hook_stopped_continuation":
				// Claude Code records a stop as this alone.
				st.Stopped, st.RecordedDecision = a.Message, "stop"
			case "hook_success":
				var then Step
				then.answer([]byte(a.Stdout))
				st.RecordedDecision = then.Decision
			}
		}
		if r.Message == nil {
			continue
		}
		for _, b := range r.Message.Content {
			switch {
			case b.Type == "tool_use" && st.Recorded != "":
				return // the next call
			case b.Type == "tool_result" && b.ToolUseID == id:
				st.Recorded, st.Failed = resultText(b.Content), b.IsError
			}
		}
	}
}

func resultText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(c, &parts)
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// Run replays every session in a temporary folder, which it removes, and
// writes the story to w.
func Run(w io.Writer) error {
	dir, err := os.MkdirTemp("", "runaway-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "runaway demo: sessions that Claude Code %s recorded against a scripted model, replayed\n", agentVersion)
	fmt.Fprintf(bw, "through runaway's hook with its default limits. Nothing is installed or changed: the\n")
	fmt.Fprintf(bw, "replay's state is in a temporary folder, removed at the end.\n")
	for i, s := range Sessions {
		sub := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(sub, 0o700); err != nil {
			return err
		}
		steps, err := Replay(s, sub)
		if err != nil {
			return fmt.Errorf("replaying %s: %w", s.File, err)
		}
		fmt.Fprintf(bw, "\n%d. %s: %s\n", i+1, strings.ToUpper(s.Title[:1])+s.Title[1:], s.Story)
		show(bw, steps)
	}
	fmt.Fprintf(bw, "\nTo guard your own agents: runaway setup (it shows what it will change and asks first).\n")
	return nil
}

// agentVersion is the Claude Code that recorded the sessions.
const agentVersion = "2.1.332"

// show writes the steps as the person would have seen them: calls that
// ran, one line each; runaway's decisions with Claude Code's display.
func show(w io.Writer, steps []Step) {
	for _, st := range steps {
		call := fmt.Sprintf("  call %-2d %s(%s)", st.N, st.Tool, st.Command)
		switch st.Decision {
		case "":
			fmt.Fprintf(w, "%s  ran%s\n", call, outcome(st))
		case "warn":
			fmt.Fprintf(w, "%s  ran%s\n", call, outcome(st))
			fmt.Fprintf(w, "           runaway warns; Claude Code shows the person: %s\n", st.Message)
		case "ask":
			fmt.Fprintf(w, "%s  runaway asks the person; Claude Code shows:\n", call)
			fmt.Fprintf(w, "             Hook PreToolUse:%s requires confirmation: %s\n", st.Tool, st.Reason)
			fmt.Fprintf(w, "             Do you want to proceed?  1. Yes  2. No\n")
			fmt.Fprintf(w, "           (recorded in claude -p, where nobody can answer: refused, and the model reads %q)\n", firstLine(st.Recorded))
		case "deny":
			fmt.Fprintf(w, "%s  runaway denies it; the model reads: %s\n", call, firstLine(st.Recorded))
		case "stop":
			fmt.Fprintf(w, "%s  runaway ends the turn; Claude Code shows:\n", call)
			fmt.Fprintf(w, "             PreToolUse:%s hook stopped continuation: %s\n", st.Tool, cmpOr(st.Stopped, st.Message))
			if allow := allowCommand(st.Reason + " " + st.Message); allow != "" {
				fmt.Fprintf(w, "           and to let the session go on, the person runs: %s\n", allow)
			}
		}
	}
}

func outcome(st Step) string {
	if st.Failed {
		return ", failed: " + firstLine(st.Recorded)
	}
	return ""
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 110 {
		s = s[:107] + "..."
	}
	return s
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// allowCommand is the `runaway allow …` command a stop message names.
func allowCommand(s string) string {
	i := strings.Index(s, "runaway allow ")
	if i < 0 {
		return ""
	}
	cmd := s[i:]
	if j := strings.IndexAny(cmd, "`;\n"); j >= 0 {
		cmd = cmd[:j]
	}
	return strings.TrimRight(cmd, ". ")
}
