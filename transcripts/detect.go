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
// transcript, Codex rollout, Gemini CLI session, Qwen Code transcript or Copilot CLI session.
var ErrUnknownFormat = errors.New("not a Claude Code transcript, a Codex rollout, a Gemini CLI session, a Qwen Code transcript or a Copilot CLI session")

// detectLines is how many lines Detect looks at.
const detectLines = 64

// Detect tells by content which agent wrote the session file at path (a
// .jsonl.zst is decompressed): the first of Formats that claims one of its
// first lines. A file whose lines do not tell, beside a <name>/subagents
// folder that holds agent files, is a Claude Code main file.
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
			var l probeLine
			if json.Unmarshal(line, &l) == nil {
				for _, ft := range Formats {
					if ft.claims(&l) {
						return ft.Agent, nil
					}
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
	// Nothing in the file tells (it is empty, or holds no line of the
	// session yet): a Claude Code main file whose subagents wrote theirs.
	if files, err := claudeFormat.SessionFiles(path); err == nil && len(files) > 1 {
		return agent.Claude, nil
	}
	return "", ErrUnknownFormat
}

// probeLine is what Detect decodes of a line: the fields each format's
// claims looks at.
type probeLine struct {
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
	SessionID string          `json:"sessionId"`
	Message   json.RawMessage `json:"message"`
	Summary   *string         `json:"summary"`
	UUID      string          `json:"uuid"`
	Project   string          `json:"projectHash"`
	// Provenance is on every line of Qwen Code's.
	Provenance string `json:"provenance"`
}
