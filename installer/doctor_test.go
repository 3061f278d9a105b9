package installer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/configs"
)

// The hashes were computed apart from this code, with Python:
// json.dumps(identity, sort_keys=True, separators=(",", ":"),
// ensure_ascii=False), then sha256 — what codex-observed.md §3 says Codex
// 0.169 accepts.
func TestCodexTrust(t *testing.T) {
	tests := []struct {
		name    string
		entry   configs.Entry
		key     string
		hash    string
		absPath string
	}{
		{
			name:    "runaway's entry",
			absPath: "/home/u/.codex/hooks.json",
			entry:   configs.Entry{Event: "PreToolUse", Command: "'/home/u/.local/bin/runaway' hook codex || true", Timeout: 10, HasTimeout: true},
			key:     "/home/u/.codex/hooks.json:pre_tool_use:0:0",
			hash:    "sha256:d02ad64b5e74dfdfa916375440be58db272fec4cb9d467e2a5e38285609e3454",
		},
		{
			name:    "matcher, default timeout, later group and handler",
			absPath: "/h/hooks.json",
			entry:   configs.Entry{Event: "PreToolUse", Group: 2, Handler: 1, Command: "/usr/local/bin/guard", Matcher: "Bash", HasMatcher: true},
			key:     "/h/hooks.json:pre_tool_use:2:1",
			hash:    "sha256:9cd17a3458130fa75b64510bb3f5ad40f55b8e7e2e82d23c34362ae78b4d68a4",
		},
		{
			name:    "HTML characters and non-ASCII stay raw",
			absPath: "/h/hooks.json",
			entry:   configs.Entry{Event: "PreToolUse", Command: "a <b> && c é", Timeout: 10, HasTimeout: true},
			key:     "/h/hooks.json:pre_tool_use:0:0",
			hash:    "sha256:35d954c03dd120fa5c76a2a3e9688433d09e40e6fc2be9b5cb91a4ff67468e7f",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, hash := CodexTrust(tt.absPath, tt.entry)
			if key != tt.key {
				t.Errorf("key = %q, want %q", key, tt.key)
			}
			if hash != tt.hash {
				t.Errorf("hash = %q, want %q", hash, tt.hash)
			}
		})
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use", "Stop": "stop",
		"UserPromptSubmit": "user_prompt_submit", "SessionStart": "session_start",
	} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// Release builds compare version strings; dev builds ("devel…") compare
// the binaries' bytes (the testscripts cover those).
func TestDoctorBinaryVersion(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "runaway")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho runaway v1.2.3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ours   string
		status Status
		detail string
	}{
		{"v1.2.3", StatusOK, "runs, version v1.2.3"},
		{"v1.3.0", StatusWarn, "is version v1.2.3, this runaway is v1.3.0; run: runaway setup (installs this one)"},
	} {
		d := &doctor{opts: DoctorOptions{Version: tt.ours}, paths: Paths{Bin: bin}}
		d.checkBinary()
		if len(d.out) != 1 || d.out[0].Status != tt.status || !strings.HasSuffix(d.out[0].Detail, tt.detail) {
			t.Errorf("this runaway %s: got %+v, want %s …%s", tt.ours, d.out, tt.status, tt.detail)
		}
	}
}
