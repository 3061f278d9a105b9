package configs

import (
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// Platform is where an agent runs runaway's entry. It decides the entry's
// form: on Windows each agent runs a command line through a different shell
// (Git Bash, PowerShell 5.1 or 7, cmd.exe), and a form one of them runs is
// a parse error, a string that is echoed, or a lost exit code in another
// (../shared/reference/agents-late-2026.md §2).
type Platform struct {
	OS string // a GOOS value; "" is this machine's
	// ClaudeExecForm: the installed Claude Code runs a handler's "args"
	// without a shell (ClaudeExecFormSince and later).
	ClaudeExecForm bool
	// NoShell: a system install's entries, which nothing the agent's user
	// chose may run before: Claude Code's in the exec form on every OS (a
	// Claude Code too old for the form runs the bare program, which answers
	// as the hook); Gemini CLI's with the PATH and BASH_ENV of its bash
	// fixed (geminiSystemEnv).
	NoShell bool
	// ClaudeSkillShell: the installed Claude Code has the
	// PreSkillShellCommand event (ClaudeSkillShellSince and later). An
	// older one takes the key for a misplaced guard, so setup writes it
	// only then.
	ClaudeSkillShell bool
}

// ClaudeSkillShellSince is the first Claude Code with PreSkillShellCommand.
const ClaudeSkillShellSince = "2.1.332"

// ClaudeExecFormSince is the first Claude Code that runs exec-form
// handlers (`command` + `args`, no shell).
const ClaudeExecFormSince = "2.1.139"

// ThisPlatform is the machine runaway runs on, Claude Code's version not
// yet known.
func ThisPlatform() Platform { return Platform{OS: runtime.GOOS} }

func (p Platform) windows() bool {
	if p.OS == "" {
		return runtime.GOOS == "windows"
	}
	return p.OS == "windows"
}

// The names runaway's Codex entries carry (statusMessage): what Codex's
// startup review and /hooks list show instead of "Unnamed hook", and its
// status line while the hook runs.
const (
	CodexToolName   = "runaway: checks each tool call"
	CodexPromptName = "runaway: checks the spend before the prompt"
)

// HandlerFor is runaway's handler for an agent, running the binary at
// bin, in the form that agent runs safely on p; each agent's forms are in
// its settings file (claude.go, codex.go, gemini.go). On macOS and Linux
// every agent runs `'bin' hook <agent> || true` through sh (`|| true` so
// that a crashed runaway cannot block the call) unless its file says
// otherwise. Deny answers travel only as JSON on stdout with exit 0 (Codex
// on Windows turns exit 2 into 1, and the deny is lost).
func HandlerFor(id agent.ID, bin string, p Platform) HookSpec {
	spec := HookSpec{Event: "PreToolUse", Command: HookCommand(bin, id), Timeout: HookTimeout}
	if s, ok := settingsOf(id); ok {
		s.handler(&spec, bin, p)
	}
	return spec
}

// bashDoubleQuote quotes s in double quotes, the form Claude Code's
// Windows docs show for paths (single quotes are not understood by every
// shell it has used there).
func bashDoubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune("\\\"$`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// PowerShellCommand is a PowerShell command line that runs program with
// args: the call operator and single-quoted words, each ' written twice:
//
//	''
func PowerShellCommand(program string, args ...string) string {
	words := []string{"&", powerShellQuote(program)}
	for _, a := range args {
		words = append(words, powerShellQuote(a))
	}
	return strings.Join(words, " ")
}

// GuardedPowerShellCommand is PowerShellCommand run only when program is
// there (GuardedHookCommand's form for PowerShell).
func GuardedPowerShellCommand(program string, args ...string) string {
	return "if (Test-Path -LiteralPath " + powerShellQuote(program) + ") { " + PowerShellCommand(program, args...) + " }"
}

const powerShellGuard = "if (Test-Path -LiteralPath "

func powerShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// powerShellWords splits a command line that starts with PowerShell's call
// operator into its words, quotes removed; nil for any other line.
func powerShellWords(s string) []string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, powerShellGuard) {
		_, s, _ = strings.Cut(s, "{")
		s = strings.TrimSpace(strings.TrimSuffix(s, "}"))
	}
	if !strings.HasPrefix(s, "& ") {
		return nil
	}
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == ';' || c == '|' || c == '\n':
			i = len(s)
		case c == '\'':
			inWord = true
			for i++; i < len(s); i++ {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						i++
					} else {
						break
					}
				}
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// handlerWords is the program and arguments a handler runs: "command" and
// "args" in exec form, else the words of "command" read as a POSIX or a
// PowerShell command line.
func handlerWords(command string, args []string) []string {
	if args != nil {
		return append([]string{command}, args...)
	}
	if w := powerShellWords(command); w != nil {
		return w
	}
	return guardedWords(command, ShellWords(command))
}

// ClaudeRunsExecForm reports whether the output of `claude --version`
// ("2.1.240 (Claude Code)") names a version that runs exec-form handlers;
// false when it cannot be read.
func ClaudeRunsExecForm(versionOutput string) bool {
	return claudeAtLeast(versionOutput, ClaudeExecFormSince)
}

// ClaudeHasSkillShell reports whether the output of `claude --version`
// names a version with the PreSkillShellCommand event; false when it
// cannot be read.
func ClaudeHasSkillShell(versionOutput string) bool {
	return claudeAtLeast(versionOutput, ClaudeSkillShellSince)
}

func claudeAtLeast(versionOutput, since string) bool {
	f := strings.Fields(versionOutput)
	if len(f) == 0 {
		return false
	}
	have, ok := parseVersion(f[0])
	want, _ := parseVersion(since)
	return ok && slices.Compare(have, want) >= 0
}

// parseVersion reads "1.2.3" (a leading v and a -suffix are allowed).
func parseVersion(s string) ([]int, bool) {
	s = strings.TrimPrefix(s, "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, false
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// SamePath reports whether two paths name the same file, ignoring the
// slash direction (Windows entries are written with forward slashes).
func SamePath(a, b string) bool {
	return filepath.Clean(filepath.FromSlash(strings.ReplaceAll(a, `\`, "/"))) ==
		filepath.Clean(filepath.FromSlash(strings.ReplaceAll(b, `\`, "/")))
}
