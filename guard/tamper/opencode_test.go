package tamper

import (
	"os"
	"path/filepath"
	"testing"
)

// OpenCode's config with a plugin of the person's, and runaway's plugin in
// the global plugin folder (configs.OpenCodePluginPath).
const openCodeConfigWithPlugin = `{
  // the person's own
  "$schema": "https://opencode.ai/config.json",
  "plugin": ["opencode-wakatime"],
  "permission": {"bash": "ask"},
}
`

func newOpenCodeHome(t *testing.T) *tamperHome {
	th := newTamperHome(t)
	for name, content := range map[string]string{
		".config/opencode/plugins/runaway.js": "// runaway's guard for OpenCode (plugin protocol 1)\n",
		".config/opencode/plugins/mine.js":    "export const Mine = async () => ({})\n",
		".config/opencode/opencode.jsonc":     openCodeConfigWithPlugin,
		"src/runaway/opencode.json":           `{"model": "anthropic/claude-sonnet-4-5"}`,
	} {
		p := filepath.Join(th.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return th
}

// The tamper wire on OpenCode's calls (bash, write, edit, multiedit,
// apply_patch with OpenCode's field names): runaway's plugin, the plugins
// its configs load, and OpenCode started without plugins. Attacks first,
// then the ordinary calls that must pass; both are counted.
func TestTamperOpenCode(t *testing.T) {
	th := newOpenCodeHome(t)
	plugin := "runaway's OpenCode plugin (HOME/.config/opencode/plugins/runaway.js)"
	global := "HOME/.config/opencode/opencode.jsonc"
	write := func(path, content string) map[string]any { return map[string]any{"filePath": path, "content": content} }
	edit := func(path, old, new string) map[string]any {
		return map[string]any{"filePath": path, "oldString": old, "newString": new}
	}
	attacks := []tamperCase{
		{"rm the plugin", "bash", bash("rm ~/.config/opencode/plugins/runaway.js"), true, plugin},
		{"mv the plugin away", "bash", bash("mv $XDG_CONFIG_HOME/opencode/plugins/runaway.js /tmp/"), true, plugin},
		{"empty the plugin", "bash", bash(": > ~/.config/opencode/plugins/runaway.js"), true, plugin},
		{"sed the plugin", "bash", bash(`sed -i 's/throw/void/' ~/.config/opencode/plugins/runaway.js`), true, plugin},
		{"rm -rf the plugin folder", "bash", bash("rm -rf ~/.config/opencode/plugins"), true, "HOME/.config/opencode/plugins/runaway.js"},
		{"rm -rf opencode's config", "bash", bash("cd ~/.config && rm -rf opencode"), true, "HOME/.config/opencode"},
		{"write over the plugin", "write", write(filepath.Join(th.home, ".config/opencode/plugins/runaway.js"), "export const RunawayGuard = async () => ({})"), true, plugin},
		{"write over the plugin (new tools' path)", "write", map[string]any{"path": filepath.Join(th.home, ".config/opencode/plugins/runaway.js"), "content": ""}, true, plugin},
		{"edit the plugin", "edit", edit(filepath.Join(th.home, ".config/opencode/plugins/runaway.js"), "throw new Error(answer.deny)", ""), true, plugin},
		{"apply_patch deletes the plugin", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: " + filepath.Join(th.home, ".config/opencode/plugins/runaway.js") + "\n*** End Patch"}, true, plugin},
		{"bash in another workdir", "bash", map[string]any{"command": "rm plugins/runaway.js", "workdir": filepath.Join(th.home, ".config/opencode")}, true, plugin},
		{"add a plugin to the global config", "edit", edit(filepath.Join(th.home, ".config/opencode/opencode.jsonc"), `["opencode-wakatime"]`, `["opencode-wakatime", "file:///tmp/off.js"]`), true, "change the plugins of " + global},
		{"replace the global config", "write", write(filepath.Join(th.home, ".config/opencode/opencode.jsonc"), `{"plugin": ["file:///tmp/off.js"]}`), true, global},
		{"add a plugin to the project's config", "edit", edit("opencode.json", `"model"`, `"plugin": ["./off.js"], "model"`), true, "change the plugins of HOME/src/runaway/opencode.json"},
		{"new .opencode config with a plugin", "write", write(".opencode/opencode.json", `{"plugin": ["./off.js"]}`), true, "HOME/src/runaway/.opencode/opencode.json"},
		{"multiedit a plugin in", "multiedit", map[string]any{"filePath": "opencode.json", "edits": []map[string]any{{"oldString": `{`, "newString": `{"plugin": ["x"],`}}}, true, "opencode.json"},
		{"shell write to the global config", "bash", bash(`echo '{"plugin":["file:///tmp/off.js"]}' > ~/.config/opencode/opencode.json`), true, "HOME/.config/opencode/opencode.json"},
		{"jq the config", "bash", bash(`jq '.plugin += ["x"]' opencode.json > o && mv o opencode.json`), true, "HOME/src/runaway/opencode.json"},
		{"opencode --pure", "bash", bash(`opencode run --pure "go on"`), true, "start OpenCode with --pure"},
		{"opencode --pure via npx", "bash", bash(`npx -y opencode-ai@1.18.33 run --pure "go on"`), true, "--pure"},
		{"OPENCODE_PURE prefix", "bash", bash(`OPENCODE_PURE=1 opencode run "go on"`), true, "OPENCODE_PURE"},
		{"OPENCODE_PURE via env", "bash", bash(`env OPENCODE_PURE=true opencode run "go on"`), true, "OPENCODE_PURE"},
		{"OPENCODE_PURE exported", "bash", bash("export OPENCODE_PURE=1\ncd /tmp && opencode run x"), true, "OPENCODE_PURE"},
		{"pure inside bash -c", "bash", bash(`bash -c 'opencode --pure run x'`), true, "--pure"},
		{"runaway allow from OpenCode", "bash", bash("runaway allow ses_1 --add 100"), true, "runaway allow"},
	}
	ordinary := []tamperCase{
		{"read the plugin", "bash", bash("cat ~/.config/opencode/plugins/runaway.js"), false, ""},
		{"write a plugin of its own", "write", write(filepath.Join(th.home, ".config/opencode/plugins/mine.js"), "export const Mine = async () => ({})"), false, ""},
		{"change the model in the project's config", "edit", edit("opencode.json", "claude-sonnet-4-5", "claude-opus-4-5"), false, ""},
		{"change a permission in the global config", "edit", edit(filepath.Join(th.home, ".config/opencode/opencode.jsonc"), `"ask"`, `"allow"`), false, ""},
		{"write a project config without plugins", "write", write("opencode.json", `{"model": "openai/gpt-5"}`), false, ""},
		{"a file that mentions plugin elsewhere", "write", write("docs/plugin.md", `"plugin": ["x"]`), false, ""},
		{"run opencode", "bash", bash(`opencode run "fix the tests"`), false, ""},
		{"opencode with OPENCODE_PURE off", "bash", bash(`OPENCODE_PURE=0 opencode run x`), false, ""},
		{"grep for --pure", "bash", bash(`grep -rn -- --pure docs/`), false, ""},
		{"npm test", "bash", bash("npm test"), false, ""},
		{"edit a source file", "edit", edit("main.go", "a", "b"), false, ""},
	}
	runTamperCases(t, th, attacks)
	runTamperCases(t, th, ordinary)
	t.Logf("OpenCode: %d attacks denied, %d ordinary calls passed", len(attacks), len(ordinary))
}
