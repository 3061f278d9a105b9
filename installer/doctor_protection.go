package installer

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// checkProtection says, per wired agent, how well runaway's files are kept
// out of the agent's reach: by the tamper wire alone (a guard rail that
// reads each call) or also by the agent itself (its own rules or sandbox).
func (d *doctor) checkProtection() {
	if d.rec == nil {
		return
	}
	for _, f := range d.rec.Files {
		if f.Project {
			continue
		}
		h, _ := HarnessByID(f.Harness)
		switch {
		case h.protection != nil:
			h.protection(d, f)
		default:
			d.add(StatusOK, string(f.Harness)+"-protection", "guard rail only: runaway's tamper wire reads each call; %s has no rules runaway can write to keep its tools away from runaway's files", h.Name)
		}
	}
}

// recordedSettings are the settings files setup recorded, with Codex's
// config.toml beside its hooks file (as setup protects them).
func (d *doctor) recordedSettings() []string {
	var out []string
	for _, f := range d.rec.Files {
		out = append(out, f.Path)
		if f.Harness == "codex" {
			out = append(out, filepath.Join(filepath.Dir(f.Path), "config.toml"))
		}
	}
	return out
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
	want := claudeRules(d.paths, d.recordedSettings(), runtime.GOOS)
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

// checkCodexSandbox reads Codex's sandbox_mode: Codex's own sandbox keeps
// its commands from writing outside their writable roots.
func (d *doctor) checkCodexSandbox(f InstalledFile) {
	const check = "codex-protection"
	var cfg struct {
		SandboxMode string `toml:"sandbox_mode"`
		Workspace   struct {
			WritableRoots       []string `toml:"writable_roots"`
			ExcludeSlashTmp     bool     `toml:"exclude_slash_tmp"`
			ExcludeTmpdirEnvVar bool     `toml:"exclude_tmpdir_env_var"`
		} `toml:"sandbox_workspace_write"`
	}
	path := filepath.Join(filepath.Dir(f.Path), "config.toml")
	if b, err := os.ReadFile(path); err == nil {
		if _, err := toml.Decode(string(b), &cfg); err != nil {
			return // checkCodexConfig has said it does not parse
		}
	}
	bypass := "; a run with --dangerously-bypass-approvals-and-sandbox or --sandbox danger-full-access is held by the tamper wire only"
	switch cfg.SandboxMode {
	case "danger-full-access":
		d.add(StatusWarn, check, "guard rail only: sandbox_mode = \"danger-full-access\" in %s lets Codex's commands write anywhere, runaway's files included; only runaway's tamper wire reads them", ownfiles.Tilde(path))
	case "read-only":
		d.add(StatusOK, check, "enforced by Codex: sandbox_mode = \"read-only\" keeps its commands from writing anywhere%s", bypass)
	case "workspace-write", "":
		dirs, files := protectedPaths(d.paths, d.recordedSettings())
		// Besides the workspace and writable_roots, Codex lets commands
		// write /tmp and $TMPDIR unless told not to.
		roots := slices.Clone(cfg.Workspace.WritableRoots)
		if !cfg.Workspace.ExcludeSlashTmp && runtime.GOOS != "windows" {
			roots = append(roots, "/tmp")
		}
		if tmp := os.Getenv("TMPDIR"); tmp != "" && !cfg.Workspace.ExcludeTmpdirEnvVar {
			roots = append(roots, tmp)
		}
		for _, root := range roots {
			for _, p := range append(dirs, files...) {
				if within(p, root) {
					d.add(StatusWarn, check, "guard rail only for %s: it is inside %s, which Codex's commands may write under workspace-write (writable_roots, or /tmp and $TMPDIR unless [sandbox_workspace_write] exclude_slash_tmp and exclude_tmpdir_env_var are set in %s)", ownfiles.Tilde(p), root, ownfiles.Tilde(path))
					return
				}
			}
		}
		mode := "sandbox_mode = \"workspace-write\" keeps its commands"
		if cfg.SandboxMode == "" {
			mode = "no sandbox_mode is set: codex exec runs read-only, and workspace-write keeps commands"
		}
		d.add(StatusOK, check, "enforced by Codex: %s to the workspace, /tmp and its writable roots, which hold none of runaway's files, unless codex starts in a folder that holds them (such as your home)%s", mode, bypass)
	default:
		d.add(StatusWarn, check, "sandbox_mode = %q in %s is not one runaway knows: runaway's files are held by the tamper wire only", cfg.SandboxMode, ownfiles.Tilde(path))
	}
}

// within reports whether path is root or inside it.
func within(path, root string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
