package tamper

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/runaway-guard/runaway/guard/tamper/patch"
)

// tamperHome is a fake home with runaway installed for both agents: its
// config, state and program, its entry in Claude Code's and Codex's hooks,
// and Codex's trust record for it.
type tamperHome struct {
	home, proj string
	env        map[string]string
	g          Guarded
}

const claudeSettingsWithRunaway = `{
  "permissions": {"allow": ["Bash(npm test)"]},
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/lint-guard"}]},
      {"matcher": "", "hooks": [{"type": "command", "command": "'HOME/.local/bin/runaway' hook claude || true", "timeout": 10}]}
    ]
  }
}
`

const codexHooksWithRunaway = `{
  "hooks": {
    "PreToolUse": [
      {"hooks": [{"type": "command", "command": "HOME/.local/bin/runaway hook codex || true", "timeout": 10}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/other"}]}
    ]
  }
}
`

const codexConfigWithTrust = `model = "gpt-5.1-codex"

[features]
web_search = true

[hooks.state."HOME/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000001"

[hooks.state."HOME/.codex/hooks.json:pre_tool_use:1:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000002"
`

func newTamperHome(t testing.TB) *tamperHome {
	t.Helper()
	home := t.TempDir()
	proj := filepath.Join(home, "src", "runaway") // a project that happens to be called runaway
	env := map[string]string{
		"HOME":              home,
		"XDG_CONFIG_HOME":   filepath.Join(home, ".config"),
		"XDG_STATE_HOME":    filepath.Join(home, ".local", "state"),
		"XDG_BIN_HOME":      filepath.Join(home, ".local", "bin"),
		"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"),
		"CODEX_HOME":        filepath.Join(home, ".codex"),
		"SECRET_TOKEN":      "s3cr3t",
	}
	files := map[string]string{
		".config/runaway/config.json":             `{"session_cap_usd": 20}`,
		".local/state/runaway/sessions/x.json":    `{}`,
		".local/bin/runaway":                      "#!/bin/sh\n",
		".claude/settings.json":                   claudeSettingsWithRunaway,
		".codex/hooks.json":                       codexHooksWithRunaway,
		".codex/config.toml":                      codexConfigWithTrust,
		"src/runaway/go.mod":                      "module x\n",
		"src/runaway/.claude/settings.json":       `{"permissions": {"allow": []}}`,
		"src/runaway/.claude/settings.local.json": `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "runaway hook claude"}]}]}}`,
		"src/runaway/notes.md":                    "notes\n",
	}
	for name, content := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(content, "HOME", home)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link into runaway's config folder, as a dotfiles checkout might make.
	if err := os.Symlink(filepath.Join(home, ".config", "runaway"), filepath.Join(home, "cfglink")); err != nil {
		t.Fatal(err)
	}
	g := Guarded{
		StateDir:  filepath.Join(home, ".local", "state", "runaway"),
		ConfigDir: filepath.Join(home, ".config", "runaway"),
		BinPath:   filepath.Join(home, ".local", "bin", "runaway"),
		Getenv:    func(k string) string { return env[k] },
	}
	return &tamperHome{home: home, proj: proj, env: env, g: g}
}

// check runs the wire on one call from the project folder: the reason it
// is denied, or "".
func (th *tamperHome) check(tool string, input any) string {
	raw, _ := json.Marshal(input)
	return Check(th.g, Call{Tool: tool, Input: raw, Cwd: th.proj}).Reason
}

func bash(cmd string) map[string]any { return map[string]any{"command": cmd} }

// tamperCase is one call and whether the wire denies it; want is a
// fragment of the reason (HOME stands for the fake home).
type tamperCase struct {
	name  string
	tool  string
	input any
	deny  bool
	want  string
}

func runTamperCases(t *testing.T, th *tamperHome, cases []tamperCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reason := th.check(tc.tool, tc.input)
			if got := reason != ""; got != tc.deny {
				t.Fatalf("deny = %v, want %v (reason %q)", got, tc.deny, reason)
			}
			if !tc.deny {
				return
			}
			if !strings.HasPrefix(reason, "runaway: this call would ") || !strings.Contains(reason, "runaway allow") && !strings.Contains(reason, "the person decides") {
				t.Errorf("reason = %q", reason)
			}
			if w := strings.ReplaceAll(tc.want, "HOME", th.home); !strings.Contains(reason, w) {
				t.Errorf("reason %q does not name %q", reason, w)
			}
			if strings.Contains(reason, "s3cr3t") {
				t.Errorf("reason %q echoes a secret from the command", reason)
			}
		})
	}
}

