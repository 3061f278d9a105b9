package ownfiles

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The logs are bounded in size: when a log passes its bound it is renamed
// to <name>.1 (replacing the previous one) and a new one starts, so at
// most about twice the bound is ever kept.
const (
	ErrorLogName    = "errors.log"
	DecisionLogName = "decisions.jsonl"
	errorLogBound   = 256 << 10
	decisionBound   = 1 << 20
	// errorMarkName is where doctor remembers how far it read the error log.
	errorMarkName = "doctor-mark.json"
)

// appendBounded appends line to the log at path, rotating it first when it
// has grown past bound.
func appendBounded(path string, line []byte, bound int64) error {
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > bound {
		_ = os.Rename(path, path+".1")
	}
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return err
	}
	f, err := OpenRegular(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, filePerm)
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
// status. When it cannot be written, the line goes to Fallback (the hook's
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

// AppendDecision adds one decision, as a JSON line, to the decision log
// at path.
func AppendDecision(path string, decision any) error {
	line, err := json.Marshal(decision)
	if err != nil {
		return err
	}
	return appendBounded(path, append(line, '\n'), decisionBound)
}

// ErrorMark is how far doctor has shown the error log: the time stamp of
// the newest line shown and how many lines carry it. Lines start with
// their RFC 3339 time, so the mark survives the log's rotation.
type ErrorMark struct {
	Until string `json:"until"`
	Count int    `json:"count"`
}

// UnreadErrors returns the lines of the error log in stateDir that no
// doctor run has marked read, oldest first, and the mark that would
// record them as read. It writes nothing: status counts them, doctor shows
// them and then calls MarkErrorsRead.
func UnreadErrors(stateDir string) (fresh []string, next ErrorMark) {
	logPath := filepath.Join(stateDir, ErrorLogName)
	var mark ErrorMark
	if b, err := os.ReadFile(filepath.Join(stateDir, errorMarkName)); err == nil {
		_ = json.Unmarshal(b, &mark)
	}
	var lines []string
	for _, p := range []string{logPath + ".1", logPath} {
		lines = append(lines, LogLines(p)...)
	}
	next = mark
	seenAtMark := 0
	for _, l := range lines {
		ts, _, _ := strings.Cut(l, " ")
		switch {
		case ts < mark.Until:
			continue
		case ts == mark.Until:
			seenAtMark++
			if seenAtMark <= mark.Count {
				continue
			}
		}
		fresh = append(fresh, l)
		if ts == next.Until {
			next.Count++
		} else if ts > next.Until {
			next = ErrorMark{Until: ts, Count: 1}
		}
	}
	return fresh, next
}

// MarkErrorsRead records mark (from UnreadErrors) in stateDir.
func MarkErrorsRead(stateDir string, mark ErrorMark) error {
	b, err := json.Marshal(mark)
	if err != nil {
		return err
	}
	return WriteFile(filepath.Join(stateDir, errorMarkName), b, filePerm, Durable)
}

// LogLines returns a log's non-empty lines, trimmed; none when it cannot
// be read.
func LogLines(path string) []string {
	f, err := OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		if l := strings.TrimSpace(s.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}
