package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/guard/tamper"
	"github.com/runaway-guard/runaway/ownfiles"
)

// The tripwire: on every call, a cheap look (size, modification time,
// inode; the content's digest only when those moved) at runaway's config
// and program and the agents' entries. A change runaway did not make — a
// Makefile target, a script the tamper wire could not read — stops every
// session until the person has looked and run `runaway accept`. It turns a
// silent bypass into a stop at the next call of any guarded agent.

// TripwireName is the tripwire's record in the state folder (which the
// tamper wire guards like the rest of runaway's state).
const TripwireName = "tripwire.json"

// AcceptCommand is the person's next command once they have looked.
const AcceptCommand = "runaway accept"

// tripRecord is what runaway last left, and what changed since.
type tripRecord struct {
	Files   []tripFile `json:"files"`
	Tripped *Tripped   `json:"tripped,omitempty"`
}

type tripFile struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Size   int64  `json:"size,omitempty"`
	MTime  int64  `json:"mtime_ns,omitempty"`
	Inode  uint64 `json:"inode,omitempty"`
	Digest string `json:"digest,omitempty"`
}

// Tripped says what changed outside runaway, and when it was noticed.
type Tripped struct {
	At      time.Time `json:"at"`
	Changes []string  `json:"changes"`
}

// Reason is the stop's text.
func (t *Tripped) Reason() string {
	return "runaway: " + strings.Join(t.Changes, "; ") + ", outside runaway: the session is stopped, because a change runaway did not make can switch it off. Tell the person; once they have looked, they run `" + AcceptCommand + "` in their own terminal"
}

func (h *Hook) tripwirePath() string { return filepath.Join(h.StateDir, TripwireName) }

// tripwire checks the watched files against the record setup (or accept)
// made; without one it is off (doctor says so). A change is kept in the
// record, so every later call of every agent is stopped too.
func (h *Hook) tripwire() Verdict {
	rec, err := readTripRecord(h.tripwirePath())
	if errors.Is(err, fs.ErrNotExist) {
		return Verdict{}
	}
	if err != nil {
		// A state that cannot be read is not a decision: logged, as the
		// store's own errors are.
		h.errorLog().Log("tripwire", err)
		return Verdict{}
	}
	if rec.Tripped == nil {
		if changes, refreshed := h.compare(rec); len(changes) > 0 {
			rec.Tripped = &Tripped{At: h.now(), Changes: changes}
			h.saveTrip(rec)
		} else if refreshed {
			h.saveTrip(rec)
		}
	}
	if rec.Tripped == nil {
		return Verdict{}
	}
	return Verdict{Kind: Stop, Wire: "tripwire", Reason: rec.Tripped.Reason(), ModelHint: "Do not try to undo or work around it: stop and tell the person what you were doing."}
}

// compare looks at each watched file: the same size, time and inode is the
// same file; otherwise its digest decides (a person's own edit of a
// settings file, which keeps runaway's entries, only refreshes the record).
func (h *Hook) compare(rec *tripRecord) (changes []string, refreshed bool) {
	known := map[string]*tripFile{}
	for i := range rec.Files {
		known[rec.Files[i].Path] = &rec.Files[i]
	}
	for _, w := range tamper.WatchedFiles(h.guarded()) {
		old := known[w.Path]
		now := look(w)
		switch {
		case old == nil:
			rec.Files = append(rec.Files, now(true))
			refreshed = true
		case !old.Exists:
			if _, err := os.Stat(w.Path); err == nil {
				if w.Owned() {
					changes = append(changes, fmt.Sprintf("%s (%s) appeared", w.Path, w.What))
					continue
				}
				// An agent's settings file made since: it holds no entry of
				// runaway's to lose.
				*old = now(true)
				refreshed = true
			}
		default:
			fi, err := os.Stat(w.Path)
			if err != nil {
				changes = append(changes, fmt.Sprintf("%s (%s) was removed", w.Path, w.What))
				continue
			}
			if sameStat(old, fi) {
				continue
			}
			next := now(true)
			if next.Digest != old.Digest {
				changes = append(changes, fmt.Sprintf("%s (%s) changed", w.Path, w.What))
				continue
			}
			*old = next
			refreshed = true
		}
	}
	return changes, refreshed
}

// look returns how to record w as it is now (withDigest: read it).
func look(w tamper.Watched) func(bool) tripFile {
	return func(withDigest bool) tripFile {
		f := tripFile{Path: w.Path}
		fi, err := os.Stat(w.Path)
		if err != nil {
			return f
		}
		f.Exists, f.Size, f.MTime, f.Inode = true, fi.Size(), fi.ModTime().UnixNano(), inode(fi)
		if withDigest {
			data, err := readWatched(w.Path)
			if err != nil {
				f.Digest = "unreadable"
			} else {
				f.Digest = w.Digest(data)
			}
		}
		return f
	}
}

// maxWatched bounds a watched file read (runaway's program is the biggest).
const maxWatched = 256 << 20

func readWatched(p string) ([]byte, error) {
	f, err := ownfiles.OpenRegular(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxWatched))
}

func sameStat(r *tripFile, fi fs.FileInfo) bool {
	return r.Size == fi.Size() && r.MTime == fi.ModTime().UnixNano() && r.Inode == inode(fi)
}

func readTripRecord(p string) (*tripRecord, error) {
	f, err := ownfiles.OpenRegular(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil, err
	}
	var rec tripRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("not runaway's record: %w", err)
	}
	return &rec, nil
}

func (h *Hook) saveTrip(rec *tripRecord) {
	if err := writeTripRecord(h.tripwirePath(), rec); err != nil {
		h.errorLog().Log("tripwire", err)
	}
}

func writeTripRecord(p string, rec *tripRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), ownfiles.DirPerm()); err != nil {
		return err
	}
	return ownfiles.WriteFile(p, append(data, '\n'), ownfiles.FilePerm(), ownfiles.Durable)
}

// RecordTripwire records the watched files as they are now and clears a
// trip: run by setup, remove and accept after they changed runaway's
// files.
func (h *Hook) RecordTripwire() error {
	rec := &tripRecord{}
	for _, w := range tamper.WatchedFiles(h.guarded()) {
		rec.Files = append(rec.Files, look(w)(true))
	}
	return writeTripRecord(h.tripwirePath(), rec)
}

// TrippedNow reports a trip on record (for status and doctor).
func TrippedNow(stateDir string) (*Tripped, error) {
	rec, err := readTripRecord(filepath.Join(stateDir, TripwireName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return rec.Tripped, nil
}