func TestTamperShell(t *testing.T) {
	th := newTamperHome(t)
	cfg := "HOME/.config/runaway/config.json"
	runTamperCases(t, th, []tamperCase{
		// runaway's config, state and program.
		{"rm config", "Bash", bash("rm ~/.config/runaway/config.json"), true, "runaway's own config (" + cfg + ")"},
		{"rm -rf config dir", "Bash", bash("rm -rf $XDG_CONFIG_HOME/runaway"), true, "HOME/.config/runaway"},
		{"redirect onto config", "Bash", bash(`echo '{"session_cap_usd": 1e9}' > ~/.config/runaway/config.json`), true, cfg},
		{"append to config with secret", "Bash", bash(`TOKEN=$SECRET_TOKEN; echo "$TOKEN" >> "$HOME/.config/runaway/config.json"`), true, cfg},
		{"tee onto config", "Bash", bash("echo {} | tee ~/.config/runaway/config.json >/dev/null"), true, cfg},
		{"sed -i config", "Bash", bash("sed -i 's/20/2000/' ~/.config/runaway/config.json"), true, cfg},
		{"sed -i.bak config", "Bash", bash("sed -i.bak -e 's/20/2000/' ~/.config/runaway/config.json"), true, cfg},
		{"perl -pi config", "Bash", bash("perl -pi -e 's/20/2000/' ~/.config/runaway/config.json"), true, cfg},
		{"truncate config", "Bash", bash("truncate -s 0 ~/.config/runaway/config.json"), true, cfg},
		{"chmod config", "Bash", bash("chmod 000 ~/.config/runaway/config.json"), true, cfg},
		{"jq rewrite config", "Bash", bash("jq '.session_cap_usd=999' ~/.config/runaway/config.json > /tmp/c && mv /tmp/c ~/.config/runaway/config.json"), true, cfg},
		{"cp onto config", "Bash", bash("cp /tmp/mine.json ~/.config/runaway/config.json"), true, cfg},
		{"cp into config dir", "Bash", bash("cp /tmp/config.json ~/.config/runaway/"), true, "HOME/.config/runaway"},
		{"cp into state's parent", "Bash", bash("cp -r /tmp/runaway ~/.local/state/"), true, "HOME/.local/state/runaway"},
		{"cp -t config dir", "Bash", bash("cp -t ~/.config/runaway /tmp/config.json"), true, "HOME/.config/runaway"},
		{"relative path after cd", "Bash", bash("cd ~/.config/runaway && rm config.json"), true, cfg},
		{"dotdot path", "Bash", bash("rm ../../.config/runaway/config.json"), true, cfg},
		{"symlinked folder", "Bash", bash("echo x > ~/cfglink/config.json"), true, "HOME/cfglink/config.json"},
		{"glob in config dir", "Bash", bash("rm -f ~/.config/runaway/*.json"), true, "HOME/.config/runaway"},
		{"glob naming the folder", "Bash", bash("rm -rf ~/.config/run*"), true, "HOME/.config/runaway"},
		{"variable path", "Bash", bash("D=$HOME/.local/state/runaway; rm -rf $D/sessions"), true, "runaway's state"},
		{"export variable path", "Bash", bash("export D=~/.local/state/runaway\nrm -rf \"$D\""), true, "runaway's state"},
		{"unknown file in state", "Bash", bash("rm ~/.local/state/runaway/$(ls ~/.local/state/runaway | head -1)"), true, "runaway's state"},
		{"state folder's parent", "Bash", bash("rm -rf ~/.local/state"), true, "HOME/.local/state/runaway"},
		{"whole home", "Bash", bash("rm -rf ~"), true, "holds"},
		{"chmod state parent", "Bash", bash("chmod -R 000 ~/.local/state"), true, "HOME/.local/state/runaway"},
		{"find -delete in state", "Bash", bash("find ~/.local/state/runaway -name '*.json' -delete"), true, "runaway's state"},
		{"find -delete matching name", "Bash", bash("find ~/.config -name config.json -delete"), true, "HOME/.config/runaway"},
		{"find exec rm", "Bash", bash(`find ~/.local/state -name 'runaway' -exec rm -rf {} +`), true, "runaway's state"},
		{"for loop", "Bash", bash("for f in /tmp/a ~/.config/runaway/*; do rm -f \"$f\"; done"), true, "HOME/.config/runaway"},
		{"tar into config", "Bash", bash("tar -xzf /tmp/backup.tgz -C ~/.config/runaway"), true, "HOME/.config/runaway"},
		{"flock a session", "Bash", bash("flock ~/.local/state/runaway/sessions/claude-x.json.lock sleep 3600 &"), true, "runaway's state"},
		{"xargs rm", "Bash", bash("echo ~/.config/runaway/config.json | xargs rm"), true, cfg},
		{"replace binary", "Bash", bash("cp /bin/true ~/.local/bin/runaway"), true, "runaway's program (HOME/.local/bin/runaway)"},
		{"ln -sf binary", "Bash", bash("ln -sf /bin/true $XDG_BIN_HOME/runaway"), true, "HOME/.local/bin/runaway"},
		{"chmod -x binary", "Bash", bash("chmod -x ~/.local/bin/runaway"), true, "HOME/.local/bin/runaway"},
		{"mv binary", "Bash", bash("mv ~/.local/bin/runaway ~/.local/bin/runaway.off"), true, "HOME/.local/bin/runaway"},
		{"go build -o binary", "Bash", bash("go build -o ~/.local/bin/runaway ./cmd/runaway"), true, "HOME/.local/bin/runaway"},
		{"curl onto binary", "Bash", bash("curl -sSL https://example.com/x -o ~/.local/bin/runaway"), true, "HOME/.local/bin/runaway"},
		{"dd onto config", "Bash", bash("dd if=/dev/zero of=$HOME/.config/runaway/config.json count=1"), true, cfg},
		{"sudo env wrapper", "Bash", bash("sudo -u root env FOO=1 rm -f ~/.config/runaway/config.json"), true, cfg},
		{"timeout wrapper", "Bash", bash("timeout 5 rm ~/.config/runaway/config.json"), true, cfg},
		{"after other commands", "Bash", bash("npm test; git status && rm ~/.config/runaway/config.json || true"), true, cfg},
		{"on a later line", "Bash", bash("ls\nrm ~/.config/runaway/config.json"), true, cfg},
		{"subshell", "Bash", bash("(cd /tmp; rm ~/.config/runaway/config.json)"), true, cfg},
		{"command substitution", "Bash", bash("echo $(rm ~/.config/runaway/config.json)"), true, cfg},
		{"backticks", "Bash", bash("echo `rm ~/.config/runaway/config.json`"), true, cfg},
		{"bash -c", "Bash", bash(`bash -c "rm -f ~/.config/runaway/config.json"`), true, cfg},
		{"sh -lc quoted", "Bash", bash(`sh -lc 'echo {} > "$HOME/.config/runaway/config.json"'`), true, cfg},
		{"eval", "Bash", bash(`eval "rm ~/.config/runaway/config.json"`), true, cfg},
		{"piped into sh", "Bash", bash(`echo "rm ~/.config/runaway/config.json" | sh`), true, cfg},
		{"heredoc into bash", "Bash", bash("bash <<'EOF'\nrm ~/.config/runaway/config.json\nEOF"), true, cfg},
		{"heredoc onto config", "Bash", bash("cat > ~/.config/runaway/config.json <<'EOF'\n{\"session_cap_usd\": 1000}\nEOF"), true, cfg},
		{"stderr redirect onto state", "Bash", bash("npm test 2> ~/.local/state/runaway/errors.log"), true, "runaway's state"},
		{"&> redirect onto state", "Bash", bash("npm test &> ~/.local/state/runaway/decisions.jsonl"), true, "runaway's state"},
		{"python one-liner", "Bash", bash(`python3 -c "import os; open(os.path.expanduser('~/.config/runaway/config.json'), 'w').write('{}')"`), true, ".config/runaway"},
		{"python heredoc", "Bash", bash("python3 - <<'PY'\nimport pathlib\npathlib.Path.home().joinpath('.claude/settings.json').write_text('{}')\nPY"), true, ".claude/settings.json"},
		{"perl one-liner", "Bash", bash(`perl -e 'unlink "$ENV{HOME}/.local/state/runaway/sessions/x.json"'`), true, ".local/state/runaway"},
		{"node one-liner", "Bash", bash(`node -e "require('fs').writeFileSync(process.env.HOME+'/.codex/hooks.json','{}')"`), true, ".codex/hooks.json"},

		// Settings files runaway manages.
		{"rm claude settings", "Bash", bash("rm ~/.claude/settings.json"), true, "Claude Code settings file"},
		{"jq onto claude settings", "Bash", bash(`jq 'del(.hooks)' ~/.claude/settings.json > /tmp/s && mv /tmp/s $CLAUDE_CONFIG_DIR/settings.json`), true, "HOME/.claude/settings.json"},
		{"sed -i claude settings", "Bash", bash(`sed -i '/runaway/d' ~/.claude/settings.json`), true, "HOME/.claude/settings.json"},
		{"mv claude dir away", "Bash", bash("mv ~/.claude ~/.claude.off"), true, "HOME/.claude/settings.json"},
		{"project settings.local", "Bash", bash(`echo '{"disableAllHooks": true}' > .claude/settings.local.json`), true, "src/runaway/.claude/settings.local.json"},
		{"rm project .claude", "Bash", bash("rm -rf .claude"), true, "src/runaway/.claude/settings"},
		{"codex hooks.json", "Bash", bash("echo '{}' > $CODEX_HOME/hooks.json"), true, "runaway's hook entry in HOME/.codex/hooks.json"},
		{"codex config.toml append", "Bash", bash(`printf '[features]\nhooks = false\n' >> ~/.codex/config.toml`), true, "HOME/.codex/config.toml"},
		{"python writes codex config", "Bash", bash(`python3 -c "p='$HOME/.codex/config.toml'; open(p,'a').write('[features]\nhooks=false')"`), true, ".codex/config.toml"},

		// runaway's own commands.
		{"runaway allow", "Bash", bash("runaway allow --cap 100"), true, "run `runaway allow`"},
		{"installed path allow", "Bash", bash("~/.local/bin/runaway allow"), true, "run `runaway allow`"},
		{"relative remove", "Bash", bash("./runaway remove --yes"), true, "run `runaway remove`"},
		{"setup after flags", "Bash", bash("runaway --verbose setup --yes"), true, "run `runaway setup`"},
		{"go run setup", "Bash", bash("go run ./cmd/runaway setup --yes"), true, "run `runaway setup`"},
		{"go run module allow", "Bash", bash("go run -tags x github.com/runaway-guard/runaway/cmd/runaway@latest allow"), true, "run `runaway allow`"},
		{"npx runaway remove", "Bash", bash("npx runaway remove"), true, "run `runaway remove`"},
		{"quoted program", "Bash", bash(`"$XDG_BIN_HOME/runaway" allow`), true, "run `runaway allow`"},

		// Switching hooks off for a nested agent.
		{"claude --settings inline", "Bash", bash(`claude -p "fix it" --settings '{"disableAllHooks": true}'`), true, "disableAllHooks"},
		{"claude --settings=", "Bash", bash(`claude --settings='{"disableAllHooks":true}' -p hi`), true, "disableAllHooks"},
		{"codex -c features.hooks", "Bash", bash(`codex exec -c features.hooks=false "do it"`), true, "features.hooks"},
		{"codex --config codex_hooks", "Bash", bash(`codex --config 'features.codex_hooks = false' exec hi`), true, "features.codex_hooks"},
		{"codex --disable hooks", "Bash", bash(`codex exec --disable hooks "do it"`), true, "--disable hooks"},

		// Allowed: reading, mentioning, other projects called runaway.
		{"cat config", "Bash", bash("cat ~/.config/runaway/config.json"), false, ""},
		{"grep config", "Bash", bash("grep -n cap ~/.config/runaway/config.json"), false, ""},
		{"less settings", "Bash", bash("less ~/.claude/settings.json"), false, ""},
		{"jq read settings", "Bash", bash("jq '.hooks' ~/.claude/settings.json"), false, ""},
		{"jq read into tmp", "Bash", bash("jq '.hooks' ~/.claude/settings.json > /tmp/hooks.json"), false, ""},
		{"cp from config", "Bash", bash("cp ~/.config/runaway/config.json /tmp/config-copy.json"), false, ""},
		{"cp from settings into project", "Bash", bash("cp ~/.claude/settings.json ./settings.example.json"), false, ""},
		{"echo mentions path", "Bash", bash(`echo "edit ~/.config/runaway/config.json to change caps"`), false, ""},
		{"grep pattern mentions", "Bash", bash(`grep -rn "disableAllHooks" .`), false, ""},
		{"grep pattern runaway hook", "Bash", bash(`grep -rn 'runaway hook' ~/.claude/settings.json`), false, ""},
		{"python compares", "Bash", bash(`python3 -c "import json; d=json.load(open('/x/.claude/settings.json')); print(len(d['hooks']) > 0)"`), false, ""},
		{"perl open for writing", "Bash", bash(`perl -e 'open(my $f, ">", "$ENV{HOME}/.config/runaway/config.json"); print $f "{}"'`), true, ".config/runaway"},
		{"python reads settings", "Bash", bash(`python3 -c "import json,os;print(json.load(open(os.path.expanduser('~/.claude/settings.json')))['hooks'])"`), false, ""},
		{"runaway status", "Bash", bash("runaway status"), false, ""},
		{"runaway replay", "Bash", bash("~/.local/bin/runaway replay ./t.jsonl"), false, ""},
		{"runaway doctor", "Bash", bash("runaway doctor"), false, ""},
		{"runaway version", "Bash", bash("runaway version"), false, ""},
		{"runaway help", "Bash", bash("runaway --help"), false, ""},
		{"runaway allow help", "Bash", bash("runaway allow --help"), false, ""},
		{"go run status", "Bash", bash("go run ./cmd/runaway status"), false, ""},
		{"go test project called runaway", "Bash", bash("cd ~/src/runaway && go test ./... && rm -rf ./build"), false, ""},
		{"edit in project called runaway", "Bash", bash("sed -i 's/a/b/' ~/src/runaway/notes.md > ~/src/runaway/out.txt"), false, ""},
		{"rm in project", "Bash", bash("rm -rf node_modules dist && npm ci"), false, ""},
		{"find delete in project", "Bash", bash("find . -name '*.pyc' -delete"), false, ""},
		{"find delete in home by name", "Bash", bash("find ~ -name '*.pyc' -delete"), false, ""},
		{"build binary elsewhere", "Bash", bash("go build -o ./bin/runaway ./cmd/runaway"), false, ""},
		{"codex bypass trust", "Bash", bash("codex exec --dangerously-bypass-hook-trust 'hi'"), false, ""},
		{"codex other config", "Bash", bash("codex exec -c model=gpt-5 'hi'"), false, ""},
		{"claude other settings", "Bash", bash(`claude -p hi --settings '{"model": "opus"}'`), false, ""},
		{"stderr to dev null", "Bash", bash("ls 2>/dev/null >&2"), false, ""},
		{"heredoc mentions path", "Bash", bash("cat <<'EOF'\nrm ~/.config/runaway/config.json\nEOF"), false, ""},
		{"for loop reading", "Bash", bash("for f in ~/.config/runaway/*; do cat \"$f\"; done"), false, ""},
		{"tar from config", "Bash", bash("tar -czf /tmp/backup.tgz -C ~/.config/runaway ."), false, ""},
		{"git commit message", "Bash", bash(`git commit -m "stop writing ~/.config/runaway/config.json in tests"`), false, ""},
		{"empty command", "Bash", bash(""), false, ""},
	})
}

