package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testhome"
)

// agent is one of the real harness binaries the tests drive, as pinned in
// agents.txt and installed by install-agents.sh.
type agent struct {
	name    string // the binary: "claude", "codex", "opencode", "gemini" or "qwen"
	pin     string // npm package@version from agents.txt
	path    string // the installed binary, "" when missing
	looked  string // where it was looked for
	version string // first line of `<binary> --version`
}

var claudeAgent, codexAgent, opencodeAgent, geminiAgent, qwenAgent, copilotAgent agent

// binaryForPackage is the binary each pinned npm package installs; it must
// agree with bin_for in install-agents.sh.
var binaryForPackage = map[string]string{
	"@anthropic-ai/claude-code": "claude",
	"@openai/codex":             "codex",
	"opencode-ai":               "opencode",
	"@google/gemini-cli":        "gemini",
	"@qwen-code/qwen-code":      "qwen",
	"@github/copilot":           "copilot",
}

// cacheRoot is where install-agents.sh puts the agents. It is read from the
// environment the tests started in, before any test isolates HOME.
func cacheRoot() string {
	if c := os.Getenv("RUNAWAY_E2E_CACHE"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "runaway-e2e")
	}
	return filepath.Join(home, ".cache", "runaway-e2e")
}

// cacheDirName mirrors dir_for in install-agents.sh:
// "@openai/codex@0.169.0" -> "openai-codex@0.169.0".
func cacheDirName(pin string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pin, "@"), "/", "-")
}

// readPins reads agents.txt: one package@version a line, # comments.
func readPins(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pins []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pins = append(pins, line)
	}
	return pins, sc.Err()
}

// packageName cuts the version off a pin: "@openai/codex@0.169.0" -> "@openai/codex".
func packageName(pin string) string {
	i := strings.LastIndex(pin, "@")
	if i <= 0 {
		return pin
	}
	return pin[:i]
}

// findAgents fills claudeAgent and codexAgent from agents.txt and the cache.
func findAgents() error {
	pins, err := readPins("agents.txt")
	if err != nil {
		return fmt.Errorf("reading the agents' pins: %w", err)
	}
	for _, pin := range pins {
		bin, ok := binaryForPackage[packageName(pin)]
		if !ok {
			return fmt.Errorf("agents.txt: no binary known for %s", pin)
		}
		a := agent{name: bin, pin: pin}
		a.looked = filepath.Join(cacheRoot(), cacheDirName(pin), "node_modules", ".bin", bin)
		if _, err := os.Stat(a.looked); err == nil {
			a.path = a.looked
			// Copilot CLI's --version unpacks its 235 MB package first;
			// --binary-version does not.
			version := "--version"
			if bin == "copilot" {
				version = "--binary-version"
			}
			cmd := exec.Command(a.path, version)
			cmd.Env = scratchHome()
			out, err := cmd.Output()
			if err != nil {
				return fmt.Errorf("%s --version: %w", a.path, err)
			}
			a.version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
		}
		switch bin {
		case "claude":
			claudeAgent = a
		case "codex":
			codexAgent = a
		case "opencode":
			opencodeAgent = a
		case "gemini":
			geminiAgent = a
		case "qwen":
			qwenAgent = a
		case "copilot":
			copilotAgent = a
		}
	}
	return nil
}

// require skips the test when the agent is not installed, saying which
// binary, where it was looked for, and the command that installs it.
func (a agent) require(t *testing.T) {
	t.Helper()
	if a.pin == "" {
		t.Fatalf("agents.txt pins no %s", a.name)
	}
	if a.path == "" {
		t.Skipf("%s (%s) is not installed: looked for %s; install it with: bash e2e/install-agents.sh", a.name, a.pin, a.looked)
	}
}

// wantVersion is the version the pin asks for, as `--version` prints it.
func (a agent) wantVersion() string { return a.pin[strings.LastIndex(a.pin, "@")+1:] }

func TestAgentsArePinnedVersions(t *testing.T) {
	for _, a := range []agent{claudeAgent, codexAgent, opencodeAgent, geminiAgent, qwenAgent, copilotAgent} {
		t.Run(a.name, func(t *testing.T) {
			a.require(t)
			t.Logf("%s: %s (%s)", a.name, a.version, a.path)
			if !strings.Contains(a.version, a.wantVersion()) {
				t.Errorf("%s --version = %q, want version %s as agents.txt pins; run bash e2e/install-agents.sh", a.name, a.version, a.wantVersion())
			}
		})
	}
}

// versionHome holds the homes of the agents' --version runs: the agents
// write into their homes even then (Codex makes ~/.codex/tmp), and no test
// may touch the real one. TestMain sets it inside its temporary folder.
var versionHome = os.TempDir()

func scratchHome() []string {
	return testhome.Env([]string{"PATH=" + os.Getenv("PATH")}, versionHome)
}
