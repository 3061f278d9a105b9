package guard

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"

	"github.com/runaway-guard/runaway/ownfiles"
)

// countedKeys is the set of the keys of the responses and tool results a
// session's transcripts yielded (transcripts.Counted), kept in an
// append-only file beside the session's state: a hook appends the new keys
// and reads the file only when a transcript is read again from the start
// (replaced by a copy of itself, or cut short), so that the state file a
// hook reads and writes on every call stays small whatever the session's
// length.
type countedKeys struct {
	path  string
	added []byte              // keys not yet appended to the file
	set   map[uint64]struct{} // the file's keys and added, once asked
	err   error               // loading the file failed: nothing is known
	// readOnly: keys are added in memory only (status, a session whose
	// state is not kept).
	readOnly bool
}

func (c *countedKeys) Add(k uint64) {
	c.added = binary.LittleEndian.AppendUint64(c.added, k)
	if c.set != nil {
		c.set[k] = struct{}{}
	}
}

// Has reports whether k was counted. A file that cannot be read answers
// false: counting a record again overestimates, which is the safe side.
func (c *countedKeys) Has(k uint64) bool {
	if c.set == nil {
		c.set = map[uint64]struct{}{}
		data, err := readRegular(c.path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.err = err
		}
		for _, b := range [][]byte{data, c.added} {
			for i := 0; i+8 <= len(b); i += 8 {
				c.set[binary.LittleEndian.Uint64(b[i:])] = struct{}{}
			}
		}
	}
	_, ok := c.set[k]
	return ok
}

// flush appends the keys added since the last flush to the file.
func (c *countedKeys) flush() error {
	if len(c.added) == 0 || c.readOnly {
		return c.err
	}
	f, err := ownfiles.OpenRegular(c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, ownfiles.FilePerm())
	if err != nil {
		return err
	}
	_, err = f.Write(c.added)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		c.added = c.added[:0]
	}
	return err
}