func TestTamperFileTools(t *testing.T) {
	th := newTamperHome(t)
	settings := filepath.Join(th.home, ".claude", "settings.json")
	withoutRunaway := strings.Replace(strings.ReplaceAll(claudeSettingsWithRunaway, "HOME", th.home),
		`,
      {"matcher": "", "hooks": [{"type": "command", "command": "'`+th.home+`/.local/bin/runaway' hook claude || true", "timeout": 10}]}`, "", 1)
	if withoutRunaway == strings.ReplaceAll(claudeSettingsWithRunaway, "HOME", th.home) {
		t.Fatal("test setup: runaway's entry not removed")
	}
	otherKey := strings.Replace(strings.ReplaceAll(claudeSettingsWithRunaway, "HOME", th.home), `"model": "opus"`, `"model": "sonnet"`, 1)
	runaway := `"command": "'` + th.home + `/.local/bin/runaway' hook claude || true", "timeout": 10`
	codexHooks := filepath.Join(th.home, ".codex", "hooks.json")
	codexConfig := filepath.Join(th.home, ".codex", "config.toml")
	trust := `[hooks.state."` + th.home + `/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000001"`
	otherTrust := `[hooks.state."` + th.home + `/.codex/hooks.json:pre_tool_use:1:0"]
trusted_hash = "sha256:0000000000000000000000000000000000000000000000000000000000000002"`

	runTamperCases(t, th, []tamperCase{
		{"Write config", "Write", map[string]any{"file_path": filepath.Join(th.home, ".config/runaway/config.json"), "content": "{}"}, true, "runaway's own config"},
		{"Write new file in state", "Write", map[string]any{"file_path": filepath.Join(th.home, ".local/state/runaway/installed.json"), "content": "{}"}, true, "runaway's state"},
		{"Edit config", "Edit", map[string]any{"file_path": filepath.Join(th.home, ".config/runaway/config.json"), "old_string": "20", "new_string": "2000"}, true, "runaway's own config"},
		{"Write binary", "Write", map[string]any{"file_path": filepath.Join(th.home, ".local/bin/runaway"), "content": "#!/bin/sh\n"}, true, "runaway's program"},
		{"NotebookEdit config", "NotebookEdit", map[string]any{"notebook_path": filepath.Join(th.home, ".config/runaway/config.json"), "new_source": "x"}, true, "runaway's own config"},
		{"Write through symlink", "Write", map[string]any{"file_path": filepath.Join(th.home, "cfglink/config.json"), "content": "{}"}, true, "runaway's own config"},

		{"Write drops runaway entry", "Write", map[string]any{"file_path": settings, "content": withoutRunaway}, true, "remove or change runaway's hook entry in " + settings},
		{"Write sets disableAllHooks", "Write", map[string]any{"file_path": settings, "content": `{"disableAllHooks": true, "hooks": {}}`}, true, "set disableAllHooks"},
		{"Write invalid JSON", "Write", map[string]any{"file_path": settings, "content": `{"hooks": `}, true, "unreadable"},
		{"Write with a comment", "Write", map[string]any{"file_path": settings, "content": "// the agent's note\n" + otherKey}, true, "unreadable"},
		{"Write changes runaway's matcher", "Write", map[string]any{"file_path": settings, "content": strings.Replace(otherKey, `"matcher": ""`, `"matcher": "Read"`, 1)}, true, "runaway's hook entry"},
		{"Edit removes runaway entry", "Edit", map[string]any{"file_path": settings, "old_string": runaway, "new_string": `"command": "true"`}, true, "runaway's hook entry"},
		{"Edit sets disableAllHooks", "Edit", map[string]any{"file_path": settings, "old_string": `"model": "opus",`, "new_string": `"model": "opus", "disableAllHooks": true,`}, true, "disableAllHooks"},
		{"MultiEdit second edit drops hooks", "MultiEdit", map[string]any{"file_path": settings, "edits": []map[string]any{
			{"old_string": `"opus"`, "new_string": `"sonnet"`},
			{"old_string": `"hooks": {`, "new_string": `"old_hooks": {`},
		}}, true, "runaway's hook entry"},
		{"Edit sets a runaway variable in env", "Edit", map[string]any{"file_path": settings, "old_string": `"model": "opus",`, "new_string": `"model": "opus", "env": {"RUNAWAY_SESSION_CAP_USD": "100000"},`}, true, "set RUNAWAY_SESSION_CAP_USD in the env of " + settings},
		{"Write moves runaway's state", "Write", map[string]any{"file_path": filepath.Join(th.proj, ".claude/settings.json"), "content": `{"env": {"XDG_STATE_HOME": "/nonexistent"}}`}, true, "set XDG_STATE_"},
		{"Edit not found, touches runaway hook", "Edit", map[string]any{"file_path": settings, "old_string": "runaway hook claude", "new_string": "true"}, true, "runaway's hook entry"},
		{"Edit project settings.local", "Edit", map[string]any{"file_path": filepath.Join(th.proj, ".claude/settings.local.json"), "old_string": `"runaway hook claude"`, "new_string": `"true"`}, true, "runaway's hook entry"},
		{"Write new project settings disabling hooks", "Write", map[string]any{"file_path": filepath.Join(th.home, "src/other/.claude/settings.json"), "content": `{"disableAllHooks": true}`}, true, "disableAllHooks"},

		{"Write codex hooks drops entry", "Write", map[string]any{"file_path": codexHooks, "content": `{"hooks": {}}`}, true, "runaway's hook entry"},
		{"Write codex hooks reorders groups", "Write", map[string]any{"file_path": codexHooks, "content": `{"hooks": {"PreToolUse": [
			{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/other"}]},
			{"hooks": [{"type": "command", "command": "` + th.home + `/.local/bin/runaway hook codex || true", "timeout": 10}]}]}}`}, true, "runaway's hook entry"},
		{"Write codex config hooks off", "Write", map[string]any{"file_path": codexConfig, "content": strings.Replace(strings.ReplaceAll(codexConfigWithTrust, "HOME", th.home), "web_search = true", "web_search = true\nhooks = false", 1)}, true, "[features] hooks = false"},
		{"Edit codex config codex_hooks off", "Edit", map[string]any{"file_path": codexConfig, "old_string": "web_search = true", "new_string": "codex_hooks = false"}, true, "codex_hooks = false"},
		{"Edit codex trust of runaway", "Edit", map[string]any{"file_path": codexConfig, "old_string": trust, "new_string": ""}, true, "trust record of runaway's hook"},
		{"Edit codex trust disabled", "Edit", map[string]any{"file_path": codexConfig, "old_string": trust, "new_string": trust + "\nenabled = false"}, true, "trust record"},

		// Allowed edits of the same files, and reads.
		{"Read settings", "Read", map[string]any{"file_path": settings}, false, ""},
		{"Read config", "Read", map[string]any{"file_path": filepath.Join(th.home, ".config/runaway/config.json")}, false, ""},
		{"Write other key", "Write", map[string]any{"file_path": settings, "content": otherKey}, false, ""},
		{"Edit permissions", "Edit", map[string]any{"file_path": settings, "old_string": `"Bash(npm test)"`, "new_string": `"Bash(npm test)", "Bash(go test:*)"`}, false, ""},
		{"Edit other env", "Edit", map[string]any{"file_path": settings, "old_string": `"model": "opus",`, "new_string": `"model": "opus", "env": {"NODE_ENV": "test"},`}, false, ""},
		{"Edit other tool's hook is asked", "Edit", map[string]any{"file_path": settings, "old_string": `/opt/lint-guard`, "new_string": `/opt/lint-guard --strict`}, true, "the person decides"},
		{"Edit project settings without runaway", "Edit", map[string]any{"file_path": filepath.Join(th.proj, ".claude/settings.json"), "old_string": `"allow": []`, "new_string": `"allow": ["Bash(ls)"]`}, false, ""},
		{"Write project file", "Write", map[string]any{"file_path": filepath.Join(th.proj, "main.go"), "content": "package main // runaway hook\n"}, false, ""},
		{"Edit codex config model", "Edit", map[string]any{"file_path": codexConfig, "old_string": `model = "gpt-5.1-codex"`, "new_string": `model = "gpt-5.2-codex"`}, false, ""},
		{"Edit codex trust of another hook", "Edit", map[string]any{"file_path": codexConfig, "old_string": otherTrust, "new_string": ""}, false, ""},
		{"Write codex hooks keeps entry, new harmless command", "Write", map[string]any{"file_path": codexHooks, "content": strings.ReplaceAll(strings.Replace(codexHooksWithRunaway, "/opt/other", "/opt/other2", 1), "HOME", th.home)}, false, ""},
		{"Write codex hooks keeps entry", "Write", map[string]any{"file_path": codexHooks, "content": strings.ReplaceAll(strings.Replace(codexHooksWithRunaway, `"Bash"`, `"Bash|apply_patch"`, 1), "HOME", th.home)}, false, ""},
		{"Write settings.json elsewhere", "Write", map[string]any{"file_path": filepath.Join(th.proj, "settings.json"), "content": `{"disableAllHooks": true}`}, false, ""},
	})
}

