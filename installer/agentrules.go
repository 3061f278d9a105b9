package installer

import (
	"path/filepath"
	"runtime"
	"slices"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// The agents' own guards: where an agent can keep its tools away from
// paths by rules it enforces itself, setup offers to write them (on by
// default). Claude Code: `permissions.deny` Edit rules in its user settings
// for runaway's config, state and program and for every settings file that
// holds runaway's entry. Claude Code applies them to all its file-editing
// tools whatever the hook says (also with hooks off or runaway missing), and
// to its sandboxed Bash when the person turns the sandbox on.

// AgentRulesHelp explains the choice, for the wizard and --help.
const AgentRulesHelp = "Claude Code can refuse, on its own, every edit of runaway's files " +
	"(its config, state and program, and the settings holding its entry): " +
	"permissions.deny rules in ~/.claude/settings.json. They hold even if the hook is " +
	"switched off, and cover Claude Code's Bash too when its sandbox is on. " +
	"The agent then cannot edit those files for you either; remove takes the rules out."

// protectedPaths are the paths the rules keep out of the agent's reach:
// folders and files, with their real paths too when symlinks lead there.
func protectedPaths(paths Paths, settings []string) (dirs, files []string) {
	add := func(list *[]string, p string) {
		for _, q := range []string{p, realPath(p)} {
			if q != "" && !slices.Contains(*list, q) {
				*list = append(*list, q)
			}
		}
	}
	add(&dirs, filepath.Dir(paths.Config))
	add(&dirs, paths.State)
	add(&files, paths.Bin)
	for _, s := range settings {
		add(&files, s)
	}
	return dirs, files
}

// realPath resolves symlinks of p or of its nearest existing parent.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if parent := filepath.Dir(p); parent != p {
		if r := realPath(parent); r != "" {
			return filepath.Join(r, filepath.Base(p))
		}
	}
	return ""
}

// denyRules are an agent's deny rules (rule writes one) for runaway's
// files and the given settings files, in a stable order.
func denyRules(rule func(path string, dir bool, goos string) string, paths Paths, settings []string, goos string) []string {
	dirs, files := protectedPaths(paths, settings)
	var rules []string
	for _, d := range dirs {
		rules = append(rules, rule(d, true, goos))
	}
	for _, f := range files {
		rules = append(rules, rule(f, false, goos))
	}
	return rules
}

// guardedSettings are the settings files that hold or will hold runaway's
// entry: the plan's and those an earlier setup recorded, each with the
// files beside it that switch its hooks (its Harness.besides: Codex's
// config.toml, which holds its hooks switch and trust records).
func (p *SetupPlan) guardedSettings() []string {
	var out []string
	add := func(id agent.ID, path string) {
		paths := []string{path}
		if h, ok := HarnessByID(id); ok && h.besides != nil {
			paths = append(paths, h.besides(path)...)
		}
		for _, p := range paths {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	for _, e := range p.Files {
		switch e := e.(type) { // runaway's config and OpenCode's package-lock.json guard nothing
		case *hookEdit:
			add(e.harness, e.path)
		case *pluginEdit:
			add(agent.OpenCode, e.path)
		}
	}
	if p.prior != nil {
		for _, f := range p.prior.Files {
			add(f.Harness, f.Path)
		}
	}
	return out
}

// planAgentRules adds (on) or takes out (off) the deny rules of each
// agent wired that keeps rules of its own (its Harness.denyRule: Claude
// Code's permissions.deny) in the plan's edit of its user settings file.
// Rules setup added before and no longer wanted go; rules the person had
// stay theirs.
func (p *SetupPlan) planAgentRules(on bool) error {
	for _, h := range p.Wire {
		if h.denyRule == nil {
			continue
		}
		if err := p.planDenyRules(h, on); err != nil {
			return err
		}
	}
	return nil
}

func (p *SetupPlan) planDenyRules(h Harness, on bool) error {
	edit := p.Files.hookEditOf(h.ID)
	if edit == nil {
		return nil
	}
	var prior configs.RulesUndo
	if rec := p.prior.File(h.ID); rec != nil && rec.Rules != nil && filepath.Clean(rec.Path) == filepath.Clean(edit.path) {
		prior = *rec.Rules
	}
	var want []string
	if on {
		want = denyRules(h.denyRule, p.paths, p.guardedSettings(), runtime.GOOS)
	}
	doc, err := configs.ParseDoc(ownfiles.Tilde(edit.path), edit.after, true)
	if err != nil {
		return err
	}
	stale := prior
	stale.Rules = slices.DeleteFunc(slices.Clone(prior.Rules), func(r string) bool { return slices.Contains(want, r) })
	if len(stale.Rules) > 0 {
		if len(want) > 0 {
			stale.Created = "" // the container stays for the rules that remain
		}
		if _, err := doc.RemoveDenyRules(stale); err != nil {
			return err
		}
	}
	added, err := doc.AddDenyRules(want)
	if err != nil {
		return err
	}
	kept := slices.DeleteFunc(slices.Clone(prior.Rules), func(r string) bool { return !slices.Contains(want, r) })
	u := configs.RulesUndo{Rules: append(kept, added.Rules...), Created: prior.Created, EmptyInner: prior.EmptyInner}
	if len(prior.Rules) == 0 {
		// Otherwise what the first setup created still holds the rules.
		u.Created, u.EmptyInner = added.Created, added.EmptyInner
	}
	edit.after = doc.Pack()
	if len(u.Rules) > 0 {
		edit.rules = &u
	}
	return nil
}
