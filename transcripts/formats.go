package transcripts

import (
	"context"
	"path/filepath"

	"github.com/runaway-guard/runaway/agent"
)

// Format is one agent's session files: how they are read, how a session's
// other files are found, how a file is told apart, and what ids they carry.
// Each agent's is in its own file (claude.go, codex.go, gemini.go) and
// listed in Formats.
type Format struct {
	Agent agent.ID
	// Read reads what was appended to the session of the file at path since
	// pos: that file and the session's other files (subagents, forks). See
	// the package doc for the contract. more is true when ctx ended the
	// read early.
	Read func(ctx context.Context, path string, pos *Position, sink Sink) (more bool, err error)
	// discover adds the session's other files to pos, whose first file is
	// main.
	discover func(main string, pos *Position)
	// claims reports whether one decoded line of a file is this agent's.
	claims func(l *probeLine) bool
	// SessionID is the session id the file at path holds, when its name
	// does not say it all (nil or "": the caller's own id stands).
	SessionID func(path string) string
	// Main is the session's main file for a file the agent names in its
	// hook calls (Codex names a subagent's rollout); nil: the file itself.
	Main func(path string) string
	// FirstStays: the first main file named stays the session's while it
	// exists (a Codex session's root rollout).
	FirstStays bool
	// Subagent reports a file that is only ever a subagent's, never a
	// session's main file (nil: none is).
	Subagent func(path string) bool
	// AppendOnly: the agent only ever appends to its main file (Claude
	// Code, Codex), so one that shrinks or is replaced was tampered with;
	// Gemini CLI rewrites its session file whole.
	AppendOnly bool
}

// Formats are the agents' session formats, in the order Detect tries them
// (Gemini CLI and Qwen Code lines carry a sessionId, as Claude Code's do).
var Formats = []*Format{&codexFormat, &geminiFormat, &qwenFormat, &copilotFormat, &claudeFormat}

// noTranscript names the agents whose session files runaway does not
// read, and why: a slice, not a map, so that the hook builds nothing at
// start.
var noTranscript = []struct {
	agent agent.ID
	why   string
}{
	{agent.Cursor, "its transcripts carry no token usage"},
	{agent.OpenCode, "runaway's plugin sends OpenCode's own spend with each call"},
}

// NoTranscript says why runaway reads no session file of the agent, if it
// says so.
func NoTranscript(id agent.ID) (why string, ok bool) {
	for _, n := range noTranscript {
		if n.agent == id {
			return n.why, true
		}
	}
	return "", false
}

// FormatOf returns the session format of an agent.
func FormatOf(id agent.ID) (*Format, bool) {
	for _, f := range Formats {
		if f.Agent == id {
			return f, true
		}
	}
	return nil, false
}

// SessionFiles lists the files Read reads for the session of the file at
// path: that file first, then the session's other files.
func (f *Format) SessionFiles(path string) ([]string, error) {
	main, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	var pos Position
	pos.reset(main)
	pos.file(filepath.Base(main))
	f.discover(main, &pos)
	files := make([]string, len(pos.Files))
	for i, fp := range pos.Files {
		files[i] = pos.absPath(fp.Path)
	}
	return files, nil
}
