package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testbin"
)

// The README's quick start starts with a command that works on a machine
// with no agent (issue 20, item 4): its first block runs as written, in an
// empty home with no agent on PATH, shows runaway's main job step by step,
// and leaves the home as it was.
func TestReadmeQuickStartNeedsNoAgent(t *testing.T) {
	testbin.TouchSources("..")
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := quickStart(t, string(readme))
	if !strings.Contains(block, "go run ./cmd/runaway demo") {
		t.Fatalf("the README's first command block is not the demo:\n%s", block)
	}
	// The built binary stands in for `go run ./cmd/runaway`.
	script := strings.ReplaceAll(block, "go run ./cmd/runaway", filepath.Join(binDir, "runaway"))
	home := t.TempDir()
	cmd := exec.Command("sh", "-ec", script)
	cmd.Env = append(isolated(home), "PATH=/usr/bin:/bin")
	cmd.Dir = home
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s\nfailed: %v\n%s", block, err, stderr.String())
	}
	for _, want := range []string{
		"runaway: the same Bash call 5 times in a row",   // the loop ask
		"runaway: the last 5 tool calls failed in a row", // the failure streak
		"hook stopped continuation",                      // the escalated stop
		"session cap",                                    // the cap stop
		"runaway allow ",                                 // and how to go on
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo does not show %q:\n%s", want, out)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Errorf("the demo wrote into the home: %v", entries)
	}
}

// quickStart is the README's first sh block.
func quickStart(t *testing.T, readme string) string {
	_, rest, ok := strings.Cut(readme, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the README has no sh block")
	}
	return block
}

// isolated is the environment with HOME and the XDG folders in home.
func isolated(home string) []string {
	env := os.Environ()
	for k, v := range homeVars(home) {
		env = append(env, k+"="+v)
	}
	for _, k := range agentVars {
		env = append(env, k+"=")
	}
	return env
}

// install-agents.sh prints each agent's version, not a warning the agent
// writes to stderr first (Codex: "could not create PATH aliases") (issue
// 11, item 9). A fake, already installed Codex stands in for the real one.
func TestInstallAgentsPrintsVersions(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	src, err := os.ReadFile(filepath.Join("..", "e2e", "install-agents.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(path, data string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "e2e", "install-agents.sh"), string(src), 0o755)
	write(filepath.Join(dir, "e2e", "agents.txt"), "@openai/codex@0.169.0\n", 0o644)
	cache := filepath.Join(dir, "cache")
	installed := filepath.Join(cache, "openai-codex@0.169.0")
	write(filepath.Join(installed, "node_modules", ".bin", "codex"),
		"#!/bin/sh\necho 'WARNING: proceeding, even though we could not create PATH aliases' >&2\necho 'codex-cli 0.169.0'\n", 0o755)
	write(filepath.Join(installed, ".complete"), "", 0o644)

	cmd := exec.Command("bash", filepath.Join(dir, "e2e", "install-agents.sh"))
	cmd.Env = append(isolated(dir), "RUNAWAY_E2E_CACHE="+cache)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install-agents.sh: %v\n%s", err, out)
	}
	want := "install-agents: codex codex-cli 0.169.0 (" + filepath.Join(installed, "node_modules", ".bin", "codex") + ")"
	if !strings.Contains(string(out), want+"\n") {
		t.Fatalf("install-agents.sh printed:\n%s\nwant the line %q", out, want)
	}
}

// install-agents.sh runs npm and every agent with a scratch home: an
// install script that writes into its home (OpenCode's postinstall runs
// `opencode --version`, which makes ~/.config/opencode) leaves the caller's
// home as it was (issue 20, item 2). A fake npm stands in for the real one.
func TestInstallAgentsKeepsTheCallersHome(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	src, err := os.ReadFile(filepath.Join("..", "e2e", "install-agents.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(path, data string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "e2e", "install-agents.sh"), string(src), 0o755)
	write(filepath.Join(dir, "e2e", "agents.txt"), "opencode-ai@1.18.33\n", 0o644)
	// npm install --prefix DEST …: installs an opencode that, like the real
	// one, makes its folders in its home, and runs it as a postinstall would.
	opencode := `#!/bin/sh
mkdir -p "${XDG_CONFIG_HOME:-$HOME/.config}/opencode" "$HOME/.local/share/opencode" "$HOME/.cache/opencode"
echo 1.18.33
`
	npm := `#!/bin/sh
mkdir -p "$HOME/.npm-was-here"
while [ "$1" != --prefix ]; do shift; done
bin="$2/node_modules/.bin"
mkdir -p "$bin"
cat >"$bin/opencode" <<'OC'
` + opencode + `OC
chmod +x "$bin/opencode"
"$bin/opencode" --version >/dev/null
`
	write(filepath.Join(dir, "bin", "npm"), npm, 0o755)
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(dir, "e2e", "install-agents.sh"))
	cmd.Env = append(isolated(home), "RUNAWAY_E2E_CACHE="+filepath.Join(dir, "cache"),
		"PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install-agents.sh: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "install-agents: opencode 1.18.33 (") {
		t.Fatalf("install-agents.sh printed:\n%s\nwant opencode's version", out)
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("install-agents.sh wrote %s into the caller's home", filepath.Join(home, e.Name()))
	}
}
