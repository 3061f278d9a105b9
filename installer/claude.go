package installer

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// claudeHarness: Claude Code, with every answer. Doctor checks its
// disableAllHooks switches and the deny rules setup writes for it.
var claudeHarness = Harness{
	ID: agent.Claude, Name: "Claude Code", Support: AllWires,
	Why:            "runaway runs before every tool call and can warn you, ask you, deny the call, or end the turn.",
	doctor:         (*doctor).checkWired,
	settingsChecks: func(d *doctor, w *wiredChecks) { d.checkClaudeSwitch(w.doc) },
	protection:     (*doctor).checkClaudeRules,
	denyRule:       configs.ClaudeEditRule,
	platform: func(p *configs.Platform, goos, version string) {
		// Elsewhere the shell form works in every version.
		p.ClaudeExecForm = goos == "windows" && configs.ClaudeRunsExecForm(version)
		p.ClaudeSkillShell = configs.ClaudeHasSkillShell(version)
	},
	events: map[string]eventCheck{
		configs.ClaudeSkillShellEvent: {"skill-entry", "each runs before every shell command of a skill", "the shell commands a skill runs as it loads are not judged"},
		configs.ClaudeBatchEvent:      {"batch-entry", "each runs after every batch of tool calls", "a response Claude Code writes to its transcript after the call's hook ran is not counted before the next request"},
	},
}

// checkClaudeSwitch looks for disableAllHooks in the user settings and in
// the current folder's project settings.
func (d *doctor) checkClaudeSwitch(user *configs.Doc) {
	files := []string{configs.ClaudeSettings().Path}
	if d.opts.Dir != "" {
		files = append(files,
			filepath.Join(d.opts.Dir, ".claude", "settings.json"),
			filepath.Join(d.opts.Dir, ".claude", "settings.local.json"))
	}
	d.checkAllHooksOff("claude-hooks-off", "Claude Code", user, files)
}

func (d *doctor) checkClaudeRules(f InstalledFile) {
	const check = "claude-protection"
	name := ownfiles.Tilde(f.Path)
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return // checkFile has said what is wrong with the file
	}
	doc, err := configs.ParseDoc(name, b, true)
	if err != nil {
		return
	}
	have, _ := doc.DenyRules()
	want := denyRules(configs.ClaudeEditRule, d.paths, d.recordedSettings(), runtime.GOOS)
	var missing []string
	for _, r := range want {
		if !slices.Contains(have, r) {
			missing = append(missing, r)
		}
	}
	var v struct {
		Sandbox struct{ Enabled bool } `json:"sandbox"`
	}
	_ = doc.Value(&v)
	bash := "its Bash is held by the tamper wire only: turn Claude Code's sandbox on (/sandbox) and its Edit rules hold Bash too"
	if v.Sandbox.Enabled {
		bash = "its sandbox holds Bash to them too"
	}
	switch {
	case len(missing) == 0:
		d.add(StatusOK, check, "enforced by Claude Code: %d permissions.deny rules in %s keep its file tools off runaway's files and settings; %s", len(want), name, bash)
	case len(missing) == len(want):
		d.add(StatusWarn, check, "guard rail only: runaway's tamper wire reads each call, but Claude Code itself lets its tools edit runaway's files; run: runaway setup --agent-rules")
	default:
		d.add(StatusWarn, check, "%d of %d permissions.deny rules for runaway's files are missing from %s (%s): those paths are held by the tamper wire only; run: runaway setup --agent-rules",
			len(missing), len(want), name, strings.Join(missing, ", "))
	}
}