func TestTamperApplyPatch(t *testing.T) {
	th := newTamperHome(t)
	runTamperCases(t, th, []tamperCase{
		{"update config", "apply_patch", bash("*** Begin Patch\n*** Update File: " + th.home + "/.config/runaway/config.json\n@@\n-{\"session_cap_usd\": 20}\n+{\"session_cap_usd\": 2000}\n*** End Patch\n"), true, "runaway's own config"},
		{"relative path", "apply_patch", bash("*** Begin Patch\n*** Delete File: ../../.local/bin/runaway\n*** End Patch\n"), true, "runaway's program"},
		{"add file in state", "apply_patch", bash("*** Begin Patch\n*** Add File: " + th.home + "/.local/state/runaway/x\n+1\n*** End Patch\n"), true, "runaway's state"},
		{"move onto config", "apply_patch", bash("*** Begin Patch\n*** Update File: notes.md\n*** Move to: " + th.home + "/.config/runaway/config.json\n@@\n-notes\n+{}\n*** End Patch\n"), true, "runaway's own config"},
		{"drop codex hooks entry", "apply_patch", bash("*** Begin Patch\n*** Update File: " + th.home + "/.codex/hooks.json\n@@\n-      {\"hooks\": [{\"type\": \"command\", \"command\": \"" + th.home + "/.local/bin/runaway hook codex || true\", \"timeout\": 10}]},\n*** End Patch\n"), true, "runaway's hook entry"},
		{"codex hooks off", "apply_patch", bash("*** Begin Patch\n*** Update File: " + th.home + "/.codex/config.toml\n@@ [features]\n web_search = true\n+hooks = false\n*** End Patch\n"), true, "hooks = false"},
		{"delete project settings.local with runaway", "apply_patch", bash("*** Begin Patch\n*** Delete File: .claude/settings.local.json\n*** End Patch\n"), true, "settings.local.json"},
		{"via shell heredoc", "Bash", bash("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: " + th.home + "/.config/runaway/config.json\n*** End Patch\nEOF"), true, "runaway's own config"},

		{"update project file", "apply_patch", bash("*** Begin Patch\n*** Update File: notes.md\n@@\n-notes\n+more notes about runaway hook\n*** End Patch\n"), false, ""},
		{"codex config model", "apply_patch", bash("*** Begin Patch\n*** Update File: " + th.home + "/.codex/config.toml\n@@\n-model = \"gpt-5.1-codex\"\n+model = \"gpt-5.2-codex\"\n*** End Patch\n"), false, ""},
		{"delete project settings without runaway", "apply_patch", bash("*** Begin Patch\n*** Delete File: .claude/settings.json\n*** End Patch\n"), false, ""},
	})
}

