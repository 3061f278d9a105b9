package report

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/runaway-guard/runaway/transcripts"
)

// codexSource reads Codex's rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl
// and the flat archived_sessions/ (.jsonl or, after a week, .jsonl.zst). A
// session is a root thread with its subagents' and forks' rollouts.
type codexSource struct{}

func (codexSource) agent() Agent { return Codex }

func codexRoot(env Env) string {
	if v := env("CODEX_HOME"); v != "" {
		return v
	}
	return filepath.Join(home(env), ".codex")
}

// codexMetaEntry is what a rollout's first line says, kept in the cache:
// it never changes once written.
type codexMetaEntry struct {
	Thread string `json:"t"`
	Root   string `json:"r,omitempty"`
	Parent string `json:"p,omitempty"`
	Cwd    string `json:"c,omitempty"`
}

func (codexSource) sessions(env Env, c *cache, n *notes) []SessionRef {
	root := codexRoot(env)
	var files []string
	sessions := filepath.Join(root, "sessions")
	for _, y := range listDir(sessions, n) {
		for _, m := range listDir(filepath.Join(sessions, y.Name()), n) {
			for _, d := range listDir(filepath.Join(sessions, y.Name(), m.Name()), n) {
				dir := filepath.Join(sessions, y.Name(), m.Name(), d.Name())
				for _, e := range listDir(dir, n) {
					if isRollout(e.Name()) && sessionFile(root, filepath.Join(dir, e.Name()), e, n) {
						files = append(files, filepath.Join(dir, e.Name()))
					}
				}
			}
		}
	}
	archived := filepath.Join(root, "archived_sessions")
	for _, e := range listDir(archived, n) {
		if isRollout(e.Name()) && sessionFile(root, filepath.Join(archived, e.Name()), e, n) {
			files = append(files, filepath.Join(archived, e.Name()))
		}
	}

	metas := map[string]codexMetaEntry{} // by thread id
	paths := map[string]string{}         // thread id → its rollout
	for _, f := range files {
		m, ok := c.CodexMeta[f]
		if !ok {
			meta, err := transcripts.ReadCodexMeta(f)
			if err != nil {
				// No session_meta yet (a rollout being created), or not a
				// rollout: it is looked at again next time.
				continue
			}
			m = codexMetaEntry{Thread: meta.ThreadID, Root: meta.RootID, Parent: meta.ParentID, Cwd: meta.Cwd}
			c.CodexMeta[f] = m
		}
		c.metaSeen[f] = true
		if prev, dup := paths[m.Thread]; dup {
			n.add("not read twice: %s holds the same Codex thread as %s", f, prev)
			continue
		}
		paths[m.Thread] = f
		metas[m.Thread] = m
	}
	// Each thread goes to its session's root: session_meta's session id,
	// or for older rollouts without one, the parent chain walked up.
	rootOf := func(t string) string {
		for range 16 {
			m := metas[t]
			switch {
			case m.Root != "" && m.Root != m.Thread:
				if _, ok := metas[m.Root]; ok {
					return m.Root
				}
				return t
			case m.Parent != "" && m.Parent != m.Thread:
				if _, ok := metas[m.Parent]; !ok {
					return t
				}
				t = m.Parent
			default:
				return t
			}
		}
		return t
	}
	groups := map[string][]string{}
	for t := range metas {
		r := rootOf(t)
		groups[r] = append(groups[r], paths[t])
	}
	var out []SessionRef
	for r, fs := range groups {
		sort.Strings(fs)
		main := paths[r]
		// The root's rollout first, then the others by name (their time).
		for i, f := range fs {
			if f == main {
				fs[0], fs[i] = fs[i], fs[0]
				break
			}
		}
		out = append(out, SessionRef{Agent: Codex, Main: main, ID: r, Project: metas[r].Cwd, Files: fs})
	}
	return out
}

func (codexSource) marks(s SessionRef, st *sessionState) ([]transcripts.FileMark, []string, bool) {
	// The session's rollouts are listed anew each time (SessionRef.Files):
	// the marks are theirs, in that order.
	var files []transcripts.FileMark
	for _, f := range s.Files {
		pos, ok := st.Files[f]
		if !ok {
			return nil, nil, false
		}
		files = append(files, pos.Marks()...)
	}
	return files, nil, true
}

func isRollout(name string) bool {
	return strings.HasPrefix(name, "rollout-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst"))
}

func (codexSource) read(ctx context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (bool, error) {
	if st.Files == nil {
		st.Files = map[string]transcripts.Position{}
	}
	for f := range st.Files {
		if !slices.Contains(s.Files, f) {
			// A rollout read before is gone (archived under a new name):
			// the session is made again from the files it has now.
			return true, nil
		}
	}
	var again restartWatch
	for _, f := range s.Files {
		pos := st.Files[f]
		_, err := transcripts.ReadCodexRollout(ctx, f, &pos, transcripts.Sink{
			Response: func(r transcripts.Response) { add(priced(p, r)) },
			Counted:  &again,
		})
		st.Files[f] = pos
		if err != nil {
			if os.IsNotExist(err) {
				continue // archived meanwhile: found under its new name next time
			}
			return again.restarted, err
		}
	}
	return again.restarted, nil
}
