package guard

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/configs"
)

// Logs bounded in size: when a log passes its bound it is renamed to
// <name>.1 (replacing the previous one) and a new one starts, so at most
// about twice the bound is ever kept.
const (
	ErrorLogName    = "errors.log"
	DecisionLogName = "decisions.jsonl"
	errorLogBound   = 256 << 10
	decisionBound   = 1 << 20
)

// appendBounded appends line to the log at path, rotating it first when it
// has grown past bound.
func appendBounded(path string, line []byte, bound int64) error {
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > bound {
		_ = os.Rename(path, path+".1")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := configs.OpenRegular(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(line)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// ErrorLog records what went wrong in hooks, one line each, for doctor and
// status. When it cannot be written, the line goes to fallback (the hook's
// stderr, which the agents keep in their debug logs).
type ErrorLog struct {
	Path     string
	Fallback io.Writer
	Now      func() time.Time
}

// maxErrorLine bounds one line of the error log: an error can quote a
// path or an id the agent sent, and those can be megabytes long.
const maxErrorLine = 4 << 10

// Log appends one line: time, where, and the error, with newlines (also
// those of where, which can come from the command line) folded and the
// whole cut to about maxErrorLine.
func (l *ErrorLog) Log(where string, err error) {
	msg := strings.Join(strings.Fields(where+": "+err.Error()), " ")
	if len(msg) > maxErrorLine {
		// The middle goes: the start says where, the end says why.
		msg = strings.ToValidUTF8(msg[:maxErrorLine/2], "") + " … " + strings.ToValidUTF8(msg[len(msg)-maxErrorLine/2:], "")
	}
	line := fmt.Sprintf("%s %s\n", l.Now().UTC().Format(time.RFC3339), msg)
	if werr := appendBounded(l.Path, []byte(line), errorLogBound); werr != nil && l.Fallback != nil {
		fmt.Fprintf(l.Fallback, "runaway: %s(and the error log could not be written: %v)\n", line, werr)
	}
}

// appendDecision adds a decision to the decision log.
func appendDecision(path string, d Decision) error {
	line, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return appendBounded(path, append(line, '\n'), decisionBound)
}