// Codex's older shell tool sends an argv; Codex's exec_command a cmd.
func TestTamperShellInputShapes(t *testing.T) {
	th := newTamperHome(t)
	runTamperCases(t, th, []tamperCase{
		{"argv", "Bash", map[string]any{"command": []string{"bash", "-lc", "rm ~/.config/runaway/config.json"}}, true, "runaway's own config"},
		{"argv plain", "Bash", map[string]any{"command": []string{"rm", "-f", th.home + "/.config/runaway/config.json"}}, true, "runaway's own config"},
		{"workdir", "Bash", map[string]any{"command": "rm config.json", "workdir": th.home + "/.config/runaway"}, true, "runaway's own config"},
		{"not a string", "Bash", map[string]any{"command": 42}, false, ""},
		{"no input", "Bash", nil, false, ""},
	})
}

// The wire only looks at the tools that can write.
func TestTamperIgnoresOtherTools(t *testing.T) {
	th := newTamperHome(t)
	for _, tool := range []string{"Read", "Grep", "Glob", "WebFetch", "Agent"} {
		if reason := th.check(tool, bash("rm ~/.config/runaway/config.json")); reason != "" {
			t.Errorf("%s: %q", tool, reason)
		}
	}
}

// FuzzTamperShell: no input to the shell reader, the patch reader or the
// wire makes them panic or hang.
func FuzzTamperShell(f *testing.F) {
	for _, s := range []string{
		"rm -rf ~/.config/runaway", `echo "$(cat <<EOF
x
EOF
)"`, "a 'b", `a "b`, "$(", "${", "`", "$((1+2))", "a <<", "a <<EOF", "cat <<-\tEOF\n\tx\n\tEOF",
		"x=1; y=$x; rm $y", "find . -exec rm {} \\;", "sudo -u", "env -u", "xargs -I", "timeout",
		"bash -c", "eval", "python3 -c", "go run", "claude --settings", "codex -c", "\\", "\x00",
		"*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch",
		"*** Add File: \n+", "*** Delete File: /", "cp -t", "ln -s", "find ~ -name '[' -delete", "rm ~/.config/run[",
		"2>&", "&>", ">|", "<>x", "a |& b", ";;", "((", "))", "$'\\", "${a:-b}", "cd; cd -; cd $(x); rm y",
	} {
		f.Add(s)
	}
	th := newTamperHome(f)
	f.Fuzz(func(t *testing.T, s string) {
		patch.Parse(s)
		th.check("Bash", bash(s))
		th.check("apply_patch", bash(s))
	})
}

