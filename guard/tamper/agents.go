package tamper

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// What the wire knows about each agent is one row, in that agent's file
// (claude.go, codex.go, …) and listed in agents: the files that hold
// runaway's entry or switch the agent's hooks off, and how a change to each
// is judged (its fileKinds); the env files it loads at start; its files
// found by name in any folder; the variables that give a nested run other
// settings; and how it can be started from a tool call without its hooks.
// Its program and package names come from package agent.

// agentRules is one agent's row.
type agentRules struct {
	id agent.ID
	// files are its files in the folders variables name (by default under
	// HOME, see envDefault): settings that hold runaway's entry or switch
	// its hooks off, and the env files it loads at start (startupFile).
	files []agentFile
	// anywhere are its files by their name in any folder (a project's
	// .claude/settings.json); an inProject one in the call's folder is
	// protected as if it were named (rm -rf .claude).
	anywhere []agentFile
	// homeVars are its variables that, set for a nested run, give it
	// other settings (CLAUDE_CONFIG_DIR), beside HOME, XDG_* and RUNAWAY_*.
	homeVars []string
	// start checks a nested run's arguments for the ways to start it
	// without its hooks (nil: none but homeVars).
	start func(sh *shell, args []string, cmdEnv map[string]string)
}

// agentFile is one of an agent's files.
type agentFile struct {
	kind *fileKind
	// dirEnv names the variable whose folder holds it (files); "" for
	// anywhere, whose name is matched as the path's last elements.
	dirEnv    string
	name      string
	inProject bool
}

// agents lists every agent whose files the wire guards, in the order
// their files are looked at (a reason names the first one a folder holds).
var agents = []*agentRules{&claudeRules, &codexRules, &openCodeRules, &geminiRules, &qwenRules, &copilotRules}

// noRules are the agents the wire guards nothing for, and why.
var noRules = []struct {
	id  agent.ID
	why string
}{
	{agent.Cursor, "runaway stays out of Cursor's calls (its transcripts carry no usage): no wire runs there, and no entry of runaway's is in its files"},
}

// Guards reports whether the wire has a row for the agent.
func Guards(id agent.ID) bool {
	return slices.ContainsFunc(agents, func(a *agentRules) bool { return a.id == id })
}

// NoRules says why the wire has no row for the agent, when it says so.
func NoRules(id agent.ID) (string, bool) {
	for _, n := range noRules {
		if n.id == id {
			return n.why, true
		}
	}
	return "", false
}

func (a *agentRules) facts() *agent.Facts { return agent.Of(a.id) }

// A fileKind is what a protected path is to runaway, and how a change to
// it is judged: runaway's own files and the start-up files here, each
// agent's files in that agent's file. nil is a path not protected.
type fileKind struct {
	what string // for people: "Codex's hooks file"
	own  bool   // runaway's own: any write is denied, whatever it writes
	// hooks: a JSON file whose "hooks" (event → groups → handlers) can
	// hold runaway's entry; strict: its agent rejects comments and
	// trailing commas; positions: runaway's entries are told apart by
	// position too (Codex's trust keys name it).
	hooks, strict, positions bool
	// change judges a write over the file (nil: owned decides). A row's
	// functions must not reach agents (Go would report an initialization
	// cycle): they name their own paths (codexHooksPath).
	change func(t *checker, path string, w fileWrite) *finding
	// edit judges an edit from its strings alone, when it cannot be tried
	// on the file (nil: only runaway's entry named counts).
	edit func(path, old, new string) *finding
	// parse reads the file for the command lines it runs outside tool
	// calls: hooks, statusLine, notify… (nil: it runs none).
	parse func(text string) (map[string]any, bool)
	// canAsk: its agent can ask the person about a new such command.
	canAsk bool
	// watched: the tripwire keeps its digest (see WatchedFiles).
	watched bool
	// heldByGit: git must not restore or drop it even when it holds no
	// entry of runaway's (Codex's trust records).
	heldByGit bool
	// env: it sets variables, judged by the lines a write adds (see
	// startupChange); removing or chmod-ing it sets nothing.
	env bool
	// unreadWrites: a write whose content the wire cannot know passes (a
	// project's .env, which sed -i and tools rewrite every day).
	unreadWrites bool
}

