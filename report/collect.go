package report

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/runaway-guard/runaway/transcripts"
)

// Options say where to read from and how to price.
type Options struct {
	// Env locates the agents' folders (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME,
	// GEMINI_CLI_HOME, XDG_DATA_HOME, OPENCODE_DB).
	Env Env
	// CachePath is the cache file; "" reads everything and keeps nothing.
	CachePath string
	Pricer    Pricer
	// PricesID fingerprints the price table in use: another one prices
	// everything again.
	PricesID string
	// Progress, when set, is told how many sessions are read so far, of
	// how many that have new bytes.
	Progress func(done, total int)
}

// History is every session's spend, as read.
type History struct {
	Sessions []*sessionState
	// Notes say what a report could not read, and why; a report prints them.
	Notes []string
	// Read is how many sessions had something new to read.
	Read int
}

// notes collects what could not be read, each said once.
type notes struct {
	mu   sync.Mutex
	list []string
	seen map[string]bool
}

func (n *notes) add(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	if !n.seen[msg] {
		n.seen[msg] = true
		n.list = append(n.list, msg)
	}
}

// responseKey identifies an API response across files.
func responseKey(messageID, requestID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(messageID))
	h.Write([]byte{0})
	h.Write([]byte(requestID))
	return h.Sum64() | 1 // never 0, which means "no key"
}

// job is one session to read, and what reading it gave.
type job struct {
	ref       SessionRef
	src       source
	st        *sessionState
	recs      []Record
	restarted bool
	err       error
	done      chan struct{}
}

// Collect reads every agent's sessions, only what is new since the cache
// when there is one, and returns them with the cache brought up to date.
func Collect(ctx context.Context, o Options) (*History, error) {
	c := newCache(o.PricesID)
	if o.CachePath != "" {
		c = loadCache(o.CachePath, o.PricesID)
	}
	h, rebuild := c.collect(ctx, o)
	if rebuild {
		// A session that shared responses with another was made again or
		// is gone: how much each one counted of what they share is known
		// only from reading them all.
		c = newCache(o.PricesID)
		h, _ = c.collect(ctx, o)
	}
	if o.CachePath != "" {
		if err := c.save(o.CachePath); err != nil {
			h.Notes = append(h.Notes, fmt.Sprintf("the report's cache %s could not be written (the next report reads everything again): %v", o.CachePath, err))
		}
	}
	return h, nil
}

// collect reads what is new into c; it stops early, reporting rebuild, when
// a session that shares responses with another has to be made again.
func (c *cache) collect(ctx context.Context, o Options) (h *History, rebuild bool) {
	var n notes
	var jobs []*job
	seen := map[string]bool{}
	for _, src := range sources {
		refs := src.sessions(o.Env, c, &n)
		for _, ref := range dedupeFiles(refs, &n) {
			id := ref.id()
			seen[id] = true
			st := c.Sessions[id]
			if st == nil {
				st = &sessionState{Agent: ref.Agent, ID: ref.ID, Project: ref.Project}
				c.Sessions[id] = st
			}
			if ref.Project != "" {
				st.Project = ref.Project
			}
			jobs = append(jobs, &job{ref: ref, src: src, st: st, done: make(chan struct{})})
		}
	}
	for id, st := range c.Sessions {
		if !seen[id] {
			if st.Shared {
				return nil, true
			}
			// Its file is gone: a report shows what is on disk.
			c.forget(id)
			delete(c.Sessions, id)
		}
	}
	c.byOwner = make(map[uint32]*sessionState, len(c.Sessions))
	for id, st := range c.Sessions {
		c.byOwner[owner(id)] = st
	}
	// Sessions are read on all cores and merged in a fixed order, so that
	// which copy of a repeated response counts does not depend on timing.
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].ref.id() < jobs[j].ref.id() })
	next := make(chan *job, len(jobs))
	for _, j := range jobs {
		next <- j
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range next {
				j.read(ctx, o.Pricer)
				close(j.done)
			}
		})
	}
	h = &History{}
	defer wg.Wait()
	for i, j := range jobs {
		<-j.done
		if o.Progress != nil {
			o.Progress(i+1, len(jobs))
		}
		if j.err != nil {
			n.add("cannot read %s: %v", j.ref.Main, j.err)
		}
		id := j.ref.id()
		if j.restarted {
			if c.Sessions[id].Shared {
				for _, rest := range jobs[i+1:] {
					<-rest.done
				}
				return nil, true
			}
			c.forget(id)
			c.Sessions[id] = j.st
			c.byOwner[owner(id)] = j.st
		}
		if len(j.recs) > 0 {
			h.Read++
		}
		c.merge(id, j.st, j.recs, o.Pricer)
		j.recs = nil
	}
	for _, st := range c.Sessions {
		h.Sessions = append(h.Sessions, st)
	}
	h.Notes = n.list
	return h, false
}

