package transcripts

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/ownfiles"
)

// ErrUnknownFormat is returned by Detect for a file that is no Claude Code
// transcript, Codex rollout or Gemini CLI session.
var ErrUnknownFormat = errors.New("not a Claude Code transcript, a Codex rollout or a Gemini CLI session")

// detectLines is how many lines Detect looks at.
const detectLines = 64

// Detect tells by content which agent wrote the session file at path (a
// .jsonl.zst is decompressed): Codex lines are {timestamp, type, payload}
// with Codex's line types; a Gemini CLI session starts with a header that
// carries projectHash; Claude Code lines carry sessionId or are its summary
// records.
func Detect(path string) (agent.ID, error) {
	f, _, err := ownfiles.OpenRegularInfo(path, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var r io.Reader = f
	if isCompressed(path) {
		dec, err := openCompressed(path)
		if err != nil {
			return "", err
		}
		defer dec.Close()
		r = dec
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for range detectLines {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var l struct {
				Type      string          `json:"type"`
				Payload   json.RawMessage `json:"payload"`
				SessionID string          `json:"sessionId"`
				Message   json.RawMessage `json:"message"`
				Summary   *string         `json:"summary"`
				UUID      string          `json:"uuid"`
				Project   string          `json:"projectHash"`
			}
			if json.Unmarshal(line, &l) == nil {
				switch {
				case l.Payload != nil && codexLineTypes[l.Type]:
					return agent.Codex, nil
				case l.Project != "" && l.SessionID != "":
					return agent.Gemini, nil
				case l.SessionID != "" || l.UUID != "" || (l.Type == "summary" && l.Summary != nil) || claudeOnlyTypes[l.Type]:
					return agent.Claude, nil
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return "", err
		}
	}
	return "", ErrUnknownFormat
}

// claudeOnlyTypes are Claude Code record types that carry no session id; a
// session that is nothing but file snapshots so far is still Claude Code's.
var claudeOnlyTypes = map[string]bool{"file-history-snapshot": true, "queue-operation": true}

var codexLineTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "token_usage_record": true, "world_state": true,
}
