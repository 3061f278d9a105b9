package report

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/transcripts"
)

// cacheVersion changes whenever what a cache holds would be read
// differently by this build (the file's layout, or what the readers keep in
// their positions): an older cache is then read again from the sessions,
// never trusted.
const cacheVersion = 3

// CacheName is the cache's file name in runaway's state folder;
// legacyCacheName the JSON one of earlier versions, removed when the new
// one is written.
const (
	CacheName       = "report.cache"
	legacyCacheName = "report-cache.json"
)

// slot is a quarter hour, as Unix seconds / 900.
const slotSeconds = 900

// bucket is what one session spent on one model in one quarter hour.
type bucket struct {
	Slot      int64
	Model     string
	Usage     transcripts.Usage
	Responses int
	USD       float64
	// EstimatedUSD is the part of USD priced by an estimate (a model the
	// price table does not know).
	EstimatedUSD float64
	// Premium is what an agent's own plan billed in its units (GitHub
	// Copilot's premium requests), not in USD.
	Premium float64
}

// sessionState is one session in the cache: where its reads stopped and
// what they yielded, bucketed.
type sessionState struct {
	Agent   Agent
	ID      string
	Project string
	readerState

	Buckets []bucket
	// Dups counts responses this session repeated from another one.
	Dups int
	// Last is the newest response's time (Unix seconds).
	Last int64
	// Shared: the session holds responses another session holds too (a
	// copy); making it again makes every session again.
	Shared bool

	// raw is readerState as the cache holds it (JSON), decoded only when
	// the session has something new: an unchanged session costs a stat
	// per file and folder (marks, dirs), not the decoding of its positions.
	raw []byte
	// marks are where the reading of each of the session's files stopped;
	// dirs the folders whose listing finds its files, with their times.
	// Nil marks: the session is read (its state decoded) every time.
	marks []transcripts.FileMark
	dirs  []dirMark
}

// readerState is what the readers keep between reports for one session.
type readerState struct {
	// Pos is the transcripts readers' position (Claude Code, Gemini CLI);
	// Files is one position per rollout for Codex.
	Pos   transcripts.Position            `json:"pos,omitzero"`
	Files map[string]transcripts.Position `json:"files,omitempty"`
	// OpenCode: the newest message update already read, and what each
	// message yielded (a message is rewritten while it streams).
	Mark     int64             `json:"mark,omitempty"`
	Messages map[string]Record `json:"msgs,omitempty"`
}

// dirMark is a folder's modification time (Unix ns) when the session's
// files were last looked for in it; a file added or removed changes it.
type dirMark struct {
	Path  string
	Mtime int64
}

// unchanged reports whether nothing was added to the session's files
// since its last read, and no file added to its folders.
func (s *sessionState) unchanged(ref SessionRef) bool {
	if s.marks == nil {
		return false
	}
	if ref.Files != nil {
		// A session of files listed by its source: the same files.
		if len(ref.Files) != len(s.marks) {
			return false
		}
		for i, f := range ref.Files {
			if s.marks[i].Path != f {
				return false
			}
		}
	}
	for _, m := range s.marks {
		if !m.Unchanged() {
			return false
		}
	}
	for _, d := range s.dirs {
		fi, err := os.Stat(d.Path)
		if err != nil || fi.ModTime().UnixNano() != d.Mtime {
			return false
		}
	}
	return true
}

// decode makes the reader state of a session loaded from the cache
// usable, before the session is read; a state that does not decode is
// read again from nothing.
func (s *sessionState) decode() bool {
	raw := s.raw
	s.raw = nil
	if len(raw) == 0 {
		return true
	}
	return json.Unmarshal(raw, &s.readerState) == nil
}

// mark records where the session's reading stopped, after a read that
// began at start: the marks of its files, and the times of the folders
// src looks for its files in. A folder changed since shortly before the
// read may have gained a file the read missed; the session is then read
// again next time.
func (s *sessionState) mark(src source, ref SessionRef, start time.Time) {
	s.marks, s.dirs = nil, nil
	files, dirs, ok := src.marks(ref, s)
	if !ok {
		return
	}
	var dms []dirMark
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil {
			continue // its parent's time tells when it is made
		}
		if !fi.ModTime().Before(start.Add(-dirSlack)) {
			return
		}
		dms = append(dms, dirMark{Path: d, Mtime: fi.ModTime().UnixNano()})
	}
	s.marks, s.dirs = files, dms
	if s.marks == nil {
		s.marks = []transcripts.FileMark{}
	}
}

