package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testhome"
)

func TestSettingsPaths(t *testing.T) {
	home := testhome.Isolate(t)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	if got := ClaudeSettings().Path; got != filepath.Join(home, ".claude", "settings.json") {
		t.Errorf("claude default: %s", got)
	}
	if got := CodexHooks().Path; got != filepath.Join(home, ".codex", "hooks.json") {
		t.Errorf("codex default: %s", got)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "/x/claude")
	t.Setenv("CODEX_HOME", "/y/codex")
	if got := ClaudeSettings().Path; got != "/x/claude/settings.json" {
		t.Errorf("claude with CLAUDE_CONFIG_DIR: %s", got)
	}
	if got := CodexHooks().Path; got != "/y/codex/hooks.json" {
		t.Errorf("codex with CODEX_HOME: %s", got)
	}
	specs := CodexHooks().Specs("/b/runaway")
	if len(specs) != 2 || specs[0].Event != "PreToolUse" || specs[1].Event != "UserPromptSubmit" {
		t.Errorf("codex specs %+v", specs)
	}
	for _, spec := range specs {
		if spec.Command != "'/b/runaway' hook codex || true" || spec.Timeout != 10 {
			t.Errorf("codex spec %+v", spec)
		}
	}
	t.Setenv("QWEN_HOME", "")
	if got := QwenSettings().Path; got != filepath.Join(home, ".qwen", "settings.json") {
		t.Errorf("qwen default: %s", got)
	}
	t.Setenv("QWEN_HOME", "/q")
	if got := QwenSettings().Path; got != "/q/settings.json" || QwenSettings().Strict {
		t.Errorf("qwen with QWEN_HOME: %+v (it reads comments: not strict)", QwenSettings())
	}
	// Qwen Code reads the timeout in seconds (1000 and more: legacy ms).
	specs = QwenSettings().Specs("/b/runaway")
	if len(specs) != 2 || specs[0].Event != "PreToolUse" || specs[1].Event != "UserPromptSubmit" {
		t.Errorf("qwen specs %+v", specs)
	}
	for _, spec := range specs {
		if spec.Command != "'/b/runaway' hook qwen || true" || spec.Timeout != 10 || spec.Shell != "" {
			t.Errorf("qwen spec %+v", spec)
		}
	}
	if s := HandlerFor("qwen", `C:/r/runaway.exe`, Platform{OS: "windows"}); s.Command != `& 'C:\r\runaway.exe' hook qwen` || s.Shell != "powershell" {
		t.Errorf("qwen on Windows: %+v", s)
	}
	if _, ok := SettingsFor("cursor"); ok {
		t.Error("cursor has no settings file runaway edits")
	}
}

func TestWarnings(t *testing.T) {
	tests := []struct {
		file SettingsFile
		in   string
		want string
	}{
		{ClaudeSettings(), `{"disableAllHooks": true}`, "s.json sets disableAllHooks"},
		{ClaudeSettings(), `{"disableAllHooks": false, "description": "x"}`, ""},
		{CodexHooks(), `{"description": "x", "hooks": {}}`, `s.json has top-level keys besides "hooks" (description)`},
		{CodexHooks(), `{"hooks": {}}`, ""},
		{QwenSettings(), `{"disableAllHooks": true}`, "s.json sets disableAllHooks: Qwen Code runs none"},
		{QwenSettings(), `{"general": {}}`, ""},
	}
	for _, tt := range tests {
		d, err := ParseDoc("s.json", []byte(tt.in), true)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(tt.file.Warnings("s.json", d), "\n")
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s %s: got %q, want %q", tt.file.Harness, tt.in, got, tt.want)
		}
	}
}

