package guard

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// Session is what runaway remembers of one (harness, session): small, and
// free of tool inputs (fingerprints and short summaries only).
type Session struct {
	Version   int       `json:"version"`
	Harness   agent.ID  `json:"harness"`
	SessionID string    `json:"session_id"`
	Cwd       string    `json:"cwd,omitempty"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	// Calls counts every tool call the hook saw in this session.
	Calls int `json:"calls"`
	// Recent are the latest calls, oldest first, for the loop wire; the
	// list starts over when the loop wire triggers.
	Recent []Call `json:"recent,omitempty"`
	// Last is the last decision that did something.
	Last *Decision `json:"last_decision,omitempty"`
	// Spend is what the session's transcripts say it spent.
	Spend Spend `json:"spend"`
	// Failures is the failure wire's run.
	Failures Failures `json:"failures"`
	// Escalation follows refused asks within the current prompt.
	Escalation Escalation `json:"escalation,omitzero"`
	// Notified is the wire, decision and prompt of the last notify_command
	// event: the same again is not notified twice in a row.
	Notified string `json:"notified,omitempty"`
	// Ended is how runaway last ended the agent's run itself (see ending).
	Ended *Ended `json:"ended,omitempty"`
	// Held and Tampered: a system install's hold on the main transcript
	// (see holdTranscript).
	Held     *heldTranscript `json:"held_transcript,omitempty"`
	Tampered string          `json:"tampered,omitempty"`
	// Deferred is a stop answered at the call's next event, where it ends
	// the turn (see deferStop).
	Deferred *deferred `json:"deferred,omitempty"`

	// dayPending are the responses this hook read, for their days (see
	// trackDay).
	dayPending []dayResponse

	// counted keeps what the transcripts yielded, beside the state (see
	// countedKeys); nil in a session read for status.
	counted *countedKeys
}

// Call is one tool call as the loop wire remembers it.
type Call struct {
	Fingerprint string `json:"fp"`
	Tool        string `json:"tool"`
	Summary     string `json:"summary,omitempty"`
}

// Decision is a decision runaway made, as kept in state and in the
// decision log.
type Decision struct {
	Time     time.Time `json:"time"`
	Harness  agent.ID  `json:"harness"`
	Session  string    `json:"session"`
	Wire     string    `json:"wire"`
	Decision string    `json:"decision"`
	Tool     string    `json:"tool,omitempty"`
	Summary  string    `json:"summary"`
}

const stateVersion = 2

// Store keeps sessions' state under dir (runaway's state folder), one file
// per (harness, session), each written atomically under an exclusive lock.
type Store struct {
	Dir string
	// LockWait bounds how long a hook waits for another hook of the same
	// session (agents run hooks of parallel tool calls in parallel).
	LockWait time.Duration
}

// defaultLockWait is how long a hook waits for a lock before it gives up
// and answers "no decision". The hooks of one response's calls run at once
// and each holds the lock while it waits for its call to reach the
// transcript: three vain waits in a row (maxMisses × lagWait, when the
// agent writes the response late) must not make the others give up.
const defaultLockWait = 1500 * time.Millisecond

// ErrLocked is returned when the session's lock was not had in time.
var ErrLocked = errors.New("session state is locked by another runaway process")

// sessionsDir holds the per-session files.
func (s *Store) sessionsDir() string { return filepath.Join(s.Dir, "sessions") }

// fileBase names a session's files. Session ids are UUIDs in practice;
// anything else is hashed so that no id can name a path outside the folder.
func fileBase(h agent.ID, id string) string {
	safe := id != "" && len(id) <= 100
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			safe = false
			break
		}
	}
	if !safe || strings.HasPrefix(id, ".") {
		sum := sha256.Sum256([]byte(id))
		id = "h" + hex.EncodeToString(sum[:12])
	}
	return string(h) + "-" + id
}

// Locked is a session's state held under its lock; Save writes it back,
// Close releases the lock.
type Locked struct {
	Session *Session
	path    string
	lock    *flock.Flock
	notKept error // why the session is held in memory only
}

// Open locks the session's state and reads it. A missing file is a new
// session. A file that does not decode is moved aside and reported: the
// caller answers "no decision" for this call, and the next call starts the
// session's state afresh (spend is recounted from the transcripts).
//
// A state folder that cannot be made or a lock file that cannot be created
// (a full disk, a file in the folder's place) gives a session held in
// memory only, with ErrNotKept: the hook still answers what it can tell
// from the call and the transcripts, and its Save fails.
func (s *Store) Open(ctx context.Context, h agent.ID, id string) (*Locked, error) {
	dir := s.sessionsDir()
	base := filepath.Join(dir, fileBase(h, id))
	if err := os.MkdirAll(dir, ownfiles.DirPerm()); err != nil {
		return s.inMemory(h, id, base, fmt.Errorf("creating state folder: %w", err))
	}
	lk := flock.New(base+".lock", flock.SetFlag(os.O_CREATE|os.O_RDWR), flock.SetPermissions(ownfiles.FilePerm()))
	wait := s.LockWait
	if wait <= 0 {
		wait = defaultLockWait
	}
	lctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	ok, err := lockWithin(lctx, lk)
	if !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, ErrLocked
		}
		return s.inMemory(h, id, base, fmt.Errorf("locking session state: %w", err))
	}
	l := &Locked{path: base + ".json", lock: lk}
	sess, err := readSession(l.path)
	var newer *NewerStateError
	if errors.As(err, &newer) {
		l.Close()
		return s.inMemory(h, id, base, err)
	}
	if err != nil {
		aside := l.path + ".corrupt"
		_ = os.Rename(l.path, aside)
		l.Close()
		return nil, fmt.Errorf("session state %s is corrupt (moved to %s): %w", l.path, filepath.Base(aside), err)
	}
	if sess == nil {
		sess = &Session{Version: stateVersion, Harness: h, SessionID: id}
	}
	sess.counted = &countedKeys{path: base + ".keys"}
	l.Session = sess
	return l, nil
}

// ErrNotKept marks a session whose state could not be read or written.
var ErrNotKept = errors.New("session state could not be written")

// inMemory is a new session that is not kept: what the state folder held
// of it (if it can be read) and nothing is written back.
func (s *Store) inMemory(h agent.ID, id, base string, why error) (*Locked, error) {
	sess, err := readSession(base + ".json")
	if err != nil || sess == nil {
		// Afresh (a newer runaway's state is not understood): spend is
		// counted from the transcripts' start.
		sess = &Session{Version: stateVersion, Harness: h, SessionID: id}
	}
	sess.counted = &countedKeys{path: base + ".keys", readOnly: true}
	return &Locked{Session: sess, notKept: why}, fmt.Errorf("%w: %w", ErrNotKept, why)
}

// lockWithin takes lk before ctx ends. It waits in flock(2) itself rather
// than polling, so that when many hooks of one session queue for its lock
// (the calls of one response run their hooks at once) each gets it as soon
// as the one before lets go, without the waiters' wakeups taking the CPU
// from the holder. A wait given up is left to end in the background: the
// lock, if it comes, is let go at once.
func lockWithin(ctx context.Context, lk *flock.Flock) (bool, error) {
	if ok, err := lk.TryLock(); ok || err != nil {
		return ok, err
	}
	got := make(chan error, 1)
	go func() { got <- lk.Lock() }()
	select {
	case err := <-got:
		return err == nil, err
	case <-ctx.Done():
		go func() {
			if <-got == nil {
				_ = lk.Unlock()
			}
		}()
		return false, ctx.Err()
	}
}

func readSession(path string) (*Session, error) {
	data, err := readRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sess Session
	if err := json.Unmarshal(data, &sess); err != nil {
		return nil, err
	}
	switch {
	case sess.Version > stateVersion:
		return nil, &NewerStateError{Path: path, Version: sess.Version}
	case sess.Version < 1:
		return nil, fmt.Errorf("state version %d, want 1 to %d", sess.Version, stateVersion)
	}
	// Older versions only lacked fields: what they lack starts at zero
	// (spend is counted again from the transcripts' start).
	sess.Version = stateVersion
	return &sess, nil
}

// NewerStateError: a newer runaway wrote the session's state. It is left
// as it is, for that runaway to go on with.
type NewerStateError struct {
	Path    string
	Version int
}

func (e *NewerStateError) Error() string {
	return fmt.Sprintf("session state %s was written by a newer runaway (state version %d; this one reads up to %d): it is left as it is; run the newer runaway (runaway version, then runaway setup with it)",
		e.Path, e.Version, stateVersion)
}

// readRegular reads a whole file through openRegular.
func readRegular(path string) ([]byte, error) {
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Save writes the state atomically: a temp file in the same folder, then a
// rename, so a reader never sees half a file. On a full disk the file is
// overwritten in place instead (see writeState). Keys that cannot be
// written do not keep the state from being written: a later read again
// then counts their records twice, which overestimates.
func (l *Locked) Save() error {
	if l.notKept != nil {
		return l.notKept
	}
	var kerr error
	if c := l.Session.counted; c != nil {
		// Before the state that counts them: a key without its state only
		// makes a later read again skip what it counted then.
		if err := c.flush(); err != nil {
			kerr = fmt.Errorf("saving the keys of counted responses: %w", err)
		}
	}
	data, err := json.Marshal(l.Session)
	if err != nil {
		return err
	}
	return errors.Join(kerr, writeState(l.path, data))
}

// Close releases the lock.
func (l *Locked) Close() {
	if l.lock != nil {
		_ = l.lock.Unlock()
	}
}

// stateSlack rounds a state file up to whole blocks of this many bytes
// (JSON allows the trailing spaces), so that the file holds room to grow:
// on a full disk a write that fits is made in place.
const stateSlack = 4 << 10

// writeState writes a session's state. When the atomic write fails and
// the state fits in the file already there (a full disk: the file's blocks
// are its own), the file is overwritten in place, padded to its size, so
// that the session keeps its count: the loop wire its run, a stopped
// session its stop. In place is not atomic; the lock keeps hooks from
// reading it half-written (status, which reads without the lock, skips a
// file that does not decode).
func writeState(path string, data []byte) error {
	padded := data
	if n := len(data) % stateSlack; n != 0 {
		padded = append(data, bytes.Repeat([]byte{' '}, stateSlack-n)...)
	}
	err := writeFileAtomic(path, padded)
	if err == nil {
		return nil
	}
	f, oerr := ownfiles.OpenRegular(path, os.O_WRONLY, 0)
	if oerr != nil {
		return err
	}
	defer f.Close()
	fi, serr := f.Stat()
	if serr != nil || fi.Size() < int64(len(data)) {
		return err
	}
	padded = append(data, bytes.Repeat([]byte{' '}, int(fi.Size())-len(data))...)
	if _, werr := f.WriteAt(padded, 0); werr != nil {
		return fmt.Errorf("%w (and in place: %w)", err, werr)
	}
	return nil
}

// writeFileAtomic writes the hook's per-call state: atomic, 0600, not
// synced (it runs on every tool call, and a state file lost to a crash is
// only recounted from the transcripts).
func writeFileAtomic(path string, data []byte) error {
	return ownfiles.WriteFile(path, data, ownfiles.FilePerm(), ownfiles.Fast)
}

// ReadSession reads one session's state without locking or writing, for
// `runaway status`.
func (s *Store) ReadSession(h agent.ID, id string) (*Session, error) {
	return readSession(filepath.Join(s.sessionsDir(), fileBase(h, id)+".json"))
}

// Sessions reads every session's state, most recently updated first.
// Files that do not decode are skipped.
func (s *Store) Sessions() ([]*Session, error) {
	paths, err := filepath.Glob(filepath.Join(s.sessionsDir(), "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Session
	for _, p := range paths {
		sess, err := readSession(p)
		if err != nil || sess == nil {
			continue
		}
		out = append(out, sess)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}
