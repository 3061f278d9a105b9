package report

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"

	"github.com/runaway-guard/runaway/transcripts"
)

// The cache file is binary: a report that finds little new spends its time
// reading and writing it, and JSON cost ten times what the rest of such a
// report did. Integers are varints, strings and byte runs are a length and
// their bytes, floats their 8 bytes. Each session's reader state stays the
// JSON bytes it was saved as until the session has something new (see
// sessionState.raw).
//
//	magic, version, prices
//	sessions: count, then each: cache id, agent, id, project, dups, last,
//	  shared, buckets (count; slot, model, 7 usage fields, responses, usd,
//	  estimated usd), marks (count+1, 0 for none; path, offset, file id),
//	  dirs (count; path, mtime), reader state
//	keys: count, then each: key (8 bytes), owner (4 bytes), 7 usage fields
//	codex meta: count, then path, thread, root, parent, cwd
//	opencode marks: count, then database, mark
//	gemini ids: count, then path, id
const cacheMagic = "runaway report cache\n"

var errCache = errors.New("report: cache file damaged")

type enc struct{ b []byte }

func (e *enc) uint(v uint64)   { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) int(v int64)     { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) str(s string)    { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) bytes(b []byte)  { e.uint(uint64(len(b))); e.b = append(e.b, b...) }
func (e *enc) float(f float64) { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(f)) }
func (e *enc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *enc) usageOf(u *transcripts.Usage) {
	e.int(u.Input)
	e.int(u.Output)
	e.int(u.CacheRead)
	e.int(u.CacheCreation)
	e.int(u.CacheWrite5m)
	e.int(u.CacheWrite1h)
	e.int(u.WebSearch)
}

// dec reads what enc wrote; the first damage it meets sticks in err.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail() { d.err, d.b = errCache, nil }

func (d *dec) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) bytes() []byte {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) str() string { return string(d.bytes()) }

