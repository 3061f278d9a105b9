package tamper

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// Files that run later: a Makefile's recipes, package.json's scripts, git
// hooks, .envrc, conftest.py, a user systemd unit's Exec lines, a program
// in a folder on PATH run when someone builds, tests, enters the folder,
// logs in or runs that name, outside any tool call the wire sees. A write whose content is
// known (the Write and Edit tools, an echo or heredoc into it, a patch) is
// judged by what it adds, as if it ran now. A write the wire cannot read
// (cp, sed -i) passes: these are everyday files, and the tripwire notices
// what their commands change when they run.

// laterKind names how a file that runs later is read, or "": by its
// name, or as a program in a folder on the hook's PATH (a program put
// earlier on PATH runs instead of the one its name meant).
func (t *checker) laterKind(p string) string {
	if k := laterKindByName(p); k != "" {
		return k
	}
	dir := filepath.Dir(filepath.Clean(p))
	for _, d := range filepath.SplitList(t.getenv("PATH")) {
		if d != "" && filepath.IsAbs(d) && filepath.Clean(d) == dir {
			return "program"
		}
	}
	return ""
}

// laterKindByName names how a file that runs later is read, by its name.
func laterKindByName(p string) string {
	base := filepath.Base(p)
	slash := filepath.ToSlash(p)
	switch {
	case strings.Contains(slash, "/systemd/user/") && (strings.HasSuffix(base, ".service") || strings.HasSuffix(base, ".socket") || strings.HasSuffix(base, ".path")):
		return "systemd"
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk"):
		return "make"
	case base == "package.json":
		return "npm"
	case base == ".envrc" || strings.Contains(filepath.ToSlash(p), "/.git/hooks/") || strings.Contains(filepath.ToSlash(p), "/.husky/"):
		return "shell"
	case base == "conftest.py" || base == "setup.py" || base == "noxfile.py":
		return "python"
	}
	return ""
}

// laterChange judges what a write adds to a file that runs later.
func (t *checker) laterChange(p, old, next string) *finding {
	var cmds []string
	kind := t.laterKind(p)
	switch kind {
	case "make":
		// Recipe lines (a tab first); $$ is the shell's $.
		have := map[string]int{}
		for l := range strings.Lines(old) {
			have[l]++
		}
		for l := range strings.Lines(next) {
			if have[l] > 0 {
				have[l]--
				continue
			}
			if strings.HasPrefix(l, "\t") {
				c := strings.TrimLeft(strings.TrimSpace(l), "@-+")
				cmds = append(cmds, strings.ReplaceAll(c, "$$", "$"))
			}
		}
	case "npm":
		var before, after struct {
			Scripts map[string]string `json:"scripts"`
		}
		_ = json.Unmarshal([]byte(old), &before)
		if json.Unmarshal([]byte(next), &after) != nil {
			return nil
		}
		for k, v := range after.Scripts {
			if before.Scripts[k] != v {
				cmds = append(cmds, v)
			}
		}
	case "shell":
		if next != old {
			cmds = append(cmds, next)
		}
	case "python":
		if next != old {
			return t.code(next)
		}
	case "systemd":
		// systemd.service(5): Exec*= lines, their prefixes (-@:+!) off.
		for l := range strings.Lines(next) {
			l = strings.TrimSpace(l)
			if k, v, ok := strings.Cut(l, "="); ok && strings.HasPrefix(strings.TrimSpace(k), "Exec") {
				cmds = append(cmds, strings.TrimLeft(strings.TrimSpace(v), "-@:+!"))
			}
		}
	case "program":
		if next == old {
			return nil
		}
		first, _, _ := strings.Cut(next, "\n")
		if strings.HasPrefix(first, "#!") && !strings.Contains(first, "sh") {
			return t.code(next) // python, node, perl…
		}
		cmds = append(cmds, next)
	}
	for _, c := range cmds {
		t.shell(c, t.cwd)
		if f := t.found; f != nil {
			t.found = nil
			return &finding{action: "write " + p + ", which runs later (" + kind + ") and would " + f.action, path: f.path}
		}
		if t.expired() {
			return nil
		}
	}
	return nil
}
