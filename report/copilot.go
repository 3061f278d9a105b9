package report

import (
	"context"
	"path/filepath"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// copilotSource reads GitHub Copilot CLI's sessions:
// <COPILOT_HOME or ~/.copilot>/session-state/<id>/events.jsonl, its
// subagents' requests in it.
type copilotSource struct{}

func (copilotSource) agent() Agent { return Copilot }

func (copilotSource) sessions(env Env, _ *cache, n *notes) []SessionRef {
	root := agent.Of(agent.Copilot).ConfigDir(func(k string) string {
		if k == "HOME" {
			return home(env)
		}
		return env(k)
	})
	if root == "" {
		return nil
	}
	states := filepath.Join(root, "session-state")
	var out []SessionRef
	for _, d := range listDir(states, n) {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(states, d.Name())
		for _, e := range listDir(dir, n) {
			path := filepath.Join(dir, e.Name())
			if e.Name() != transcripts.CopilotEventsName || !sessionFile(root, path, e, n) {
				continue
			}
			out = append(out, SessionRef{Agent: Copilot, Main: path, ID: d.Name(), Project: copilotProject(path)})
		}
	}
	return out
}

// copilotProject is the session's folder, from its workspace.yaml's cwd;
// "" when it has none.
func copilotProject(events string) string {
	return transcripts.CopilotCwd(filepath.Join(filepath.Dir(events), "workspace.yaml"))
}

func (copilotSource) read(ctx context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (bool, error) {
	var again restartWatch
	_, err := transcripts.ReadCopilot(ctx, s.Main, &st.Pos, transcripts.Sink{
		Response: func(r transcripts.Response) { add(priced(p, r)) },
		Counted:  &again,
	})
	return again.restarted, err
}

// marks: a session is one file, which new requests of its subagents are
// appended to as well.
func (copilotSource) marks(_ SessionRef, st *sessionState) ([]transcripts.FileMark, []string, bool) {
	m := st.Pos.Marks()
	return m, nil, len(m) > 0
}
