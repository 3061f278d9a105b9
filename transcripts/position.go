package transcripts

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/runaway-guard/runaway/ownfiles"
)

// MaxLine is the longest line a reader decodes; longer lines are skipped by
// scanning to their newline. No line that carries usage comes near it.
const MaxLine = 64 << 20

// headLen is how many leading bytes of a file are checksummed to notice a
// file replaced by another one of at least the same size.
const headLen = 256

// Position is where reading of one session stopped. Its zero value reads
// from the start. It is a small value meant to be stored as JSON in the
// guard's session state and passed back unchanged on the next call.
type Position struct {
	// Main is the main file this position belongs to; a different path
	// starts over.
	Main  string    `json:"main,omitempty"`
	Files []FilePos `json:"files,omitempty"`

	// Claude: modification time of the project folder when it was last
	// searched for older-layout agent-*.jsonl files.
	ScanMtime int64 `json:"scan_mtime,omitempty"`

	// Codex: the session's root id (Gemini: the session's id), the thread ids found in it, and how far
	// the date folders of sessions/ have been searched for its subagents.
	Root     string   `json:"root,omitempty"`
	Threads  []string `json:"threads,omitempty"`
	ScanDay  string   `json:"scan_day,omitempty"`
	ScanName string   `json:"scan_name,omitempty"`
}

// FilePos is where reading of one file stopped, with the state the reader
// needs to go on exactly.
type FilePos struct {
	// Path is relative to the main file's folder when inside it.
	Path   string       `json:"p"`
	Off    int64        `json:"o,omitempty"`
	ID     string       `json:"id,omitempty"`
	Head   uint32       `json:"h,omitempty"`
	HeadN  int          `json:"hn,omitempty"`
	Claude *claudeState `json:"c,omitempty"`
	Codex  *codexState  `json:"x,omitempty"`
	Gemini *geminiState `json:"g,omitempty"`
	Qwen   *qwenState   `json:"q,omitempty"`
	// Top is the furthest this file was ever read: after it was replaced
	// or cut short and is read again from the start, the records of the
	// lines before Top may have been yielded already (see firstTime).
	Top int64 `json:"t,omitempty"`
	// Moved: the file was followed to a new place (see Position.follow);
	// when it is opened there, Top grows to its size.
	Moved bool `json:"mv,omitempty"`
	// Counted holds the key of every response and tool result the file
	// yielded, when the Sink brings no Counted of its own.
	Counted keySet              `json:"k,omitempty"`
	idx     map[uint64]struct{} // Counted, indexed for a read again
}

// keySet is a set of 64-bit keys, kept as their bytes (JSON makes that
// base64: 11 bytes a key).
type keySet []byte

// recordKey is the key of a response or tool result of the file at rel,
// by what identifies it.
func recordKey(rel string, parts ...string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(rel))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

// firstTime reports whether the record with key k, found on the line that
// starts at fp.Off, is yielded, and counts it. Reading forward, every
// record is new. A line before Top is read again (the file was replaced or
// cut short): its record is yielded only when it was not counted before.
func (fp *FilePos) firstTime(sink *Sink, k uint64) bool {
	again := fp.Off < fp.Top
	if c := sink.Counted; c != nil {
		if again && c.Has(k) {
			return false
		}
		c.Add(k)
		return true
	}
	if again {
		if fp.idx == nil {
			fp.idx = make(map[uint64]struct{}, len(fp.Counted)/8)
			for i := 0; i+8 <= len(fp.Counted); i += 8 {
				fp.idx[binary.LittleEndian.Uint64(fp.Counted[i:])] = struct{}{}
			}
		}
		if _, ok := fp.idx[k]; ok {
			return false
		}
	}
	if fp.idx != nil {
		fp.idx[k] = struct{}{}
	}
	fp.Counted = binary.LittleEndian.AppendUint64(fp.Counted, k)
	return true
}

func (p *Position) reset(main string) {
	*p = Position{Main: main}
}

// follow points the position at main. A position kept for another main
// file is the same session's transcript gone elsewhere (moved, or copied
// to go on in another folder: the caller keeps one position per session):
// the files inside its folder are read again from their new place from the
// start, as files replaced are (reset is the reader's), so that what they
// yielded before is not yielded again and what was added is.
func (p *Position) follow(main string, reset func(*FilePos)) {
	if p.Main == main {
		return
	}
	if p.Main == "" {
		p.reset(main)
		return
	}
	oldRoot, newRoot := movedRoots(p.Main, main)
	p.Main, p.ScanMtime, p.ScanDay, p.ScanName = main, 0, "", ""
	for i := range p.Files {
		fp := &p.Files[i]
		if filepath.IsAbs(fp.Path) {
			// Outside the main file's folder (a Codex subagent's date
			// folder): it moved with the tree the main file moved in, or
			// not at all.
			rest, ok := strings.CutPrefix(fp.Path, oldRoot+string(filepath.Separator))
			if oldRoot == "" || !ok {
				continue
			}
			fp.Path = p.relPath(filepath.Join(newRoot, rest))
		}
		fp.Off, fp.ID, fp.Head, fp.HeadN, fp.Moved = 0, "", 0, 0, true
		reset(fp)
	}
}

