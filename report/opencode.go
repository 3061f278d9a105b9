package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/runaway-guard/runaway/transcripts"
)

// opencodeSource reads OpenCode's sessions from its SQLite database
// ($XDG_DATA_HOME/opencode/opencode.db, or $OPENCODE_DB), through the
// system's sqlite3 program: a Go SQLite library would run its start-up on
// every hook call of this one binary (modernc.org/sqlite's took 6 ms, more
// than a whole hook call), and only a report needs it.
type opencodeSource struct{}

func (opencodeSource) agent() Agent { return OpenCode }

// opencodeDB is OpenCode's database: $OPENCODE_DB (absolute, or relative
// to the data folder), else opencode.db in the data folder.
func opencodeDB(env Env) string {
	data := filepath.Join(xdg(env, "XDG_DATA_HOME", filepath.Join(".local", "share")), "opencode")
	if v := env("OPENCODE_DB"); v != "" {
		if filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(data, v)
	}
	return filepath.Join(data, "opencode.db")
}

// ocMessage is an assistant message's row: OpenCode keeps its usage and
// its own cost in the message's JSON.
type ocMessage struct {
	ID         string  `json:"id"`
	Session    string  `json:"session_id"`
	Updated    int64   `json:"time_updated"`
	Created    int64   `json:"created"`
	Model      string  `json:"model"`
	Provider   string  `json:"provider"`
	Cost       float64 `json:"cost"`
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	Reasoning  int64   `json:"reasoning"`
	CacheRead  int64   `json:"cache_read"`
	CacheWrite int64   `json:"cache_write"`
}

type ocSession struct {
	ID        string `json:"id"`
	Parent    string `json:"parent_id"`
	Directory string `json:"directory"`
}

const ocSessionsQuery = `SELECT id, coalesce(parent_id,'') AS parent_id, coalesce(directory,'') AS directory FROM session`

// ocMessagesQuery takes the messages written or rewritten since a mark
// (milliseconds); OpenCode rewrites a message while it streams.
const ocMessagesQuery = `SELECT id, session_id, time_updated,
 coalesce(json_extract(data,'$.time.created'),time_created) AS created,
 coalesce(json_extract(data,'$.modelID'),'') AS model,
 coalesce(json_extract(data,'$.providerID'),'') AS provider,
 coalesce(json_extract(data,'$.cost'),0) AS cost,
 coalesce(json_extract(data,'$.tokens.input'),0) AS input,
 coalesce(json_extract(data,'$.tokens.output'),0) AS output,
 coalesce(json_extract(data,'$.tokens.reasoning'),0) AS reasoning,
 coalesce(json_extract(data,'$.tokens.cache.read'),0) AS cache_read,
 coalesce(json_extract(data,'$.tokens.cache.write'),0) AS cache_write
 FROM message WHERE json_extract(data,'$.role')='assistant' AND time_updated >= %d ORDER BY time_updated`

// sqlite3 runs one read-only query and decodes its JSON rows.
func sqlite3(db, query string, rows any) error {
	out, err := exec.Command("sqlite3", "-readonly", "-json", "file:"+db+"?mode=ro", query).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return fmt.Errorf("sqlite3: %s", bytes.TrimSpace(ee.Stderr))
		}
		return err
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return nil // no rows: sqlite3 prints nothing
	}
	return json.Unmarshal(out, rows)
}

func (opencodeSource) sessions(env Env, c *cache, n *notes) []SessionRef {
	db := opencodeDB(env)
	if _, err := os.Stat(db); err != nil {
		return nil
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		n.add("OpenCode's sessions in %s are not read: reading them needs the sqlite3 program (install it, e.g. sudo apt install sqlite3, or brew install sqlite)", db)
		return nil
	}
	var sessions []ocSession
	if err := sqlite3(db, ocSessionsQuery, &sessions); err != nil {
		n.add("cannot read OpenCode's sessions in %s: %v", db, err)
		return nil
	}
	mark := c.OpenCodeMarks[db]
	var msgs []ocMessage
	if err := sqlite3(db, fmt.Sprintf(ocMessagesQuery, mark), &msgs); err != nil {
		n.add("cannot read OpenCode's messages in %s: %v", db, err)
		return nil
	}
	// A subagent's session counts in its root session, as Claude Code's
	// and Codex's subagents do.
	byID := map[string]ocSession{}
	for _, s := range sessions {
		byID[s.ID] = s
	}
	rootOf := func(id string) string {
		for range 16 {
			s, ok := byID[id]
			if !ok || s.Parent == "" || s.Parent == id {
				return id
			}
			id = s.Parent
		}
		return id
	}
	refs := map[string]*SessionRef{}
	var order []string
	for _, s := range sessions {
		r := rootOf(s.ID)
		if _, ok := refs[r]; !ok {
			refs[r] = &SessionRef{Agent: OpenCode, Main: db, Key: r, ID: r, Project: byID[r].Directory}
			order = append(order, r)
		}
	}
	for _, m := range msgs {
		r := rootOf(m.Session)
		ref, ok := refs[r]
		if !ok {
			ref = &SessionRef{Agent: OpenCode, Main: db, Key: r, ID: r}
			refs[r] = ref
			order = append(order, r)
		}
		ref.opencode = append(ref.opencode, m)
		mark = max(mark, m.Updated)
	}
	c.OpenCodeMarks[db] = mark
	out := make([]SessionRef, 0, len(order))
	for _, r := range order {
		out = append(out, *refs[r])
	}
	return out
}

func (opencodeSource) read(_ context.Context, s SessionRef, st *sessionState, p Pricer, add func(Record)) (bool, error) {
	if st.Messages == nil {
		st.Messages = map[string]Record{}
	}
	for _, m := range s.opencode {
		u := transcripts.Usage{Input: m.Input, Output: m.Output + m.Reasoning, CacheRead: m.CacheRead, CacheCreation: m.CacheWrite}
		// OpenCode's own cost, as the hook takes it; a model it prices at
		// nothing is priced by runaway's table, as an estimate.
		usd, est := m.Cost, false
		if usd == 0 && u.Total() > 0 {
			usd, _ = p.Cost(m.Model, u, time.UnixMilli(m.Created))
			est = true
		}
		prev := st.Messages[m.ID]
		if prev.Usage == u && prev.USD == usd {
			continue
		}
		rec := Record{Model: m.Model, Time: time.UnixMilli(m.Created).Unix(), Usage: u, Counted: prev.Usage, USD: usd - prev.USD, Estimated: est}
		st.Messages[m.ID] = Record{Usage: u, USD: usd}
		add(rec)
	}
	return false, nil
}

// marks: a database is asked for what is new each time.
func (opencodeSource) marks(SessionRef, *sessionState) ([]transcripts.FileMark, []string, bool) {
	return nil, nil, false
}