// fileWrite is a write the wire judges: the file's text before and after
// (exists: whether each is a file; a missing or empty file is `{}`).
type fileWrite struct {
	old, next             string
	oldExists, nextExists bool
}

// runaway's own files.
var (
	ownConfig = &fileKind{what: "runaway's own config", own: true} // $XDG_CONFIG_HOME/runaway and anything in it
	ownState  = &fileKind{what: "runaway's state", own: true}      // $XDG_STATE_HOME/runaway and anything in it
	ownBinary = &fileKind{what: "runaway's program", own: true}    // $XDG_BIN_HOME/runaway, the running program
)

// notProtected is a path that is none of them.
var notProtected *fileKind

// owned: any write is denied, whatever it writes.
func (k *fileKind) owned() bool { return k != nil && k.own }

// noun names a protected file for people.
func (k *fileKind) noun() string {
	if k == nil {
		return "a protected file"
	}
	return k.what
}

// xdgDefaults are the XDG folders' defaults, relative to HOME.
var xdgDefaults = [...][2]string{
	{"XDG_CONFIG_HOME", ".config"},
	{"XDG_STATE_HOME", ".local/state"},
	{"XDG_DATA_HOME", ".local/share"},
	{"XDG_CACHE_HOME", ".cache"},
	{"XDG_BIN_HOME", ".local/bin"},
}

// envDefault is the default, relative to HOME, of a variable that names
// runaway's or an agent's folder (GEMINI_CLI_HOME's is HOME itself: "").
func envDefault(name string) (string, bool) {
	for _, d := range xdgDefaults {
		if d[0] == name {
			return d[1], true
		}
	}
	for _, f := range agent.All {
		if f.Config.Var == name {
			return f.Config.Default, true
		}
	}
	return "", false
}

// guardEnv reports a variable that, set in a settings file's env (which
// Claude Code passes to its hooks), changes runaway's limits or where it
// keeps its files.
func guardEnv(name string) bool {
	switch name {
	case "HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_BIN_HOME":
		return true
	}
	return strings.HasPrefix(name, "RUNAWAY_")
}

// agentCommand checks an agent the line starts (name is the program's
// base name) for the ways to start it without runaway's hook; it reports
// whether name is an agent.
func (sh *shell) agentCommand(name string, args []string, cmdEnv map[string]string) bool {
	a := agentNamed(name)
	if a == nil {
		return false
	}
	sh.agentEnv(a.facts().Name, cmdEnv, a.homeVars...)
	if a.start != nil {
		a.start(sh, args, cmdEnv)
	}
	return true
}

// agentNamed is the row of the agent whose program is name.
func agentNamed(name string) *agentRules {
	for _, a := range agents {
		if slices.Contains(a.facts().Programs, name) {
			return a
		}
	}
	return nil
}

// agentPackage maps an npm package (npx, bunx, pnpm dlx: its name without
// the leading @ and the version) to its agent's program name: the
// package, or one of the same name in another scope.
func agentPackage(pkg string) string {
	for _, a := range agents {
		f := a.facts()
		for _, p := range f.Packages {
			full := strings.TrimPrefix(p, "@")
			base := path.Base(full)
			if (pkg == full || pkg == base || strings.HasSuffix(pkg, "/"+base)) && len(f.Programs) > 0 {
				return f.Programs[0]
			}
		}
	}
	return ""
}

// agentScript maps a script node runs to its agent's program name: a
// file of its installed package, or named as its program.
func agentScript(p string) string {
	slash := filepath.ToSlash(p)
	base := strings.TrimSuffix(path.Base(slash), ".js")
	for _, a := range agents {
		f := a.facts()
		if len(f.Programs) == 0 {
			continue
		}
		if slices.Contains(f.Programs, base) {
			return f.Programs[0]
		}
		for _, pkg := range f.Packages {
			if strings.Contains(slash, pkg+"/") {
				return f.Programs[0]
			}
		}
		for _, m := range f.ScriptMarks {
			if strings.Contains(slash, m) {
				return f.Programs[0]
			}
		}
	}
	return ""
}

