package installer

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/configs"
)

func TestPlatformFor(t *testing.T) {
	claude := func(version, program string) []Found {
		return []Found{{Harness: codexHarness, Found: true}, {Harness: claudeHarness, Found: true, Version: version, Program: program}}
	}
	var asked []string
	ask := func(answer string) func(string) string {
		return func(p string) string { asked = append(asked, p); return answer }
	}
	tests := []struct {
		name     string
		goos     string
		agents   []Found
		answer   string
		want     configs.Platform
		wantAsks []string
	}{
		{"linux: no exec form", "linux", claude("", "/usr/bin/claude"), "2.1.240 (Claude Code)", configs.Platform{OS: "linux"}, []string{"/usr/bin/claude"}},
		{"macos: no exec form", "darwin", claude("", "/opt/claude"), "2.1.240 (Claude Code)", configs.Platform{OS: "darwin"}, []string{"/opt/claude"}},
		{"linux, 2.1.332 asked: skill shell commands", "linux", claude("", "/usr/bin/claude"), "2.1.332 (Claude Code)", configs.Platform{OS: "linux", ClaudeSkillShell: true}, []string{"/usr/bin/claude"}},
		{"linux, 2.1.332 from its files", "linux", claude("2.1.332", "/usr/bin/claude"), "", configs.Platform{OS: "linux", ClaudeSkillShell: true}, nil},
		{"windows, 2.1.332: both", "windows", claude("2.1.332", `C:\npm\claude.cmd`), "", configs.Platform{OS: "windows", ClaudeExecForm: true, ClaudeSkillShell: true}, nil},
		{"windows, version from its files", "windows", claude("2.1.139", `C:\npm\claude.cmd`), "", configs.Platform{OS: "windows", ClaudeExecForm: true}, nil},
		{"windows, older version from its files", "windows", claude("2.1.100", `C:\npm\claude.cmd`), "2.1.240", configs.Platform{OS: "windows"}, nil},
		{"windows, version asked", "windows", claude("", `C:\bin\claude.exe`), "2.1.240 (Claude Code)\n", configs.Platform{OS: "windows", ClaudeExecForm: true}, []string{`C:\bin\claude.exe`}},
		{"windows, no answer: the Git Bash form", "windows", claude("", `C:\bin\claude.exe`), "", configs.Platform{OS: "windows"}, []string{`C:\bin\claude.exe`}},
		{"windows, no Claude Code", "windows", []Found{{Harness: claudeHarness}}, "2.1.240", configs.Platform{OS: "windows"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			if got := platformFor(tt.goos, tt.agents, ask(tt.answer)); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !slices.Equal(asked, tt.wantAsks) {
				t.Errorf("asked %q, want %q", asked, tt.wantAsks)
			}
		})
	}
}

// Setup for a Windows machine, planned on any OS: each agent's entry in its
// Windows form in the file setup writes, then doctor's form check on it.
func TestSetupWritesWindowsForms(t *testing.T) {
	for _, execForm := range []bool{true, false} {
		home, paths := sandbox(t)
		paths.Bin = filepath.Join(home, "Programs", "runaway", "runaway.exe")
		write(t, filepath.Join(home, ".claude", "settings.json"), "{}\n")
		write(t, filepath.Join(home, ".codex", "hooks.json"), "{}\n")
		write(t, filepath.Join(home, ".gemini", "settings.json"), "{}\n")
		p := configs.Platform{OS: "windows", ClaudeExecForm: execForm}
		plan, err := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1"), Platform: &p})
		if err != nil {
			t.Fatal(err)
		}
		if err := plan.Apply(); err != nil {
			t.Fatal(err)
		}
		claude := read(t, filepath.Join(home, ".claude", "settings.json"))
		codex := read(t, filepath.Join(home, ".codex", "hooks.json"))
		fwd := filepath.ToSlash(paths.Bin)
		gemini := read(t, filepath.Join(home, ".gemini", "settings.json"))
		if !strings.Contains(gemini, `"command": "if (Test-Path -LiteralPath '`+fwd+`') { & '`+fwd+`' hook gemini }"`) {
			t.Errorf("gemini:\n%s", gemini)
		}
		if execForm && (!strings.Contains(claude, `"command": "`+fwd+`",`) || strings.Count(claude, `"args": ["hook", "claude"]`) != 3) {
			t.Errorf("claude, exec form:\n%s", claude)
		}
		if !execForm && (!strings.Contains(claude, `"command": "\"`+fwd+`\" hook claude || true"`) || !strings.Contains(claude, `"shell": "bash"`)) {
			t.Errorf("claude, Git Bash form:\n%s", claude)
		}
		if !strings.Contains(codex, `"commandWindows": "& '`+strings.ReplaceAll(filepath.FromSlash(paths.Bin), "/", `\\`)+`' hook codex"`) {
			t.Errorf("codex:\n%s", codex)
		}
		for _, sf := range []configs.SettingsFile{configs.ClaudeSettings(), configs.CodexHooks(), configs.GeminiSettings()} {
			es, _, err := configs.ReadSettings(sf, "x")
			if err != nil || len(es) != len(sf.Specs(paths.Bin)) || es[0].Event != sf.Spec(paths.Bin).Event {
				t.Fatalf("%s: %+v %v", sf.Harness, es, err)
			}
			sf.Platform = p
			if probs := formProblems(es[0], sf.Spec(paths.Bin), sf.Harness.Name()); len(probs) > 0 {
				t.Errorf("%s: doctor finds %q in the entry setup wrote", sf.Harness, probs)
			}
			// The Linux form there is a problem doctor names.
			sf.Platform = configs.Platform{OS: "linux"}
			if probs := formProblems(es[0], sf.Spec(paths.Bin), sf.Harness.Name()); sf.Harness == "claude" && execForm && len(probs) == 0 {
				t.Errorf("an exec-form entry on a Claude Code without it passed")
			}
		}
		// A Claude Code upgrade to the exec form: setup again rewrites the
		// entry once, then leaves it.
		if !execForm {
			p.ClaudeExecForm = true
			plan, _ := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1"), Platform: &p})
			if err := plan.Apply(); err != nil {
				t.Fatal(err)
			}
			after := read(t, filepath.Join(home, ".claude", "settings.json"))
			if strings.Contains(after, `"shell"`) || !strings.Contains(after, `"args": ["hook", "claude"]`) {
				t.Errorf("upgraded entry:\n%s", after)
			}
			again, _ := PlanSetup(SetupOptions{Paths: &paths, Executable: fakeBinary(t, home, "v1"), Platform: &p})
			if again.Diff() != "" {
				t.Errorf("third setup changes:\n%s", again.Diff())
			}
		}
	}
}