func TestHookEntriesForDoctor(t *testing.T) {
	in := `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo hi"},
        {"type": "command", "command": "'/a b/runaway' hook claude", "timeout": 600}
      ]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "runaway hook codex || true"}]}]
  }
}`
	d, err := ParseDoc("s.json", []byte(in), true)
	if err != nil {
		t.Fatal(err)
	}
	es, err := d.HookEntries()
	if err != nil || len(es) != 2 {
		t.Fatalf("%+v %v", es, err)
	}
	a, b := es[0], es[1]
	if a.Event != "PreToolUse" || a.Group != 0 || a.Handler != 1 || !a.HasMatcher || a.Matcher != "Bash" ||
		a.Program != "/a b/runaway" || strings.Join(a.Args, " ") != "hook claude" || a.Timeout != 600 || !a.HasTimeout || a.OrTrue || a.Line != 6 || a.Type != "command" {
		t.Errorf("first: %+v", a)
	}
	if b.Event != "Stop" || b.HasMatcher || b.HasTimeout || !b.OrTrue || b.Program != "runaway" {
		t.Errorf("second: %+v", b)
	}
}

func TestProjectRoot(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"repo/.git", "repo/a/b", "wt/sub", "plain/x"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A worktree or submodule has a .git file, not a folder.
	if err := os.WriteFile(filepath.Join(dir, "wt", ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"repo", "repo"},
		{"repo/a/b", "repo"},
		{"wt/sub", "wt"},
		{"plain/x", "plain/x"},
	}
	for _, tt := range tests {
		got, err := ProjectRoot(filepath.Join(dir, tt.in))
		if err != nil || got != filepath.Join(dir, tt.want) {
			t.Errorf("ProjectRoot(%s) = %q, %v; want %s", tt.in, got, err, tt.want)
		}
		sf, err := ClaudeProjectSettings(filepath.Join(dir, tt.in))
		if want := filepath.Join(dir, tt.want, ".claude", "settings.local.json"); err != nil || sf.Path != want || !sf.Strict || sf.Harness != "claude" {
			t.Errorf("ClaudeProjectSettings(%s) = %+v, %v; want %s", tt.in, sf, err, want)
		}
	}
	if _, err := ProjectRoot(filepath.Join(dir, "repo", "missing")); err == nil {
		t.Error("ProjectRoot of a missing folder: no error")
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ProjectRoot(file); err == nil {
		t.Error("ProjectRoot of a file: no error")
	}
}

// runaway's Copilot CLI hooks file runs `hook copilot` at both events, in
// the form of the system it is for, and is told apart from anyone's else.
func TestCopilotHooksFile(t *testing.T) {
	posix := CopilotHooks("/b/run away", Platform{OS: "linux"})
	want := `{
  "version": 1,
  "hooks": {
    "permissionRequest": [
      {
        "type": "command",
        "bash": "'/b/run away' hook copilot || true",
        "timeoutSec": 10
      }
    ],
    "preToolUse": [
      {
        "type": "command",
        "bash": "'/b/run away' hook copilot || true",
        "timeoutSec": 10
      }
    ]
  }
}
`
	if string(posix) != want {
		t.Errorf("POSIX file:\n%s", posix)
	}
	win := CopilotHooks(`C:\r\runaway.exe`, Platform{OS: "windows"})
	if !strings.Contains(string(win), `"powershell": "if (Test-Path -LiteralPath 'C:/r/runaway.exe') { & 'C:/r/runaway.exe' hook copilot }; exit 0"`) || strings.Contains(string(win), `"bash"`) {
		t.Errorf("Windows file:\n%s", win)
	}
	for _, c := range []struct {
		data string
		bins []string
	}{
		{string(posix), []string{"/b/run away", "/b/run away"}},
		{string(win), []string{"C:/r/runaway.exe", "C:/r/runaway.exe"}},
		{string(CopilotPolicyHooks("/usr/local/bin/runaway")), []string{"/usr/local/bin/runaway", "/usr/local/bin/runaway"}},
		{`{"version":1,"hooks":{"preToolUse":[{"exec":"/usr/local/bin/runaway","args":["hook","claude"]}]}}`, nil},
		{`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"./lint.sh"}]}}`, nil},
		{`{"version":1,"hooks":{"preToolUse":[{"bash":"'/b/r' hook copilot || true"},{"bash":"./lint.sh"}]}}`, nil},
		{`{"version":1,"hooks":{}}`, nil},
		{`not json`, nil},
	} {
		got := CopilotHooksBinaries([]byte(c.data))
		if strings.Join(got, "|") != strings.Join(c.bins, "|") || IsCopilotHooks([]byte(c.data)) != (c.bins != nil) {
			t.Errorf("%s: %q", c.data, got)
		}
	}
}