// agentEnv: a nested agent started with another home, config folder,
// runaway's variables or hooks skipped runs without runaway's guard, or
// with other limits. vars are the agent's own such variables.
func (sh *shell) agentEnv(agent string, cmdEnv map[string]string, vars ...string) {
	set := func(k string) bool {
		if _, ok := cmdEnv[k]; ok {
			return true
		}
		v, ok := sh.env.vars[k]
		return ok && v.Exported
	}
	names := append([]string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_BIN_HOME"}, vars...)
	for k := range cmdEnv {
		if strings.HasPrefix(k, "RUNAWAY_") {
			names = append(names, k)
		}
	}
	for k, v := range sh.env.vars {
		if strings.HasPrefix(k, "RUNAWAY_") && v.Exported {
			names = append(names, k)
		}
	}
	for _, k := range names {
		if set(k) && !sh.sameAsNow(k, cmdEnv) {
			sh.t.deny(&finding{action: "start " + agent + " with another " + k, why: "which runs it without runaway's hook or with other limits"})
			return
		}
	}
}

// sameAsNow reports a variable set for a nested agent to the value it has
// already (GEMINI_CLI_HOME=$HOME).
func (sh *shell) sameAsNow(k string, cmdEnv map[string]string) bool {
	v, ok := cmdEnv[k]
	if !ok {
		v = sh.env.vars[k].Str
	}
	if !known(v) || v == "" {
		return false
	}
	now := sh.t.getenv(k)
	if now == "" {
		if _, ok := envDefault(k); ok {
			now = sh.t.envDir(k)
		}
	}
	return now != "" && filepath.Clean(v) == filepath.Clean(now)
}

// hooksChange judges a write to a JSON file of hook entries (kind.hooks)
// after the agent's own checks: removing the file, leaving it unreadable
// or dropping or changing runaway's entries (positions: told apart by
// position too). held reports that the old file held them and the new one
// keeps them.
func hooksChange(positions bool, path string, w fileWrite, oldV map[string]any, oldOK bool, newV map[string]any, newOK bool) (f *finding, held bool) {
	if !oldOK {
		return nil, false
	}
	oldE := runawayEntries(oldV, positions)
	if len(oldE) == 0 {
		return nil, false
	}
	if !w.nextExists {
		return &finding{action: "remove " + path, why: "which holds runaway's hook"}, false
	}
	if !newOK {
		return &finding{action: "leave " + path + " unreadable", why: "which would switch runaway's hook off"}, false
	}
	if !containsAll(runawayEntries(newV, positions), oldE) {
		return &finding{action: "remove or change runaway's hook entry in " + path}, false
	}
	return nil, true
}

// hooksEdit judges an edit to a JSON file of hook entries from its strings
// alone: it sets disableAllHooks, removes the hooks key, or sets runaway's
// variables in env.
func hooksEdit(path, old, new string) *finding {
	flat := strings.Join(strings.Fields(new), "")
	flatOld := strings.Join(strings.Fields(old), "")
	if strings.Contains(flat, `"disableAllHooks":true`) {
		return &finding{action: "set disableAllHooks in " + path, why: "which switches every hook off, runaway's too"}
	}
	if strings.Contains(flatOld, `"hooks":`) && !strings.Contains(flat, `"hooks":`) {
		return &finding{action: "remove the hooks of " + path}
	}
	if strings.Contains(new, `"RUNAWAY_`) || strings.Contains(new, `"XDG_STATE_HOME"`) || strings.Contains(new, `"XDG_CONFIG_HOME"`) {
		return &finding{action: "set runaway's variables in the env of " + path, why: "which changes runaway's limits or where it keeps its files"}
	}
	return nil
}

// looseJSON parses a settings file, comments and trailing commas allowed.
func looseJSON(text string) (map[string]any, bool) { return parseSettingsJSON(text, false) }

// holdsEntry reports whether the hooks file at p holds runaway's entry.
func holdsEntry(kind *fileKind, p string) bool {
	if kind == nil || !kind.hooks {
		return false
	}
	data, err := readSmall(p)
	if err != nil {
		return false
	}
	v, ok := parseSettingsJSON(data, false)
	return ok && len(runawayEntries(v, kind.positions)) > 0
}
