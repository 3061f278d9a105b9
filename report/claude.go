package report

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/transcripts"
)

// claudeSource reads Claude Code's transcripts: <config>/projects/<project>/<session>.jsonl,
// with the session's subagent files (which transcripts.ReadClaude finds).
type claudeSource struct{}

func (claudeSource) agent() Agent { return Claude }

// claudeRoots are Claude Code's config folders: $CLAUDE_CONFIG_DIR (a
// comma-separated list is taken, as other tools take it), else ~/.claude
// and the XDG folder newer versions use.
func claudeRoots(env Env) []string {
	if v := env("CLAUDE_CONFIG_DIR"); v != "" {
		var roots []string
		for _, r := range strings.Split(v, ",") {
			if r = strings.TrimSpace(r); r != "" {
				roots = append(roots, r)
			}
		}
		return roots
	}
	return []string{filepath.Join(home(env), ".claude"), filepath.Join(xdg(env, "XDG_CONFIG_HOME", ".config"), "claude")}
}

func (claudeSource) sessions(env Env, _ *cache, n *notes) []SessionRef {
	var out []SessionRef
	for _, root := range claudeRoots(env) {
		projects := filepath.Join(root, "projects")
		for _, p := range listDir(projects, n) {
			if !p.IsDir() {
				continue
			}
			dir := filepath.Join(projects, p.Name())
			for _, e := range listDir(dir, n) {
				name := e.Name()
				path := filepath.Join(dir, name)
				if !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") || !sessionFile(projects, path, e, n) {
					continue
				}
				out = append(out, SessionRef{Agent: Claude, Main: path, ID: strings.TrimSuffix(name, ".jsonl"), Project: p.Name()})
			}
		}
	}
	return out
}

func (claudeSource) read(ctx context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (bool, error) {
	var again restartWatch
	_, err := transcripts.ReadClaude(ctx, s.Main, &st.Pos, transcripts.Sink{
		Response: func(r transcripts.Response) {
			rec := priced(p, r)
			if r.MessageID != "" {
				// Claude Code's message and request ids are unique to an
				// API response: a copy of the session repeats them.
				rec.Key = responseKey(r.MessageID, r.RequestID)
			}
			add(rec)
		},
		Counted: &again,
	})
	return again.restarted, err
}

func (claudeSource) marks(s SessionRef, st *sessionState) ([]transcripts.FileMark, []string, bool) {
	if st.Pos.ScanMtime == 0 {
		// The project folder could not be searched for subagent files, or
		// one had no first line yet: it is searched again next time.
		return nil, nil, false
	}
	// The project folder (older subagent files beside the session's, and
	// the session's own folder made), the session's folder and every
	// folder under its subagents/.
	dir := filepath.Dir(s.Main)
	session := filepath.Join(dir, strings.TrimSuffix(filepath.Base(s.Main), ".jsonl"))
	dirs := []string{dir, session}
	_ = filepath.WalkDir(filepath.Join(session, "subagents"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	return st.Pos.Marks(), dirs, true
}

// restartWatch stands in for the readers' record of what a file yielded:
// it keeps nothing, and notes when a reader asks (which it does only for a
// file read again from the start), so the report makes that session again
// from nothing rather than keep every key of every session.
type restartWatch struct{ restarted bool }

func (w *restartWatch) Add(uint64) {}
func (w *restartWatch) Has(uint64) bool {
	w.restarted = true
	return false
}

// priced is a response as a record, priced: the part a later line added is
// priced as cost(Usage) − cost(Counted), as the hook prices it, so that
// whole-request rules (long-context rates) stay right.
func priced(p Pricer, r transcripts.Response) Record {
	if r.Subscription {
		// The agent's plan billed it in its own units: no dollar rate
		// applies, and none is made up.
		rec := Record{Model: r.Model, Time: r.Time.Unix(), Usage: r.Usage, Counted: r.Counted, Premium: r.Premium}
		if r.Time.IsZero() {
			rec.Time = 0
		}
		return rec
	}
	usd, est := p.Cost(r.Model, r.Usage, r.Time)
	if r.Counted != (transcripts.Usage{}) {
		was, west := p.Cost(r.Model, r.Counted, r.Time)
		usd -= was
		est = est || west
	}
	rec := Record{Model: r.Model, Time: r.Time.Unix(), Usage: r.Usage, Counted: r.Counted, USD: usd, Estimated: est}
	if r.Time.IsZero() {
		rec.Time = 0
	}
	return rec
}
