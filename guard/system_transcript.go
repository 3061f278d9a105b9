package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/transcripts"
)

// In system mode the spend counted is out of the agent's reach, but the
// transcript it is counted from is the agent's user's file. A transcript
// that shrinks, is swapped for another file, a link or something that is
// not a file, while runaway guards it, is tampering: the session is
// stopped until the person (root) allows it. Spend already counted stays
// counted. Only the transcripts of agents that only ever append to them
// are held (transcripts.Format.AppendOnly: Claude Code, Codex).

// heldTranscript is the main transcript as the last call saw it.
type heldTranscript struct {
	Path  string `json:"path"`
	Inode uint64 `json:"inode"`
	Size  int64  `json:"size"`
}

// holdTranscript checks the session's main transcript against what the
// last call saw and remembers it as it is now. It returns why the session
// is stopped ("" when it is not).
func (s *Session) holdTranscript(h agent.ID, path string) string {
	if s.Tampered != "" {
		return s.Tampered
	}
	if f, ok := transcripts.FormatOf(h); !ok || !f.AppendOnly || path == "" || strings.HasSuffix(path, ".zst") {
		return ""
	}
	held := s.Held
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if held != nil && held.Path == path {
			s.Tampered = fmt.Sprintf("runaway: the session's transcript %s was removed while runaway guarded it", path)
		}
	case err != nil:
		return ""
	case fi.Mode()&fs.ModeSymlink != 0:
		s.Tampered = fmt.Sprintf("runaway: the session's transcript %s was replaced by a link", path)
	case !fi.Mode().IsRegular():
		s.Tampered = fmt.Sprintf("runaway: the session's transcript %s is not a regular file", path)
	case held != nil && held.Path == path && held.Inode != inode(fi):
		s.Tampered = fmt.Sprintf("runaway: the session's transcript %s was replaced by another file", path)
	case held != nil && held.Path == path && fi.Size() < held.Size:
		s.Tampered = fmt.Sprintf("runaway: the session's transcript %s shrank from %d to %d bytes", path, held.Size, fi.Size())
	default:
		s.Held = &heldTranscript{Path: path, Inode: inode(fi), Size: fi.Size()}
	}
	return s.Tampered
}

// tamperedVerdict stops every call of a session whose transcript was
// tampered with, until `sudo runaway allow` clears it.
func (s *Session) tamperedVerdict() Verdict {
	if s.Tampered == "" {
		return Verdict{}
	}
	return Verdict{Kind: Stop, Wire: "tamper",
		Reason:    s.Tampered + ": the session is stopped (the spend counted stays counted). The person runs `" + allowCommand + s.SessionID + " --add 1` to let it go on.",
		ModelHint: "Do not try to undo or work around it: stop and tell the person what you were doing."}
}
