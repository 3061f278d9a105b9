package configs

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/runaway-guard/runaway/sysmode"
)

// The agents' own system-wide settings, which their users cannot override:
// where a system install writes runaway's entries. Facts and sources:
// ../shared/reference/ and notes/issue-22.md.

// ManagedFile is one agent's managed settings file.
type ManagedFile struct {
	SettingsFile
	// TOML: Codex's requirements.toml, written as a block of its own.
	TOML bool
	// Own: the file is runaway's alone (a drop-in), created and removed
	// whole.
	Own bool
	// CopilotPolicy: Copilot CLI's policy hooks file, runaway's own, in
	// its hooks format (CopilotPolicyHooks).
	CopilotPolicy bool
}

// ManagedSettings are the managed files of the agents a system install
// wires, for the layout's OS. OpenCode is not wired yet: its managed
// folder's plugins/ is not scanned, but a plugin named in the "plugin"
// array of /etc/opencode/opencode.json (or .jsonc) is loaded, and the
// user's and the project's config cannot take it out (OpenCode 1.18.33,
// notes/issue-22.md).
func ManagedSettings(l sysmode.Layout) []ManagedFile {
	claude, gemini, codex := l.Path("etc", "claude-code"), l.Path("etc", "gemini-cli"), l.Path("etc", "codex")
	copilot := l.Path("etc", "github-copilot")
	switch l.GOOS {
	case "darwin":
		claude = l.Path("Library", "Application Support", "ClaudeCode")
		gemini = l.Path("Library", "Application Support", "GeminiCli")
	case "windows":
		claude = l.Path("Program Files", "ClaudeCode")
		gemini = l.Path("ProgramData", "gemini-cli")
		codex = l.Path("ProgramData", "OpenAI", "Codex")
		copilot = l.Path("ProgramData", "GitHub", "Copilot")
	}
	return []ManagedFile{
		// Claude Code merges managed-settings.d/*.json after
		// managed-settings.json: a drop-in of runaway's own leaves an
		// administrator's file alone.
		{SettingsFile: SettingsFile{Harness: "claude", Path: joinPath(claude, "managed-settings.d", "runaway.json"), Strict: true}, Own: true},
		// Codex: hooks from requirements.toml are managed, trusted by
		// policy (no /hooks review).
		{SettingsFile: SettingsFile{Harness: "codex", Path: joinPath(codex, "requirements.toml")}, TOML: true},
		// Gemini CLI's system settings override the user's and the
		// project's.
		{SettingsFile: SettingsFile{Harness: "gemini", Path: joinPath(gemini, "settings.json")}},
		// Copilot CLI loads policy.d/*.json (root-owned, not group- or
		// world-writable) whatever the folder's trust, and neither a
		// repository's disableAllHooks nor allowManagedHooksOnly turns
		// them off.
		{SettingsFile: SettingsFile{Harness: "copilot", Path: joinPath(copilot, "policy.d", CopilotHooksName)}, Own: true, CopilotPolicy: true},
	}
}

func joinPath(dir string, parts ...string) string {
	return filepath.Join(append([]string{dir}, parts...)...)
}

// Codex's requirements.toml is TOML, which runaway has no editor for:
// runaway's entries go in one block between two marker lines, appended
// to the file, and remove cuts exactly that block.
const (
	tomlBegin = "# runaway: begin (written by `sudo runaway setup --system`; `sudo runaway remove --system` takes it out)"
	tomlEnd   = "# runaway: end"
)

// CodexRequirementsBlock is runaway's block for requirements.toml: its
// PreToolUse and UserPromptSubmit handlers as managed hooks, and, with
// managedOnly, allow_managed_hooks_only (every other hook dropped).
func CodexRequirementsBlock(bin string, managedOnly bool) string {
	var b strings.Builder
	b.WriteString(tomlBegin + "\n")
	if managedOnly {
		b.WriteString("allow_managed_hooks_only = true\n")
	}
	sf := SettingsFile{Harness: "codex"}
	for _, spec := range sf.Specs(bin) {
		fmt.Fprintf(&b, "\n[[hooks.%s]]\n\n[[hooks.%s.hooks]]\n", spec.Event, spec.Event)
		fmt.Fprintf(&b, "type = \"command\"\ncommand = %s\n", strconv.Quote(spec.Command))
		if spec.Timeout > 0 {
			fmt.Fprintf(&b, "timeout = %d\n", spec.Timeout)
		}
		if spec.StatusMessage != "" {
			fmt.Fprintf(&b, "statusMessage = %s\n", strconv.Quote(spec.StatusMessage))
		}
	}
	b.WriteString(tomlEnd + "\n")
	return b.String()
}

// AddTOMLBlock appends block to data, replacing an earlier block of
// runaway's. A file that already has a [hooks] table of its own is
// refused: TOML would reject a second one, and Codex with it.
func AddTOMLBlock(data []byte, block string) ([]byte, error) {
	rest, _, err := CutTOMLBlock(data)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(rest), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[hooks") || strings.HasPrefix(t, "[[hooks") || strings.HasPrefix(t, "hooks") && strings.Contains(t, "=") {
			return nil, fmt.Errorf("it already has hooks of its own (%q): add runaway's entry there by hand", t)
		}
	}
	out := string(rest)
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if out != "" {
		out += "\n"
	}
	return []byte(out + block), nil
}

// CutTOMLBlock takes runaway's block out of data, and reports whether
// there was one; the separating blank line setup added goes too.
func CutTOMLBlock(data []byte) ([]byte, bool, error) {
	s := string(data)
	i := strings.Index(s, tomlBegin)
	if i < 0 {
		return data, false, nil
	}
	j := strings.Index(s[i:], tomlEnd+"\n")
	if j < 0 {
		return nil, false, fmt.Errorf("runaway's block has a beginning and no end (%q)", tomlEnd)
	}
	before, after := s[:i], s[i+j+len(tomlEnd)+1:]
	if after == "" && strings.HasSuffix(before, "\n\n") {
		before = before[:len(before)-1]
	}
	return []byte(before + after), true, nil
}
