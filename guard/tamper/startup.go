package tamper

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Shell start-up files and the env files agents load set the environment
// of the next shell and the next agent run, runaway's hook with it: one
// line there can raise runaway's caps (RUNAWAY_SESSION_CAP_USD), move its
// files (XDG_CONFIG_HOME) or run a command at every start. They are
// people's files too, so the change is judged, not the file: a line that
// sets runaway's or the agents' folder variables, or a command that would
// be denied as a tool call, is denied; the rest (PATH, aliases) passes.

// startupFile is one of those files. An agent's env files are in its row
// (see agents).
var startupFile = &fileKind{what: "a file that sets the environment of the next shell or agent run", env: true}

// projectEnv is a project's .env, which Gemini CLI loads into its
// environment (its hooks' too) from the folder it starts in or one above.
var projectEnv = &fileKind{what: "a project's .env, which Gemini CLI loads into its environment and its hooks'", env: true, unreadWrites: true}

// startupFiles are the shells' start-up files, each in the folder a
// variable names.
var startupFiles = []struct{ dirEnv, name string }{
	{"HOME", ".profile"}, {"HOME", ".bash_profile"}, {"HOME", ".bash_login"}, {"HOME", ".bashrc"},
	{"HOME", ".zshenv"}, {"HOME", ".zprofile"}, {"HOME", ".zshrc"}, {"HOME", ".zlogin"},
	{"HOME", ".pam_environment"}, {"XDG_CONFIG_HOME", "fish/config.fish"},
	// Run at logout, and by X sessions at login.
	{"HOME", ".bash_logout"}, {"HOME", ".zlogout"}, {"HOME", ".xprofile"}, {"HOME", ".xsessionrc"},
}

// environmentD is systemd's folder of the user's environment (.conf
// files, NAME=value), read for every user service and session
// (environment.d(5)).
const environmentD = "environment.d"

// guardAssignment finds a line that sets one of the variables that change
// runaway's limits or where runaway and the agents keep their files.
// Compiled on first use: each hook call is a new process, and most never
// edit a start-up file.
var guardAssignment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:(?:^|[\s;&|(])(?:export\s+|declare\s+-x\s+|env\s+)?(` + guardNames + `)=|(?:set\s+-[a-zA-Z]*x[a-zA-Z]*|setenv)\s+(` + guardNames + `)\s)`)
})

const guardNames = `RUNAWAY_[A-Z_]*|XDG_CONFIG_HOME|XDG_STATE_HOME|XDG_BIN_HOME|CLAUDE_CONFIG_DIR|CODEX_HOME|GEMINI_CLI_HOME|BASH_ENV|ENV|ZDOTDIR|HOME`

// startupChange judges the lines a change adds to a start-up file.
func (t *checker) startupChange(path, old, next string) *finding {
	have := map[string]int{}
	for l := range strings.Lines(old) {
		have[strings.TrimSpace(l)]++
	}
	var added []string
	for l := range strings.Lines(next) {
		l = strings.TrimSpace(l)
		if have[l] > 0 {
			have[l]--
			continue
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			added = append(added, l)
		}
	}
	for _, l := range added {
		if m := guardAssignment().FindStringSubmatch(l); m != nil {
			return &finding{action: "set " + m[1] + m[2] + " in " + path, why: "which the next shell or agent run loads: it changes runaway's limits or where runaway or the agents keep their files"}
		}
	}
	if base := filepath.Base(path); base == ".env" || strings.HasSuffix(base, ".conf") || base == ".pam_environment" {
		return nil // NAME=value lines only: nothing runs
	}
	t.shell(strings.Join(added, "\n"), t.cwd)
	if f := t.found; f != nil {
		t.found = nil
		return &finding{action: "add a command to " + path + " that runs when a shell starts and would " + f.action, path: f.path}
	}
	return nil
}