// BenchmarkTamperWire: the wire's own cost per call, for the calls agents
// make most and for the ones that make it read a settings file.
func BenchmarkTamperWire(b *testing.B) {
	th := newTamperHome(b)
	calls := []struct {
		name  string
		tool  string
		input any
	}{
		{"bash-typical", "Bash", bash("npm test -- --watch=false")},
		{"bash-pipeline", "Bash", bash(`cd web && rm -rf dist && npm run build 2>&1 | tee build.log; grep -c error build.log > /tmp/errors.txt`)},
		{"write-project-file", "Write", map[string]any{"file_path": filepath.Join(th.proj, "main.go"), "content": strings.Repeat("x", 4096)}},
		{"edit-settings", "Edit", map[string]any{"file_path": filepath.Join(th.home, ".claude", "settings.json"), "old_string": `"opus"`, "new_string": `"sonnet"`}},
		{"read", "Read", map[string]any{"file_path": filepath.Join(th.proj, "main.go")}},
	}
	for _, c := range calls {
		raw, _ := json.Marshal(c.input)
		call := Call{Tool: c.tool, Input: raw, Cwd: th.proj}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Check(th.g, call)
			}
		})
	}
}

// BenchmarkShellParse: the parser's share of a call (mvdan.cc/sh's
// syntax.Parse alone) on the command lines agents send most, and on a
// long one.
func BenchmarkShellParse(b *testing.B) {
	long := strings.Repeat("go vet ./pkg/... && ", 50) + "go test ./..."
	for name, src := range map[string]string{
		"typical":  "npm test -- --watch=false",
		"pipeline": `cd web && rm -rf dist && npm run build 2>&1 | tee build.log; grep -c error build.log > /tmp/errors.txt`,
		"heredoc":  "python3 - <<'PY'\nimport json\nprint(json.load(open('package.json'))['name'])\nPY",
		"long":     long,
	} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A call the wire cannot judge within its budget is denied when it names
// anything protected, and passes when it names nothing that could be.
func TestTamperFailsClosedOutOfTime(t *testing.T) {
	th := newTamperHome(t)
	g := th.g
	g.Budget = time.Nanosecond
	long := strings.Repeat("echo a; ", 2000)
	for _, tc := range []struct {
		cmd  string
		deny bool
	}{
		{long + "rm -rf ~/.local/state/runaway", true},
		{long + "rm -rf build/*", true}, // a glob: could be anything
		{long + "npm test", false},
	} {
		raw, _ := json.Marshal(bash(tc.cmd))
		r := Check(g, Call{Tool: "Bash", Input: raw, Cwd: th.proj})
		if got := r.Kind == Deny; got != tc.deny {
			t.Errorf("%.40q…: %+v, want deny %v", tc.cmd[len(tc.cmd)-30:], r, tc.deny)
		}
		if tc.deny && !strings.Contains(r.Reason, "could not be judged in time") {
			t.Errorf("reason %q", r.Reason)
		}
	}
}

// The words a command line hands its commands, as the shell expands them.
func TestShellFields(t *testing.T) {
	th := newTamperHome(t)
	c := newChecker(th.g, th.proj, time.Time{})
	for _, tc := range []struct{ src, want string }{
		{`a "b c" 'd e' f\ g`, "a|b c|d e|f g"},
		{`echo ~ "~" $HOME/x`, "echo|HOME|~|HOME/x"},
		{`x="1 2"; echo $x "$x"`, "echo|1|2|1 2"},
		{`IFS=,; x=a,b; echo $x`, "echo|a|b"},
		{`x=file.json.bak; echo ${x%.bak} ${y:-dflt} ${#x}`, "echo|file.json|dflt|13"},
		{`echo {a,b}/c $'\x41\101'`, "echo|a/c|b/c|AA"},
		{`echo $(date) $1`, "echo|\x00|\x00"}, // a command's output is unknown, not empty
		{`bash -c 'echo "$1" "$2"' sh one "two three"`, "echo|one|two three"},
		{`f() { echo "$1"; }; f one`, "echo|one"},
		{`cd /tmp && (cd /usr); echo $PWD`, "echo|/tmp"},
	} {
		sh := c.newShell(th.proj)
		var got []string
		sh.t.copies = nil
		record := func(args []string) { got = args }
		sh.probe = record
		sh.script(tc.src)
		if want := strings.ReplaceAll(tc.want, "HOME", th.home); strings.Join(got, "|") != want {
			t.Errorf("%s: %q, want %q", tc.src, strings.Join(got, "|"), want)
		}
	}
}

// git over a settings file that holds runaway's entry as the repository
// has it (a team's committed .claude/settings.json) changes nothing:
// reset --hard and stash pass; once the file differs, they are denied.
func TestTamperGitUnmodifiedPasses(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	th := newTamperHome(t)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = th.proj
		cmd.Env = []string{"HOME=" + th.home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-f", ".claude/settings.local.json")
	git("commit", "-qm", "team settings with runaway's entry")
	runTamperCases(t, th, []tamperCase{
		{"reset --hard, unmodified", "Bash", bash("git reset --hard"), false, ""},
		{"stash, unmodified", "Bash", bash("git stash"), false, ""},
		{"checkout the file, unmodified", "Bash", bash("git checkout -- .claude/settings.local.json"), false, ""},
		{"rm the file", "Bash", bash("git rm .claude/settings.local.json"), true, "git rm"},
	})
	p := filepath.Join(th.proj, ".claude", "settings.local.json")
	if err := os.WriteFile(p, []byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "runaway hook claude || true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runTamperCases(t, th, []tamperCase{
		{"reset --hard, modified", "Bash", bash("git reset --hard"), true, "git reset"},
		{"stash, modified", "Bash", bash("git stash"), true, "git stash"},
	})
}
