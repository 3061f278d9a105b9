package report

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// qwenSource reads Qwen Code's sessions:
// <QWEN_HOME>/projects/<project>/chats/<session id>.jsonl, with the
// session's subagents' transcripts (which transcripts.ReadQwen finds).
type qwenSource struct{}

func (qwenSource) agent() Agent { return agent.Qwen }

func (qwenSource) sessions(env Env, _ *cache, n *notes) []SessionRef {
	root := agent.Of(agent.Qwen).ConfigDir(func(k string) string {
		if k == "HOME" {
			return home(env)
		}
		return env(k)
	})
	projects := filepath.Join(root, "projects")
	var out []SessionRef
	for _, p := range listDir(projects, n) {
		if !p.IsDir() {
			continue
		}
		chats := filepath.Join(projects, p.Name(), "chats")
		for _, e := range listDir(chats, n) {
			name := e.Name()
			path := filepath.Join(chats, name)
			if !strings.HasSuffix(name, ".jsonl") || !sessionFile(root, path, e, n) {
				continue
			}
			out = append(out, SessionRef{Agent: agent.Qwen, Main: path, ID: strings.TrimSuffix(name, ".jsonl"), Project: p.Name()})
		}
	}
	return out
}

func (qwenSource) read(ctx context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (bool, error) {
	var again restartWatch
	_, err := transcripts.ReadQwen(ctx, s.Main, &st.Pos, transcripts.Sink{
		Response: func(r transcripts.Response) { add(priced(p, r)) },
		Counted:  &again,
	})
	return again.restarted, err
}

func (qwenSource) marks(s SessionRef, st *sessionState) ([]transcripts.FileMark, []string, bool) {
	// The project folder (where subagents/ is made), subagents/ and the
	// session's folder in it, where its subagents' transcripts appear.
	project := filepath.Dir(filepath.Dir(s.Main))
	subagents := filepath.Join(project, "subagents")
	return st.Pos.Marks(), []string{project, subagents, filepath.Join(subagents, s.ID)}, true
}