// dirSlack is how long before a read a folder must have last changed for
// its time to prove the read saw all of it (file systems keep coarse times).
const dirSlack = 2 * time.Second

// add puts one record into its bucket.
func (s *sessionState) add(r Record) {
	slot := r.Time / slotSeconds
	i := len(s.Buckets) - 1
	for ; i >= 0; i-- {
		if s.Buckets[i].Slot == slot && s.Buckets[i].Model == r.Model {
			break
		}
	}
	if i < 0 {
		s.Buckets = append(s.Buckets, bucket{Slot: slot, Model: r.Model})
		i = len(s.Buckets) - 1
	}
	b := &s.Buckets[i]
	b.Usage = b.Usage.Add(r.Usage).Sub(r.Counted)
	b.Usage.Speed, b.Usage.Geo = "", ""
	if r.Counted == (transcripts.Usage{}) {
		b.Responses++
	}
	b.USD += r.USD
	b.Premium += r.Premium
	if r.Estimated {
		b.EstimatedUSD += r.USD
	}
	s.Last = max(s.Last, r.Time)
}

// cache is everything a report keeps between runs.
type cache struct {
	// Prices fingerprints the price table the buckets were priced with.
	Prices   string
	Sessions map[string]*sessionState
	// CodexMeta is each rollout's first line, by path; OpenCodeMarks the
	// newest message update read from each OpenCode database; GeminiIDs
	// each Gemini CLI session file's id, from its header.
	CodexMeta     map[string]codexMetaEntry
	OpenCodeMarks map[string]int64
	GeminiIDs     map[string]string

	// owners maps each counted response (its 64-bit key) to the session
	// that counted it (a 32-bit hash of the session's cache id) and the
	// usage counted for it.
	owners   map[uint64]counted
	byOwner  map[uint32]*sessionState
	metaSeen map[string]bool
	// loaded is the cache file as read: a report that changed nothing
	// leaves the file alone.
	loaded []byte
}

func newCache(prices string) *cache {
	c := &cache{Prices: prices, Sessions: map[string]*sessionState{}}
	c.init()
	return c
}

func (c *cache) init() {
	if c.owners == nil {
		c.owners = map[uint64]counted{}
	}
	if c.CodexMeta == nil {
		c.CodexMeta = map[string]codexMetaEntry{}
	}
	if c.OpenCodeMarks == nil {
		c.OpenCodeMarks = map[string]int64{}
	}
	if c.GeminiIDs == nil {
		c.GeminiIDs = map[string]string{}
	}
	c.metaSeen = map[string]bool{}
}

// loadCache reads the cache at path; a missing, unreadable, older or
// differently priced cache is an empty one (the report reads everything).
func loadCache(path, prices string) *cache {
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return newCache(prices)
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return newCache(prices)
	}
	c, err := decodeCache(b)
	if err != nil || c.Prices != prices {
		return newCache(prices)
	}
	c.loaded = b
	c.init()
	return c
}

// save writes the cache through a temp file and a rename, so a report
// that stops half way leaves the old cache whole.
func (c *cache) save(path string) error {
	for p := range c.CodexMeta {
		if !c.metaSeen[p] {
			delete(c.CodexMeta, p) // the rollout is gone
		}
	}
	for p := range c.GeminiIDs {
		if !c.metaSeen[p] {
			delete(c.GeminiIDs, p)
		}
	}
	b := c.encode()
	if bytes.Equal(b, c.loaded) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// The JSON cache of earlier versions, replaced by this one.
	os.Remove(filepath.Join(filepath.Dir(path), legacyCacheName))
	// Fast: a cache lost in a crash is only read again from the sessions.
	return ownfiles.WriteFile(path, b, 0o600, ownfiles.Fast)
}

// counted is a response counted once across sessions: which session
// counted it, and the largest usage counted for it.
type counted struct {
	owner uint32
	usage transcripts.Usage
}

// owner is the 32-bit name of a session in the cache's keys.
func owner(id string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()
}

// forget drops the keys a session counted, before it is read again from
// the start.
func (c *cache) forget(id string) {
	o := owner(id)
	for k, v := range c.owners {
		if v.owner == o {
			delete(c.owners, k)
		}
	}
}
