package report

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"

	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/transcripts"
)

// cacheVersion changes whenever what a cache holds would be read
// differently by this build: an older cache is then read again from the
// sessions, never trusted.
const cacheVersion = 1

// CacheName is the cache's file name in runaway's state folder.
const CacheName = "report-cache.json"

// slot is a quarter hour, as Unix seconds / 900.
const slotSeconds = 900

// bucket is what one session spent on one model in one quarter hour.
type bucket struct {
	Slot      int64             `json:"s"`
	Model     string            `json:"m"`
	Usage     transcripts.Usage `json:"u"`
	Responses int               `json:"n"`
	USD       float64           `json:"d"`
	// EstimatedUSD is the part of USD priced by an estimate (a model the
	// price table does not know).
	EstimatedUSD float64 `json:"e,omitempty"`
}

// sessionState is one session in the cache: where its reads stopped and
// what they yielded, bucketed.
type sessionState struct {
	Agent   Agent  `json:"a"`
	ID      string `json:"id"`
	Project string `json:"p,omitempty"`
	// Pos is the transcripts readers' position (Claude Code, Gemini CLI);
	// Files is one position per rollout for Codex.
	Pos   transcripts.Position            `json:"pos,omitzero"`
	Files map[string]transcripts.Position `json:"files,omitempty"`
	// OpenCode: the newest message update already read, and what each
	// message yielded (a message is rewritten while it streams).
	Mark     int64             `json:"mark,omitempty"`
	Messages map[string]Record `json:"msgs,omitempty"`

	Buckets []bucket `json:"b,omitempty"`
	// Dups counts responses this session repeated from another one.
	Dups int `json:"dups,omitempty"`
	// Last is the newest response's time (Unix seconds).
	Last int64 `json:"last,omitempty"`
	// Shared: the session holds responses another session holds too (a
	// copy); making it again makes every session again.
	Shared bool `json:"shared,omitempty"`
}

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
	if r.Estimated {
		b.EstimatedUSD += r.USD
	}
	s.Last = max(s.Last, r.Time)
}

// cache is everything a report keeps between runs.
type cache struct {
	Version int `json:"version"`
	// Prices fingerprints the price table the buckets were priced with.
	Prices   string                   `json:"prices"`
	Sessions map[string]*sessionState `json:"sessions"`
	// Keys maps each counted response (its 64-bit key) to the session that
	// counted it (a 32-bit hash of the session's cache id) and the usage
	// counted for it: 8 + 4 bytes and the usage's fields as varints.
	Keys []byte `json:"keys,omitempty"`
	// CodexMeta is each rollout's first line, by path; OpenCodeMarks the
	// newest message update read from each OpenCode database.
	CodexMeta     map[string]codexMetaEntry `json:"codex_meta,omitempty"`
	OpenCodeMarks map[string]int64          `json:"opencode_marks,omitempty"`

	owners   map[uint64]counted
	byOwner  map[uint32]*sessionState
	metaSeen map[string]bool
}

func newCache(prices string) *cache {
	c := &cache{Version: cacheVersion, Prices: prices, Sessions: map[string]*sessionState{}}
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
	var c cache
	if json.Unmarshal(b, &c) != nil || c.Version != cacheVersion || c.Prices != prices || c.Sessions == nil {
		return newCache(prices)
	}
	c.owners = make(map[uint64]counted, len(c.Keys)/20)
	for b := c.Keys; len(b) >= 12; {
		k := binary.LittleEndian.Uint64(b)
		v := counted{owner: binary.LittleEndian.Uint32(b[8:])}
		b = b[12:]
		for _, f := range v.fields() {
			n, w := binary.Uvarint(b)
			if w <= 0 {
				return newCache(prices)
			}
			*f, b = int64(n), b[w:]
		}
		c.owners[k] = v
	}
	c.init()
	return &c
}

// save writes the cache through a temp file and a rename, so a report
// that stops half way leaves the old cache whole.
func (c *cache) save(path string) error {
	for p := range c.CodexMeta {
		if !c.metaSeen[p] {
			delete(c.CodexMeta, p) // the rollout is gone
		}
	}
	c.Keys = c.Keys[:0]
	for k, v := range c.owners {
		c.Keys = binary.LittleEndian.AppendUint64(c.Keys, k)
		c.Keys = binary.LittleEndian.AppendUint32(c.Keys, v.owner)
		for _, f := range v.fields() {
			c.Keys = binary.AppendUvarint(c.Keys, uint64(max(*f, 0)))
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Fast: a cache lost in a crash is only read again from the sessions.
	return ownfiles.WriteFile(path, b, 0o600, ownfiles.Fast)
}

// counted is a response counted once across sessions: which session
// counted it, and the largest usage counted for it.
type counted struct {
	owner uint32
	usage transcripts.Usage
}

func (c *counted) fields() []*int64 {
	u := &c.usage
	return []*int64{&u.Input, &u.Output, &u.CacheRead, &u.CacheCreation, &u.CacheWrite5m, &u.CacheWrite1h, &u.WebSearch}
}

// owner is the 32-bit name of a session in Keys.
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
