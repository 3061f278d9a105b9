package transcripts

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
)

// undecidedWait is how long a rollout without its session_meta line holds
// back the search: Codex writes that line at the first persist, so an older
// empty file will never say whose it is.
const undecidedWait = time.Minute

// discoverCodex adds to pos the rollouts that belong to the session of main:
// same root session id, or (older files without one) a parent among the
// session's threads. Subagent rollouts are created after their parent, so
// only the date folders from the last one searched on are listed, and in it
// only the names after the last one examined.
func discoverCodex(main string, pos *Position) {
	if pos.Root == "" {
		m, ok := readCodexMeta(main)
		if !ok {
			return
		}
		// A subagent's own rollout gathers only its descendants, not its
		// siblings that share the root id.
		pos.Root = m.root()
		if m.parent != "" {
			pos.Root = m.ID
		}
		pos.Threads = []string{m.ID}
	}
	dayDir := filepath.Dir(main)
	sessions := filepath.Dir(filepath.Dir(filepath.Dir(dayDir)))
	mainDay, err := filepath.Rel(sessions, dayDir)
	if err != nil || !isDayPath(mainDay) {
		return // not in a sessions/YYYY/MM/DD tree: nothing to search
	}
	if pos.ScanDay == "" {
		pos.ScanDay, pos.ScanName = filepath.ToSlash(mainDay), filepath.Base(main)
	}
	for _, day := range daysFrom(sessions, pos.ScanDay) {
		entries, _ := os.ReadDir(filepath.Join(sessions, filepath.FromSlash(day)))
		for _, e := range entries {
			name := e.Name()
			if !isRolloutName(name) || (day == pos.ScanDay && name <= pos.ScanName) {
				continue
			}
			path := filepath.Join(sessions, filepath.FromSlash(day), name)
			m, ok := readCodexMeta(path)
			if !ok {
				if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) < undecidedWait {
					return // look again next time
				}
			} else if (m.SessionID != "" && m.SessionID == pos.Root) || (m.parent != "" && slices.Contains(pos.Threads, m.parent)) {
				pos.file(pos.relPath(path))
				if !slices.Contains(pos.Threads, m.ID) {
					pos.Threads = append(pos.Threads, m.ID)
				}
			}
			pos.ScanDay, pos.ScanName = day, name
		}
	}
}

func isRolloutName(name string) bool {
	return strings.HasPrefix(name, "rollout-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.zst"))
}

func isDayPath(rel string) bool {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) != 2 || len(parts[2]) != 2 {
		return false
	}
	for _, p := range parts {
		for _, c := range p {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// daysFrom lists the YYYY/MM/DD folders under sessions from day on, in order.
func daysFrom(sessions, day string) []string {
	var out []string
	list := func(dir string) []string {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
		return names
	}
	for _, y := range list(sessions) {
		if len(y) != 4 || y < day[:4] {
			continue
		}
		for _, m := range list(filepath.Join(sessions, y)) {
			if len(m) != 2 || y+"/"+m < day[:7] {
				continue
			}
			for _, d := range list(filepath.Join(sessions, y, m)) {
				if full := y + "/" + m + "/" + d; len(d) == 2 && full >= day {
					out = append(out, full)
				}
			}
		}
	}
	return out
}

type codexMeta struct {
	ID        string
	SessionID string
	parent    string
	cwd       string
}

func (m codexMeta) root() string {
	if m.SessionID != "" {
		return m.SessionID
	}
	return m.ID
}

// readCodexMeta reads the session_meta on a rollout's first line.
func readCodexMeta(path string) (codexMeta, bool) {
	f, _, err := ownfiles.OpenRegularInfo(path, os.O_RDONLY, 0)
	if err != nil {
		return codexMeta{}, false
	}
	defer f.Close()
	var r io.Reader = f
	if isCompressed(path) {
		dec, err := openCompressed(path)
		if err != nil {
			return codexMeta{}, false
		}
		defer dec.Close()
		r = dec
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) || len(line) > 16<<20 {
			return codexMeta{}, false
		}
	}
	var l codexLineJSON
	var p codexPayload
	// The walker first: session_meta carries the base instructions, tens
	// of KB that encoding/json would scan twice.
	if !codexUsageFast(line, &l, &p) {
		l, p = codexLineJSON{}, codexPayload{}
		if json.Unmarshal(line, &l) != nil || json.Unmarshal(l.Payload, &p) != nil {
			return codexMeta{}, false
		}
	}
	if l.Type != "session_meta" || p.ID == "" {
		return codexMeta{}, false
	}
	return codexMeta{ID: p.ID, SessionID: p.SessionID, parent: codexParent(&p), cwd: p.Cwd}, true
}

// CodexMeta is what a rollout's session_meta says about its thread.
type CodexMeta struct {
	// ThreadID is the rollout's own thread; RootID the session's root thread
	// (session_meta.session_id, or the thread itself in files older than
	// that field); ParentID the thread it was forked or spawned from.
	ThreadID, RootID, ParentID string
	// Cwd is the folder the session ran in.
	Cwd string
}

// ReadCodexMeta reads the session_meta on the first line of the rollout at
// path (.jsonl or .jsonl.zst).
func ReadCodexMeta(path string) (CodexMeta, error) {
	m, ok := readCodexMeta(path)
	if !ok {
		if _, err := os.Stat(path); err != nil {
			return CodexMeta{}, err
		}
		return CodexMeta{}, ErrUnknownFormat
	}
	return CodexMeta{ThreadID: m.ID, RootID: m.root(), ParentID: m.parent, Cwd: m.cwd}, nil
}

// codexRootDepth bounds the walk from a rollout up to its session's root.
const codexRootDepth = 8

// CodexRootRollout returns the rollout of the session's root thread for any
// rollout of the session: Codex names a subagent's own rollout in its hook
// calls, with the root session's id, and a subagent may make the session's
// first hooked call. The root is found by the thread id in its file name
// (rollout-<time>-<thread id>.jsonl, .jsonl.zst) in the same sessions/ tree:
// the session_meta's session_id, or for older files without one, the
// parent thread, walked up. Where no root is found, path itself is returned.
func CodexRootRollout(path string) string {
	for range codexRootDepth {
		m, ok := readCodexMeta(path)
		if !ok {
			return path
		}
		up := m.SessionID
		if up == "" || up == m.ID {
			up = m.parent
		}
		if up == "" || up == m.ID {
			return path
		}
		found := findRollout(path, up)
		if found == "" {
			return path
		}
		path = found
	}
	return path
}

// findRollout finds the rollout of thread id in the sessions/YYYY/MM/DD tree
// that holds the rollout at near.
func findRollout(near, id string) string {
	sessions := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(near))))
	if rel, err := filepath.Rel(sessions, filepath.Dir(near)); err != nil || !isDayPath(rel) {
		return ""
	}
	for _, ext := range []string{".jsonl", ".jsonl.zst"} {
		m, _ := filepath.Glob(filepath.Join(sessions, "[0-9]*", "[0-9]*", "[0-9]*", "rollout-*-"+id+ext))
		if len(m) > 0 {
			slices.Sort(m)
			return m[0]
		}
	}
	return ""
}