func (d *dec) fixed(n int) []byte {
	if len(d.b) < n {
		d.fail()
		return make([]byte, n)
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) float() float64 { return math.Float64frombits(binary.LittleEndian.Uint64(d.fixed(8))) }
func (d *dec) bool() bool     { return d.fixed(1)[0] == 1 }

// count reads a count of items of at least min bytes each: a count the
// rest of the file cannot hold is damage, not an allocation.
func (d *dec) count(min int) int {
	n := d.uint()
	if n > uint64(len(d.b)/min) {
		d.fail()
		return 0
	}
	return int(n)
}

// usageOf reads a usage's counts, in enc.usageOf's order.
func (d *dec) usageOf(u *transcripts.Usage) {
	u.Input, u.Output, u.CacheRead = d.int(), d.int(), d.int()
	u.CacheCreation, u.CacheWrite5m, u.CacheWrite1h, u.WebSearch = d.int(), d.int(), d.int(), d.int()
}

// encode writes the cache in the file's layout, sessions and keys in a
// fixed order so that an unchanged cache encodes to the same bytes.
func (c *cache) encode() []byte {
	e := &enc{b: make([]byte, 0, len(c.loaded)+4096)}
	e.b = append(e.b, cacheMagic...)
	e.uint(cacheVersion)
	e.str(c.Prices)
	ids := sortedKeys(c.Sessions)
	e.uint(uint64(len(ids)))
	for _, id := range ids {
		s := c.Sessions[id]
		e.str(id)
		e.str(string(s.Agent))
		e.str(s.ID)
		e.str(s.Project)
		e.int(int64(s.Dups))
		e.int(s.Last)
		e.bool(s.Shared)
		e.uint(uint64(len(s.Buckets)))
		for i := range s.Buckets {
			b := &s.Buckets[i]
			e.int(b.Slot)
			e.str(b.Model)
			e.usageOf(&b.Usage)
			e.int(int64(b.Responses))
			e.float(b.USD)
			e.float(b.EstimatedUSD)
			e.float(b.Premium)
		}
		if s.marks == nil {
			e.uint(0)
		} else {
			e.uint(uint64(len(s.marks)) + 1)
			for _, m := range s.marks {
				e.str(m.Path)
				e.int(m.Off)
				e.str(m.ID)
			}
		}
		e.uint(uint64(len(s.dirs)))
		for _, d := range s.dirs {
			e.str(d.Path)
			e.int(d.Mtime)
		}
		raw := s.raw
		if raw == nil {
			raw, _ = json.Marshal(&s.readerState) // plain values: it cannot fail
		}
		e.bytes(raw)
	}
	keys := make([]uint64, 0, len(c.owners))
	for k := range c.owners {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.uint(uint64(len(keys)))
	for _, k := range keys {
		v := c.owners[k]
		e.b = binary.LittleEndian.AppendUint64(e.b, k)
		e.b = binary.LittleEndian.AppendUint32(e.b, v.owner)
		e.usageOf(&v.usage)
	}
	paths := sortedKeys(c.CodexMeta)
	e.uint(uint64(len(paths)))
	for _, p := range paths {
		m := c.CodexMeta[p]
		e.str(p)
		e.str(m.Thread)
		e.str(m.Root)
		e.str(m.Parent)
		e.str(m.Cwd)
	}
	dbs := sortedKeys(c.OpenCodeMarks)
	e.uint(uint64(len(dbs)))
	for _, db := range dbs {
		e.str(db)
		e.int(c.OpenCodeMarks[db])
	}
	paths = sortedKeys(c.GeminiIDs)
	e.uint(uint64(len(paths)))
	for _, p := range paths {
		e.str(p)
		e.str(c.GeminiIDs[p])
	}
	return e.b
}

// decodeCache reads a cache file; one of another version or damaged is an
// error (the report then reads everything again).
func decodeCache(b []byte) (*cache, error) {
	if len(b) < len(cacheMagic) || string(b[:len(cacheMagic)]) != cacheMagic {
		return nil, errCache
	}
	d := &dec{b: b[len(cacheMagic):]}
	if d.uint() != cacheVersion {
		return nil, errCache
	}
	c := &cache{Prices: d.str()}
	n := d.count(8)
	c.Sessions = make(map[string]*sessionState, n)
	for range n {
		id := d.str()
		s := &sessionState{Agent: Agent(d.str()), ID: d.str(), Project: d.str()}
		s.Dups = int(d.int())
		s.Last = d.int()
		s.Shared = d.bool()
		s.Buckets = make([]bucket, d.count(25))
		for i := range s.Buckets {
			b := &s.Buckets[i]
			b.Slot = d.int()
			b.Model = d.str()
			d.usageOf(&b.Usage)
			b.Responses = int(d.int())
			b.USD = d.float()
			b.EstimatedUSD = d.float()
			b.Premium = d.float()
		}
		if m := d.count(1); m > 0 {
			s.marks = make([]transcripts.FileMark, m-1)
			for i := range s.marks {
				s.marks[i] = transcripts.FileMark{Path: d.str(), Off: d.int(), ID: d.str()}
			}
		}
		if m := d.count(2); m > 0 {
			s.dirs = make([]dirMark, m)
			for i := range s.dirs {
				s.dirs[i] = dirMark{Path: d.str(), Mtime: d.int()}
			}
		}
		s.raw = d.bytes()
		if d.err != nil {
			return nil, d.err
		}
		c.Sessions[id] = s
	}
	n = d.count(19)
	c.owners = make(map[uint64]counted, n)
	for range n {
		k := binary.LittleEndian.Uint64(d.fixed(8))
		v := counted{owner: binary.LittleEndian.Uint32(d.fixed(4))}
		d.usageOf(&v.usage)
		c.owners[k] = v
	}
	n = d.count(5)
	c.CodexMeta = make(map[string]codexMetaEntry, n)
	for range n {
		p := d.str()
		c.CodexMeta[p] = codexMetaEntry{Thread: d.str(), Root: d.str(), Parent: d.str(), Cwd: d.str()}
	}
	n = d.count(2)
	c.OpenCodeMarks = make(map[string]int64, n)
	for range n {
		db := d.str()
		c.OpenCodeMarks[db] = d.int()
	}
	n = d.count(2)
	c.GeminiIDs = make(map[string]string, n)
	for range n {
		p := d.str()
		c.GeminiIDs[p] = d.str()
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errCache
	}
	return c, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
