package agent

import (
	"path/filepath"
	"testing"
)

func TestParseTakesIDsAndAliases(t *testing.T) {
	for in, want := range map[string]ID{
		"claude": Claude, "claude-code": Claude, "Claude-Code": Claude, " codex ": Codex,
		"gemini-cli": Gemini, "gemini": Gemini, "opencode": OpenCode, "cursor": Cursor,
		"qwen": Qwen, "Qwen-Code": Qwen,
		"copilot": Copilot, "Copilot-CLI": Copilot, "github-copilot": Copilot,
	} {
		if got, ok := Parse(in); !ok || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "claud", "gh-copilot", "claude code"} {
		if got, ok := Parse(in); ok {
			t.Errorf("Parse(%q) = %q; want none", in, got)
		}
	}
}

func TestEveryAgentHasItsFacts(t *testing.T) {
	seen := map[string]ID{}
	for _, f := range All {
		if f.ID == "" || f.Name == "" || len(f.Programs) == 0 || len(f.CallVars) == 0 {
			t.Errorf("%q: id, name, programs and call variables are required: %+v", f.ID, f)
		}
		for _, s := range append([]string{string(f.ID)}, f.Aliases...) {
			if other, ok := seen[s]; ok {
				t.Errorf("%q names both %s and %s", s, other, f.ID)
			}
			seen[s] = f.ID
		}
		if got := Of(f.ID); got != f {
			t.Errorf("Of(%s) is not its facts", f.ID)
		}
	}
	if Of("nope").Name != "nope" {
		t.Error("an unknown id should name itself")
	}
}

func TestConfigDirs(t *testing.T) {
	env := func(m map[string]string) Env { return func(k string) string { return m[k] } }
	home := map[string]string{"HOME": "/h"}
	moved := map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x", "GEMINI_CLI_HOME": "/g", "XDG_CONFIG_HOME": "/xdg", "QWEN_HOME": "/q", "COPILOT_HOME": "/p"}
	for _, c := range []struct {
		id          ID
		home, moved string
	}{
		{Claude, "/h/.claude", "/c"},
		{Codex, "/h/.codex", "/x"},
		{Gemini, "/h/.gemini", "/g/.gemini"},
		{OpenCode, "/h/.config/opencode", "/xdg/opencode"},
		{Cursor, "/h/.cursor", "/h/.cursor"},
		{Qwen, "/h/.qwen", "/q"},
		{Copilot, "/h/.copilot", "/p"},
	} {
		if got := Of(c.id).ConfigDir(env(home)); got != filepath.FromSlash(c.home) {
			t.Errorf("%s under HOME: %s, want %s", c.id, got, c.home)
		}
		if got := Of(c.id).ConfigDir(env(moved)); got != filepath.FromSlash(c.moved) {
			t.Errorf("%s moved: %s, want %s", c.id, got, c.moved)
		}
	}
	if got := Of(Claude).ConfigDir(env(nil)); got != "" {
		t.Errorf("no HOME and no variable: %q, want none", got)
	}
}