// read reads what is new in the job's session; a session whose files were
// replaced or cut short is read again from nothing.
func (j *job) read(ctx context.Context, p Pricer) {
	if j.st.raw != nil && j.st.unchanged(j.ref) {
		return // nothing new: its state is not even decoded
	}
	start := time.Now()
	fresh := func() *sessionState {
		return &sessionState{Agent: j.st.Agent, ID: j.st.ID, Project: j.st.Project}
	}
	if !j.st.decode() {
		j.restarted, j.st = true, fresh()
	}
	add := func(r Record) { j.recs = append(j.recs, r) }
	restarted, err := j.src.read(ctx, j.ref, j.st, p, add)
	if restarted {
		j.recs = nil
		j.restarted = true
		j.st = fresh()
		_, err = j.src.read(ctx, j.ref, j.st, p, add)
	}
	j.err = err
	if err == nil && ctx.Err() == nil {
		j.st.mark(j.src, j.ref, start)
	} else {
		j.st.marks, j.st.dirs = nil, nil
	}
}

// merge adds a session's new records to its buckets, each response once
// across all sessions, with the largest usage any of them reported for it
// (a copy made while a response was still being written holds a part).
func (c *cache) merge(id string, st *sessionState, recs []Record, p Pricer) {
	o := owner(id)
	for _, r := range recs {
		if r.Key != 0 {
			cur, ok := c.owners[r.Key]
			if ok && cur.owner != o {
				st.Shared = true
				if other := c.byOwner[cur.owner]; other != nil {
					other.Shared = true
				}
				if r.Usage.Total() <= cur.usage.Total() {
					if r.Counted == (transcripts.Usage{}) {
						st.Dups++
					}
					continue
				}
				// More than the other session counted: the growth counts here.
				var at time.Time // a line without a time: today's rates
				if r.Time > 0 {
					at = time.Unix(r.Time, 0)
				}
				usd, est := p.Cost(r.Model, r.Usage, at)
				was, west := p.Cost(r.Model, cur.usage, at)
				r.Counted, r.USD, r.Estimated = cur.usage, usd-was, est || west
				cur.owner = o
			}
			c.owners[r.Key] = counted{owner: o, usage: r.Usage}
		}
		if r.Time <= 0 {
			r.Time = st.Last // a line without a time: the time before it
		}
		st.add(r)
	}
}

// dedupeFiles drops sessions whose main file is one already listed (a link
// or a hard link to it), naming them in the notes.
func dedupeFiles(refs []SessionRef, n *notes) []SessionRef {
	type seenFile struct {
		fi   os.FileInfo
		path string
	}
	bySize := map[int64][]seenFile{}
	out := refs[:0]
	for _, r := range refs {
		if r.Key != "" { // sessions inside one database
			out = append(out, r)
			continue
		}
		fi, err := os.Stat(r.Main)
		if err != nil {
			continue
		}
		dup := ""
		for _, s := range bySize[fi.Size()] {
			if os.SameFile(s.fi, fi) {
				dup = s.path
				break
			}
		}
		if dup != "" {
			n.add("not read twice: %s is the same file as %s", r.Main, dup)
			continue
		}
		bySize[fi.Size()] = append(bySize[fi.Size()], seenFile{fi, r.Main})
		out = append(out, r)
	}
	return out
}
