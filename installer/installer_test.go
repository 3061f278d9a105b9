package installer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/testhome"
)

// sandbox points HOME, the agents' folders and PATH into a temp folder and
// returns runaway's paths inside it. No test may touch a real home.
func sandbox(t *testing.T) (home string, paths Paths) {
	t.Helper()
	home = testhome.Isolate(t)
	// The agents' own variables unset: each found at its default folder
	// in home, as on a machine that never set them.
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME", "QWEN_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("PATH", filepath.Join(home, "path"))
	state := filepath.Join(home, "state", "runaway")
	return home, Paths{
		Bin:       filepath.Join(home, "bin", "runaway"),
		Config:    filepath.Join(home, "config", "runaway", "config.json"),
		State:     state,
		Installed: filepath.Join(state, "installed.json"),
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, path string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func found(t *testing.T, id agent.ID) Found {
	t.Helper()
	for _, f := range Detect() {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no harness %s", id)
	return Found{}
}

func TestDetect(t *testing.T) {
	home, _ := sandbox(t)
	for _, id := range agent.IDs() {
		if f := found(t, id); f.Found {
			t.Errorf("%s found in an empty home: %v", id, f.Where)
		}
	}

	// Claude Code from npm: the version comes from the package.json.
	pkg := filepath.Join(home, "npm", "node_modules", "@anthropic-ai", "claude-code")
	write(t, filepath.Join(pkg, "package.json"), `{"name": "@anthropic-ai/claude-code", "version": "2.1.328"}`)
	write(t, filepath.Join(pkg, "bin", "claude.exe"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(pkg, "bin", "claude.exe"), 0o755)
	link(t, filepath.Join(pkg, "bin", "claude.exe"), filepath.Join(home, "path", "claude"))
	// Codex in $CODEX_HOME, not ~/.codex.
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex-home"))
	os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	// Gemini CLI under $GEMINI_CLI_HOME/.gemini.
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(home, "g"))
	os.MkdirAll(filepath.Join(home, "g", ".gemini"), 0o755)
	// OpenCode from its install script, and its native-installer-style version folder.
	ver := filepath.Join(home, ".local", "share", "opencode", "versions", "1.4.0")
	write(t, ver, "#!/bin/sh\n")
	os.Chmod(ver, 0o755)
	link(t, ver, filepath.Join(home, "path", "opencode"))
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)

	c := found(t, "claude")
	if !c.Found || c.Version != "2.1.328" || c.Settings != filepath.Join(home, ".claude", "settings.json") {
		t.Errorf("claude: %+v", c)
	}
	if x := found(t, "codex"); x.Found || x.Settings != filepath.Join(home, "codex-home", "hooks.json") {
		t.Errorf("codex: ~/.codex must not count when $CODEX_HOME is set: %+v", x)
	}
	if g := found(t, "gemini"); !g.Found || g.Support != AllWiresDenyNotAsk || g.Settings != filepath.Join(home, "g", ".gemini", "settings.json") {
		t.Errorf("gemini: %+v", g)
	}
	if o := found(t, "opencode"); !o.Found || o.Version != "1.4.0" {
		t.Errorf("opencode: %+v", o)
	}
	if cu := found(t, "cursor"); !cu.Found || cu.Settings != "" {
		t.Errorf("cursor: %+v", cu)
	}
}

func TestSupportTexts(t *testing.T) {
	for _, h := range Harnesses {
		if h.Why == "" || strings.Count(h.Why, ". ") > 1 {
			t.Errorf("%s: want a one-or-two sentence reason, got %q", h.ID, h.Why)
		}
		hasFile := EntryPath(h.ID) != ""
		if hasFile != (h.Support != NotSupported) {
			t.Errorf("%s: support %v but settings file %v", h.ID, h.Support, hasFile)
		}
	}
	if h, _ := HarnessByID("codex"); !strings.Contains(h.Todo, "/hooks") {
		t.Errorf("codex todo: %q", h.Todo)
	}
}

func fakeBinary(t *testing.T, home, content string) string {
	t.Helper()
	p := filepath.Join(home, "build", "runaway")
	write(t, p, content)
	return p
}

func TestSetupThenRemove(t *testing.T) {
	home, paths := sandbox(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	orig := "{\n\t\"model\": \"opus\"\n}\n"
	write(t, settings, orig)
	capUSD := 7.5
	opts := SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1"), Limits: map[string]any{"session_cap_usd": capUSD}}

	plan, err := PlanSetup(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Wire) != 1 || plan.Wire[0].ID != "claude" {
		t.Fatalf("wire %v: only the found harness", plan.Wire)
	}
	if d := plan.Diff(); !strings.Contains(d, "+++ ~/.claude/settings.json") || !strings.Contains(d, `+	"hooks": {`) {
		t.Fatalf("diff:\n%s", d)
	}
	if _, err := os.Stat(paths.Bin); err == nil {
		t.Fatal("planning wrote the binary")
	}
	if err := plan.Apply(); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(paths.Bin); err != nil || info.Mode().Perm() != 0o755 || read(t, paths.Bin) != "v1" {
		t.Fatalf("binary: %v %v", info, err)
	}
	es, _, err := configs.ReadSettings(configs.ClaudeSettings(), "settings.json")
	if err != nil || len(es) != 3 || es[0].Event != "PreToolUse" || es[1].Event != "UserPromptSubmit" || es[2].Event != configs.ClaudeBatchEvent {
		t.Fatalf("entries %+v %v", es, err)
	}
	for _, e := range es {
		if e.Program != paths.Bin || e.Timeout != configs.HookTimeout || !e.OrTrue {
			t.Fatalf("entry %+v", e)
		}
	}
	rec, err := ReadInstalled(paths.Installed)
	if err != nil || rec.Binary != paths.Bin || rec.File("claude") == nil || rec.File("claude").SHA256 != HashBytes([]byte(read(t, settings))) {
		t.Fatalf("record %+v %v", rec, err)
	}
	if !strings.Contains(read(t, paths.Config), `"session_cap_usd": 7.5`) {
		t.Fatalf("config:\n%s", read(t, paths.Config))
	}

	// The same binary again: nothing to copy, nothing to edit.
	again, err := PlanSetup(opts)
	if err != nil || !again.Binary.Skip || again.Diff() != "" {
		t.Fatalf("second plan: %+v %v\n%s", again.Binary, err, again.Diff())
	}
	// A newer build upgrades the binary in place.
	opts.Executable = fakeBinary(t, home, "v2")
	newer, _ := PlanSetup(opts)
	if !newer.Binary.Upgrade {
		t.Fatalf("binary step %+v", newer.Binary)
	}
	if err := newer.Apply(); err != nil || read(t, paths.Bin) != "v2" {
		t.Fatalf("upgrade: %v", err)
	}

	rm, err := PlanRemove(RemoveOptions{Paths: &paths})
	if err != nil {
		t.Fatal(err)
	}
	if err := rm.Apply(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, settings); got != orig {
		t.Fatalf("after remove:\n%q\nwant\n%q", got, orig)
	}
	if _, err := os.Stat(paths.Installed); !os.IsNotExist(err) {
		t.Fatalf("installed.json left behind: %v", err)
	}
}

func TestRemoveAfterSomeoneElseEdited(t *testing.T) {
	home, paths := sandbox(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	write(t, settings, "{\n  \"model\": \"opus\"\n}\n")
	plan, err := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1")})
	if err != nil || plan.Apply() != nil {
		t.Fatal(err)
	}
	// Someone adds a key after ours.
	now := read(t, settings)
	write(t, settings, strings.Replace(now, "  }\n}\n", "  },\n  \"theme\": \"dark\"\n}\n", 1))
	rm, err := PlanRemove(RemoveOptions{Paths: &paths})
	if err != nil {
		t.Fatal(err)
	}
	if len(rm.Files) != 1 || len(rm.Files[0].Warnings()) != 1 || !strings.Contains(rm.Files[0].Warnings()[0], "changed since setup") {
		t.Fatalf("files %+v", rm.Files)
	}
	if err := rm.Apply(); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, settings), "{\n  \"model\": \"opus\",\n  \"theme\": \"dark\"\n}\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

func TestApplyRefusesFileChangedAfterPlan(t *testing.T) {
	home, paths := sandbox(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	write(t, settings, "{}\n")
	plan, err := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1")})
	if err != nil {
		t.Fatal(err)
	}
	write(t, settings, "{\"theirs\": 1}\n")
	if err := plan.Apply(); err == nil || !strings.Contains(err.Error(), "changed since the plan was made") {
		t.Fatalf("apply: %v", err)
	}
	if _, err := os.Stat(paths.Bin); err == nil {
		t.Fatal("the binary was installed although nothing should be written")
	}
	if read(t, settings) != "{\"theirs\": 1}\n" {
		t.Fatal("their edit was overwritten")
	}
}

func TestNothingToWire(t *testing.T) {
	home, paths := sandbox(t)
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)
	if _, err := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1")}); err != ErrNothingToWire {
		t.Fatalf("got %v", err)
	}
	// Asking for an unsupported harness lists it with its reason.
	plan, err := PlanSetup(SetupOptions{Harnesses: []agent.ID{agent.Claude, agent.Cursor}, Paths: &paths, Executable: fakeBinary(t, home, "v1")})
	if err != nil {
		t.Fatal(err)
	}
	var notWired []string
	for _, f := range plan.NotWired {
		notWired = append(notWired, string(f.ID))
	}
	if strings.Join(notWired, ",") != "cursor" {
		t.Fatalf("not wired: %v", notWired)
	}
	if _, err := PlanSetup(SetupOptions{Harnesses: []agent.ID{"vim"}, Paths: &paths}); err == nil || !strings.Contains(err.Error(), `unknown harness "vim"`) {
		t.Fatalf("got %v", err)
	}
}

// With Claude Code 2.1.332 (its version read from its package.json) setup
// also wires PreSkillShellCommand, which judges the shell commands of
// skills; remove takes it out with the others, giving the file back byte
// for byte. An older Claude Code does not get it (issue 20, item 5).
func TestSetupWiresSkillShellCommandsFrom2_1_332(t *testing.T) {
	for version, want := range map[string]bool{"2.1.332": true, "2.1.331": false} {
		t.Run(version, func(t *testing.T) {
			home, paths := sandbox(t)
			pkg := filepath.Join(home, "npm", "node_modules", "@anthropic-ai", "claude-code")
			write(t, filepath.Join(pkg, "package.json"), `{"name": "@anthropic-ai/claude-code", "version": "`+version+`"}`)
			write(t, filepath.Join(pkg, "bin", "claude.exe"), "#!/bin/sh\n")
			os.Chmod(filepath.Join(pkg, "bin", "claude.exe"), 0o755)
			link(t, filepath.Join(pkg, "bin", "claude.exe"), filepath.Join(home, "path", "claude"))
			settings := filepath.Join(home, ".claude", "settings.json")
			orig := "{\n\t\"model\": \"opus\"\n}\n"
			write(t, settings, orig)
			plan, err := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1")})
			if err != nil {
				t.Fatal(err)
			}
			if err := plan.Apply(); err != nil {
				t.Fatal(err)
			}
			es, _, err := configs.ReadSettings(configs.ClaudeSettings(), "settings.json")
			if err != nil {
				t.Fatal(err)
			}
			got := slices.ContainsFunc(es, func(e configs.Entry) bool { return e.Event == configs.ClaudeSkillShellEvent })
			if got != want {
				t.Fatalf("Claude Code %s: PreSkillShellCommand entry %v, want %v: %+v", version, got, want, es)
			}
			rm, err := PlanRemove(RemoveOptions{Paths: &paths})
			if err != nil {
				t.Fatal(err)
			}
			if err := rm.Apply(); err != nil {
				t.Fatal(err)
			}
			if back := read(t, settings); back != orig {
				t.Errorf("after remove:\n%s\nwant the original back:\n%s", back, orig)
			}
		})
	}
}

// The texts that name the agents runaway wires into are built from
// Harnesses, so none is left out (issue 20, item 6: the no-agent error
// named three of the four).
func TestTextsNameEveryWiredAgent(t *testing.T) {
	for _, h := range Harnesses {
		wired := h.Support != NotSupported
		if got := strings.Contains(ErrNothingToWire.Error(), h.Name); got != wired {
			t.Errorf("the no-agent error names %s: %v, want %v: %q", h.Name, got, wired, ErrNothingToWire)
		}
		if got := strings.Contains(WiredIDs(), string(h.ID)); got != wired {
			t.Errorf("WiredIDs() %q lists %s: %v, want %v", WiredIDs(), h.ID, got, wired)
		}
	}
	if got, want := WiredNames(), "Claude Code, Codex, Gemini CLI, OpenCode, Qwen Code and GitHub Copilot CLI"; got != want {
		t.Errorf("WiredNames() = %q, want %q", got, want)
	}
}

// Setup says when the folder it installs runaway into is not on PATH: every
// stop message tells the person to run `runaway allow` (issue 20, item 7).
func TestSetupSaysWhenBinIsNotOnPath(t *testing.T) {
	for _, onPath := range []bool{false, true} {
		home, paths := sandbox(t)
		if onPath {
			t.Setenv("PATH", filepath.Join(home, "path")+string(os.PathListSeparator)+filepath.Dir(paths.Bin))
		}
		write(t, filepath.Join(home, ".claude", "settings.json"), "{}\n")
		plan, err := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1")})
		if err != nil {
			t.Fatal(err)
		}
		said := slices.ContainsFunc(plan.Todo, func(s string) bool { return strings.Contains(s, "on your PATH") })
		if said == onPath {
			t.Errorf("bin folder on PATH %v: setup's todo %q", onPath, plan.Todo)
		}
	}
}
