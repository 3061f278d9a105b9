package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// Agent is an agent, as the agent registry names it.
type Agent = agent.ID

// The agents a report reads.
const (
	Claude   = agent.Claude
	Codex    = agent.Codex
	Copilot  = agent.Copilot
	Gemini   = agent.Gemini
	OpenCode = agent.OpenCode
)

// Env looks up an environment variable ("" when unset). Sources take it
// instead of reading os.Getenv, so tests and callers say where the agents'
// folders are.
type Env = agent.Env

// SessionRef is one session a source found.
type SessionRef struct {
	Agent Agent
	// Main is the file the session is read from (for OpenCode: the
	// database); Key tells sessions in one file apart.
	Main    string
	Key     string
	ID      string
	Project string
	// Files, when set, are the session's files read one by one (Codex:
	// the root rollout and its subagents' and forks'); otherwise the
	// reader finds them from Main.
	Files []string

	opencode []ocMessage // OpenCode: the rows new since the last report
}

// id is the cache's name for the session.
func (s SessionRef) id() string { return string(s.Agent) + "\x00" + s.Main + "\x00" + s.Key }

// Record is one priced API response, or the part of one that a later line
// added (Claude Code writes a response's usage on each of its lines, and
// the largest wins).
type Record struct {
	Key       uint64 // 0: the response has no id to count it once by
	Model     string
	Time      int64 // Unix seconds
	Usage     transcripts.Usage
	Counted   transcripts.Usage
	USD       float64
	Estimated bool
	// Premium is what the agent's own plan billed for a response it did
	// not send to the person's key, in its units (GitHub Copilot's premium
	// requests); such a response has no USD.
	Premium float64
}

// Pricer prices one response's usage at the rates of its day, as the hook
// prices it.
type Pricer interface {
	Cost(model string, u transcripts.Usage, at time.Time) (usd float64, estimated bool)
}

// source finds the sessions of one agent and reads one of them.
type source interface {
	agent() Agent
	// sessions lists the sessions under the agent's folders; notes say
	// what could not be looked at.
	sessions(env Env, c *cache, n *notes) []SessionRef
	// read reads what is new in one session since st, calling add for each
	// response; it reports whether st had to start over (a file replaced
	// or cut short), in which case everything st yielded before is void.
	read(ctx context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (restarted bool, err error)
	// marks are, after a read, where the reading of each of the session's
	// files stopped and the folders where new files of it would appear;
	// ok false: no stat can tell the session unchanged, it is read every
	// time.
	marks(s SessionRef, st *sessionState) (files []transcripts.FileMark, dirs []string, ok bool)
}

// sources is every agent a report reads, in the order reports list them.
var sources = []source{claudeSource{}, codexSource{}, geminiSource{}, opencodeSource{}, qwenSource{}, copilotSource{}}

// home is the home folder as env says, else the process's.
func home(env Env) string {
	if h := env("HOME"); h != "" {
		return h
	}
	if h := env("USERPROFILE"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// xdg is an XDG base folder: the variable when it holds an absolute path,
// else home/def.
func xdg(env Env, name, def string) string {
	if v := env(name); v != "" && filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(home(env), def)
}

// inside reports whether path, links resolved, lies under root (also
// resolved): a session file that links out of the agent's folder is not
// read.
func inside(root, path string) bool {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(r, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// listDir lists a folder, noting one that exists but cannot be read.
func listDir(dir string, n *notes) []os.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		n.add("cannot read %s: %v", dir, err)
	}
	return entries
}

// sessionFile reports whether the entry at path is a regular file to read,
// noting a link that leads out of root.
func sessionFile(root, path string, e os.DirEntry, n *notes) bool {
	if e.Type().IsRegular() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if !inside(root, path) {
		n.add("not read: %s links out of %s", path, root)
		return false
	}
	return true
}

// Reads reports whether a report reads the agent's history.
func Reads(a Agent) bool {
	for _, s := range sources {
		if s.agent() == a {
			return true
		}
	}
	return false
}
