package installer

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/sysmode"
)

// fakeGroups is the OS's group database for a system install under a temp
// root: the test's own group.
type fakeGroups struct{ made, deleted []string }

func (g *fakeGroups) Ensure(name string) (int, bool, error) {
	g.made = append(g.made, name)
	return os.Getgid(), true, nil
}

func (g *fakeGroups) Delete(name string) error {
	g.deleted = append(g.deleted, name)
	return nil
}

// snapshotTree maps every path under root to its mode and bytes.
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Lstat(p)
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += " " + string(b)
		}
		out[p] = v
		return nil
	})
	return out
}

func TestSystemSetupThenRemoveIsExact(t *testing.T) {
	root := t.TempDir()
	l := sysmode.Layout{Root: root, GOOS: "linux", Owner: os.Getuid()}
	// An administrator's files the install writes into: kept byte for byte.
	gemini := filepath.Join(root, "etc", "gemini-cli", "settings.json")
	os.MkdirAll(filepath.Dir(gemini), 0o755)
	os.WriteFile(gemini, []byte("{\n  // the admin's\n  \"ui\": {\"theme\": \"x\"}\n}\n"), 0o644)
	codex := filepath.Join(root, "etc", "codex", "requirements.toml")
	os.MkdirAll(filepath.Dir(codex), 0o755)
	os.WriteFile(codex, []byte("allowed_approval_policies = [\"on-request\"]\n"), 0o644)
	for _, d := range []string{"usr/local/bin", "var/lib"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	exe := filepath.Join(t.TempDir(), "runaway")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	before := snapshotTree(t, root)

	groups := &fakeGroups{}
	capUSD := 7.0
	o := SystemOptions{Setup: SetupOptions{Limits: map[string]any{"session_cap_usd": capUSD}}, Layout: l, Executable: exe, Groups: groups}
	plan, err := PlanSystemSetup(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	for _, w := range l.Wants(os.Getgid()) {
		if err := l.Check(w); err != nil {
			t.Errorf("after setup: %v", err)
		}
	}
	cfg, _ := os.ReadFile(l.ConfigFile())
	if !strings.Contains(string(cfg), `"session_cap_usd": 7`) {
		t.Errorf("config:\n%s", cfg)
	}
	g, _ := os.ReadFile(gemini)
	if !strings.Contains(string(g), "// the admin's") || !strings.Contains(string(g), l.Bin()) {
		t.Errorf("gemini system settings:\n%s", g)
	}
	// Gemini CLI's bash is found on each entry's PATH (BeforeTool, BeforeModel,
	// AfterModel), not the user's.
	if strings.Count(string(g), `"PATH": "/usr/bin:/bin",`) != 3 || strings.Count(string(g), `"BASH_ENV": ""`) != 3 {
		t.Errorf("gemini system entries without their fixed PATH and BASH_ENV:\n%s", g)
	}
	c, _ := os.ReadFile(codex)
	if !strings.HasPrefix(string(c), "allowed_approval_policies") || !strings.Contains(string(c), "[[hooks.PreToolUse.hooks]]") {
		t.Errorf("requirements.toml:\n%s", c)
	}
	drop := filepath.Join(root, "etc", "claude-code", "managed-settings.d", "runaway.json")
	d, err := os.ReadFile(drop)
	if err != nil || !strings.Contains(string(d), `"args"`) {
		t.Errorf("Claude Code's drop-in (exec form): %s %v", d, err)
	}
	// Copilot CLI's policy hooks: runaway's own file, no shell.
	pol := filepath.Join(root, "etc", "github-copilot", "policy.d", "runaway.json")
	if p, err := os.ReadFile(pol); err != nil || !strings.Contains(string(p), `"exec": "`+l.Bin()+`"`) || strings.Contains(string(p), `"bash"`) {
		t.Errorf("Copilot CLI's policy hooks (exec form): %s %v", p, err)
	} else if fi, _ := os.Stat(pol); fi.Mode().Perm() != 0o644 {
		t.Errorf("policy hooks file mode %v, want 0644 (Copilot CLI skips a group- or world-writable one)", fi.Mode())
	}
	// Setup run again changes nothing.
	again, err := PlanSystemSetup(o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := again.Diff(); diff != "" {
		t.Errorf("second setup would change:\n%s", diff)
	}

	rm, err := PlanSystemRemove(SystemOptions{Layout: l, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := rm.Apply(); err != nil {
		t.Fatal(err)
	}
	after := snapshotTree(t, root)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: before %q, after remove %q", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s left behind by remove", p)
		}
	}
	if len(groups.deleted) != 1 {
		t.Errorf("groups made %v, deleted %v", groups.made, groups.deleted)
	}
}

func TestSystemSetupRefusesLinkedManagedFile(t *testing.T) {
	root := t.TempDir()
	l := sysmode.Layout{Root: root, GOOS: "linux", Owner: os.Getuid()}
	os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(root, "etc", "claude-code"))
	exe := filepath.Join(t.TempDir(), "runaway")
	os.WriteFile(exe, []byte("x"), 0o755)
	_, err := PlanSystemSetup(SystemOptions{Layout: l, Executable: exe, Groups: &fakeGroups{}, Setup: SetupOptions{Harnesses: []agent.ID{"claude"}}})
	if err == nil || !strings.Contains(err.Error(), "is a link") {
		t.Fatalf("err = %v", err)
	}
}

func TestCodexRequirementsBlockRoundTrip(t *testing.T) {
	block := configs.CodexRequirementsBlock("/usr/local/bin/runaway", true)
	for _, in := range []string{"", "a = 1\n", "a = 1\n\n[features]\nx = true\n"} {
		out, err := configs.AddTOMLBlock([]byte(in), block)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out, []byte("allow_managed_hooks_only = true")) {
			t.Errorf("no managed-only line:\n%s", out)
		}
		// Adding again replaces the block.
		out2, _ := configs.AddTOMLBlock(out, block)
		if !bytes.Equal(out, out2) {
			t.Errorf("second add changed the file:\n%s\n---\n%s", out, out2)
		}
		back, found, err := configs.CutTOMLBlock(out)
		if err != nil || !found || string(back) != in {
			t.Errorf("cut gave %q (found %v, %v), want %q", back, found, err, in)
		}
	}
	if _, err := configs.AddTOMLBlock([]byte("[hooks]\nmanaged_dir = \"/x\"\n"), block); err == nil {
		t.Error("a file with hooks of its own was not refused")
	}
}
