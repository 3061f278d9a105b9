package guard

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHookRunInProcess is the hook's own work on a typical call, without
// starting a process: read the input, lock and read the state, the wires,
// write the state. bench/ times the whole process.
func BenchmarkHookRunInProcess(b *testing.B) {
	dir := b.TempDir()
	h := &Hook{StateDir: filepath.Join(dir, "state"), ConfigPath: filepath.Join(dir, "config.json"), Getenv: func(string) string { return "" }}
	i := 0
	for b.Loop() {
		i++
		in := fmt.Sprintf(`{"session_id":"s1","prompt_id":"p","transcript_path":%q,"cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test %d","description":"Run"},"tool_use_id":"t%d"}`, filepath.Join(dir, "none.jsonl"), i%3, i)
		h.Run(strings.NewReader(in), &bytes.Buffer{}, "claude")
	}
}