// movedRoots are the folders a main file moved from and to: its old and
// new paths less the trailing part they share ("" when nothing is shared
// but the name).
func movedRoots(from, to string) (string, string) {
	from, to = filepath.Dir(from), filepath.Dir(to)
	for filepath.Base(from) == filepath.Base(to) && from != filepath.Dir(from) && to != filepath.Dir(to) {
		from, to = filepath.Dir(from), filepath.Dir(to)
	}
	return from, to
}

// file returns the FilePos for path, adding one if new.
func (p *Position) file(rel string) *FilePos {
	for i := range p.Files {
		if p.Files[i].Path == rel {
			return &p.Files[i]
		}
	}
	p.Files = append(p.Files, FilePos{Path: rel})
	return &p.Files[len(p.Files)-1]
}

func (p *Position) relPath(abs string) string {
	dir := filepath.Dir(p.Main)
	if rel, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

func (p *Position) absPath(rel string) string {
	if filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Join(filepath.Dir(p.Main), rel)
}

// readLines feeds fn every complete line of the file at abs after fp.Off,
// advancing fp.Off past each line handled. It calls onReset before reading
// when the file shrank or was replaced. It returns more=true when ctx ended
// the read early; every call handles some lines first, so a read that keeps
// hitting its deadline still gets through the file. A missing file is not an
// error: it may not exist yet.
func readLines(ctx context.Context, abs string, fp *FilePos, onReset func(), fn func(line []byte)) (more bool, err error) {
	zst := isCompressed(abs)
	// The common case on the hook's path: a subagent file that has not
	// grown. One stat, no open.
	if fi, err := os.Stat(abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	} else if !zst && fp.ID != "" && fp.ID == fileID(fi) && fi.Size() == fp.Off {
		return false, nil
	}
	f, fi, err := ownfiles.OpenRegularInfo(abs, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	defer f.Close()
	id := fileID(fi)
	if zst {
		id = fmt.Sprintf("%s:%d", id, fi.Size())
	}
	replaced := fp.ID != "" && id != fp.ID
	if !zst && fi.Size() < fp.Off {
		replaced = true
	}
	if !replaced && !zst && fp.HeadN > 0 {
		buf := make([]byte, fp.HeadN)
		if n, _ := f.ReadAt(buf, 0); n != fp.HeadN || crc32.ChecksumIEEE(buf) != fp.Head {
			replaced = true
		}
	}
	if fp.Moved {
		// Every line the file holds at its new place may have been
		// yielded at the old one.
		fp.Top, fp.Moved = max(fp.Top, fi.Size()), false
	}
	if replaced || fp.ID == "" {
		if fp.Off != 0 || replaced {
			fp.Off, fp.Head, fp.HeadN = 0, 0, 0
			onReset()
		}
		fp.ID = id
	}

	var r io.Reader = f
	if zst {
		dec, err := openCompressed(abs)
		if err != nil {
			return false, err
		}
		defer dec.Close()
		if _, err := io.CopyN(io.Discard, dec, fp.Off); err != nil {
			return false, fmt.Errorf("decompressing %s: %w", abs, err)
		}
		r = dec
	} else if fp.Off > 0 {
		if _, err := f.Seek(fp.Off, io.SeekStart); err != nil {
			return false, err
		}
	}

	// A buffer the size of what is new, within bounds: the hook's usual
	// read is a few KB and should not allocate 256 KiB each time.
	bufSize := 256 << 10
	if !zst {
		bufSize = int(min(max(fi.Size()-fp.Off+1, 4<<10), 256<<10))
	}
	more, err = scanLines(ctx, r, bufSize, fp, fn)
	fp.Top = max(fp.Top, fp.Off)
	if !zst && fp.HeadN < headLen && fp.Off > int64(fp.HeadN) {
		n := int(min(int64(headLen), fp.Off))
		buf := make([]byte, n)
		if m, _ := f.ReadAt(buf, 0); m == n {
			fp.Head, fp.HeadN = crc32.ChecksumIEEE(buf), n
		}
	}
	return more, err
}

// bufPool keeps read buffers of 256 KiB to keepBuf for the next file: a read
// of many files (a report, replay's parallel read) would otherwise spend as
// much time zeroing new buffers as scanning them. The hook reads a few KB and
// asks for smaller ones, which are not pooled.
var bufPool sync.Pool

const pooledMin = 256 << 10

func getBuf(n int) []byte {
	if n >= pooledMin && n <= keepBuf {
		if b, ok := bufPool.Get().(*[]byte); ok && cap(*b) >= n {
			return (*b)[:n]
		} else if ok {
			bufPool.Put(b)
		}
	}
	return make([]byte, n)
}

func putBuf(b []byte) {
	if cap(b) >= pooledMin && cap(b) <= keepBuf {
		b = b[:cap(b)]
		bufPool.Put(&b)
	}
}

// keepBuf is the largest line buffer a read keeps once a long line made it
// grow: a session with several multi-MB tool outputs reads each of them in
// place, without holding a huge buffer for the rest of the file.
const keepBuf = 4 << 20

// scanLines streams r through a buffer that starts at bufSize and grows to
// hold a long line. Lines longer than MaxLine are skipped; a last line
// without its newline is left for the next call. fn must not keep line.
func scanLines(ctx context.Context, r io.Reader, bufSize int, fp *FilePos, fn func(line []byte)) (bool, error) {
	buf := getBuf(bufSize)
	defer func() { putBuf(buf) }()
	start, scanned, end := 0, 0, 0 // buf[start:end] is unhandled; no newline in buf[start:scanned]
	var skipped int64              // bytes of a too-long line already dropped
	tooLong, eof := false, false
	for n := 0; ; n++ {
		// Inside a long line too: a line that never ends (a file being
		// written without newlines) must not outlast the deadline. Its
		// start is read again next time.
		if n > 0 && (n&63 == 0 || len(buf) > bufSize) && ctx.Err() != nil {
			return true, nil
		}
		if i := bytes.IndexByte(buf[scanned:end], '\n'); i >= 0 {
			nl := scanned + i
			if !tooLong {
				fn(bytes.TrimSuffix(buf[start:nl], []byte("\r")))
			}
			fp.Off += skipped + int64(nl+1-start)
			skipped, tooLong = 0, false
			start, scanned = nl+1, nl+1
			continue
		}
		scanned = end
		if eof {
			return false, nil
		}
		// Make room: move the unhandled start of a line to the front, grow
		// the buffer for a long line, or drop a line over MaxLine.
		switch {
		case start > 0:
			if len(buf) > keepBuf && end-start <= keepBuf/2 {
				buf = append(make([]byte, 0, keepBuf), buf[start:end]...)[:keepBuf]
			} else {
				copy(buf, buf[start:end])
			}
			end -= start
			scanned, start = end, 0
		case end == len(buf) && (tooLong || len(buf) > MaxLine):
			skipped += int64(end)
			tooLong, end, scanned = true, 0, 0
			if len(buf) > bufSize {
				buf = make([]byte, bufSize) // the rest of the line is only looked through
			}
		case end == len(buf):
			n := 2 * len(buf)
			if n >= MaxLine {
				n = MaxLine + 1 // the largest a line may need, without a last doubling
			}
			grown := getBuf(n)
			copy(grown, buf[:end])
			putBuf(buf)
			buf = grown
		}
		m, err := r.Read(buf[end:])
		end += m
		switch {
		case errors.Is(err, io.EOF):
			eof = true
		case err != nil:
			return false, err
		}
	}
}

// FileMark is where the reading of one file stopped: a caller that keeps
// many sessions' positions (a report) tells from the marks alone, with a
// stat each, that a session has nothing new, without decoding its Position.
type FileMark struct {
	Path string // absolute
	Off  int64
	ID   string
}

// Marks are the marks of the files p has read.
func (p *Position) Marks() []FileMark {
	marks := make([]FileMark, len(p.Files))
	for i, f := range p.Files {
		marks[i] = FileMark{Path: p.absPath(f.Path), Off: f.Off, ID: f.ID}
	}
	return marks
}

// Unchanged reports whether a read of the file would find nothing new: it
// is the same file and as long as where its reading stopped, or it is
// still missing. It is the readers' own check before they open a file.
func (m FileMark) Unchanged() bool {
	fi, err := os.Stat(m.Path)
	if err != nil {
		return m.ID == "" && errors.Is(err, fs.ErrNotExist)
	}
	if m.ID == "" {
		return false
	}
	if isCompressed(m.Path) {
		return m.ID == fmt.Sprintf("%s:%d", fileID(fi), fi.Size())
	}
	return m.ID == fileID(fi) && fi.Size() == m.Off
}
