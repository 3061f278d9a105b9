package report

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/transcripts"
)

// geminiSource reads Gemini CLI's sessions:
// <home>/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl, with the
// session's subagents' files (which transcripts.ReadGemini finds).
type geminiSource struct{}

func (geminiSource) agent() Agent { return Gemini }

func geminiRoot(env Env) string {
	h := env("GEMINI_CLI_HOME")
	if h == "" {
		h = home(env)
	}
	return filepath.Join(h, ".gemini")
}

func (geminiSource) sessions(env Env, c *cache, n *notes) []SessionRef {
	root := geminiRoot(env)
	tmp := filepath.Join(root, "tmp")
	var out []SessionRef
	for _, p := range listDir(tmp, n) {
		if !p.IsDir() {
			continue
		}
		chats := filepath.Join(tmp, p.Name(), "chats")
		for _, e := range listDir(chats, n) {
			name := e.Name()
			path := filepath.Join(chats, name)
			if !strings.HasPrefix(name, "session-") || !strings.HasSuffix(name, ".jsonl") || !sessionFile(root, path, e, n) {
				continue
			}
			id, ok := c.GeminiIDs[path]
			if !ok {
				if id = transcripts.GeminiSessionID(path); id == "" {
					continue // no header yet
				}
				c.GeminiIDs[path] = id // a header is written once
			}
			c.metaSeen[path] = true
			out = append(out, SessionRef{Agent: Gemini, Main: path, ID: id, Project: p.Name()})
		}
	}
	return out
}

func (geminiSource) read(ctx context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (bool, error) {
	var again restartWatch
	_, err := transcripts.ReadGemini(ctx, s.Main, &st.Pos, transcripts.Sink{
		Response: func(r transcripts.Response) { add(priced(p, r)) },
		Counted:  &again,
	})
	return again.restarted, err
}

func (geminiSource) marks(s SessionRef, st *sessionState) ([]transcripts.FileMark, []string, bool) {
	if st.Pos.Root == "" {
		return nil, nil, false
	}
	// chats/ (where a subagent's folder is made), the session's folder and
	// each subagent's, where theirs are.
	chats := filepath.Dir(s.Main)
	marks := st.Pos.Marks()
	dirs := []string{chats, filepath.Join(chats, st.Pos.Root)}
	for _, m := range marks {
		if m.Path != s.Main {
			dirs = append(dirs, filepath.Join(chats, strings.TrimSuffix(filepath.Base(m.Path), ".jsonl")))
		}
	}
	return marks, dirs, true
}
