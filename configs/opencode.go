package configs

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/agent"
)

// OpenCode has no shell-command hooks: runaway wires into it with a
// plugin file in OpenCode's global plugin folder (see opencode_plugin.js
// and shared/reference/opencode-observed.md).

//go:embed opencode_plugin.js
var openCodePluginTemplate string

// OpenCodePluginMarker starts the first line of runaway's plugin: a file
// that starts with it is runaway's, of any version.
const OpenCodePluginMarker = "// runaway's guard for OpenCode"

// OpenCodePluginTimeout bounds one run of runaway from the plugin, like
// HookTimeout in the other agents' entries: OpenCode itself waits for a
// plugin without limit.
const OpenCodePluginTimeout = HookTimeout * time.Second

// OpenCodeDir is OpenCode's global config folder: $XDG_CONFIG_HOME/opencode,
// else ~/.config/opencode (OpenCode uses this path on every system).
func OpenCodeDir() string { return agent.Of(agent.OpenCode).ConfigDir(Env) }

// OpenCodePluginPath is where setup writes runaway's plugin: OpenCode loads
// every {plugin,plugins}/*.{js,ts} of its config folders at start.
func OpenCodePluginPath() string {
	return filepath.Join(OpenCodeDir(), "plugins", "runaway.js")
}

// OpenCodePlugin is runaway's plugin running the binary at bin.
func OpenCodePlugin(bin string) []byte {
	return renderOpenCodePlugin(bin, OpenCodePluginTimeout)
}

func renderOpenCodePlugin(bin string, timeout time.Duration) []byte {
	quoted, _ := json.Marshal(bin) // a JSON string is a JavaScript string
	r := strings.NewReplacer(`"{{RUNAWAY}}"`, string(quoted), "{{TIMEOUT_MS}}", strconv.FormatInt(timeout.Milliseconds(), 10))
	return []byte(r.Replace(openCodePluginTemplate))
}

// IsOpenCodePlugin reports whether data is runaway's plugin.
func IsOpenCodePlugin(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimPrefix(data, []byte("\uFEFF")), []byte(OpenCodePluginMarker))
}

// OpenCodePluginBinary is the runaway program a plugin of runaway's runs,
// or "" when it names none.
func OpenCodePluginBinary(data []byte) string {
	const decl = "\nconst RUNAWAY = "
	i := bytes.Index(data, []byte(decl))
	if i < 0 {
		return ""
	}
	line, _, _ := bytes.Cut(data[i+len(decl):], []byte("\n"))
	var bin string
	if json.Unmarshal(bytes.TrimSpace(line), &bin) != nil {
		return ""
	}
	return bin
}

// The startup stall. For each config folder OpenCode makes sure its plugin
// SDK (@opencode-ai/plugin) is installed there with npm, and when a plugin
// file exists it waits for that install before it starts: with no registry
// reachable, about 70 s. It skips the install when the folder is not
// writable, or when node_modules/ exists and package-lock.json's root lists
// every dependency of package.json and the SDK (names only, not versions).

// OpenCodeSDK is the package OpenCode installs into its config folders.
const OpenCodeSDK = "@opencode-ai/plugin"

// OpenCodeLock is the package-lock.json setup writes into OpenCode's config
// folder when it has none, so that OpenCode does not install at start.
func OpenCodeLock() []byte {
	return []byte(`{
  "name": "opencode",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "dependencies": {
        "` + OpenCodeSDK + `": "*"
      }
    }
  }
}
`)
}

// OpenCodeInstallsAtStart reports whether OpenCode will run npm in dir when
// it starts, and if so a reason for people. A folder that does not exist
// yet counts as one with nothing in it.
func OpenCodeInstallsAtStart(dir string) (bool, string) {
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); errors.Is(err, fs.ErrNotExist) {
		return true, "it has no node_modules folder"
	}
	var pkg, lock struct {
		Dependencies         map[string]any `json:"dependencies"`
		DevDependencies      map[string]any `json:"devDependencies"`
		PeerDependencies     map[string]any `json:"peerDependencies"`
		OptionalDependencies map[string]any `json:"optionalDependencies"`
		Packages             map[string]struct {
			Dependencies         map[string]any `json:"dependencies"`
			DevDependencies      map[string]any `json:"devDependencies"`
			PeerDependencies     map[string]any `json:"peerDependencies"`
			OptionalDependencies map[string]any `json:"optionalDependencies"`
		} `json:"packages"`
	}
	// Files that do not parse count as empty, as OpenCode reads them.
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		_ = json.Unmarshal(b, &pkg)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package-lock.json")); err == nil {
		_ = json.Unmarshal(b, &lock)
	}
	r := lock.Packages[""]
	locked := func(name string) bool {
		for _, m := range []map[string]any{r.Dependencies, r.DevDependencies, r.PeerDependencies, r.OptionalDependencies} {
			if _, ok := m[name]; ok {
				return true
			}
		}
		return false
	}
	for _, m := range []map[string]any{{OpenCodeSDK: ""}, pkg.Dependencies, pkg.DevDependencies, pkg.PeerDependencies, pkg.OptionalDependencies} {
		for name := range m {
			if !locked(name) {
				return true, "package-lock.json does not list " + name
			}
		}
	}
	return false, ""
}
