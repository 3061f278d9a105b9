package installer

import (
	"path/filepath"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// openCodeHarness: runaway is a plugin file in OpenCode's plugin folder
// (opencode.go), installed as an npm package OpenCode loads at start.
var openCodeHarness = Harness{
	ID: agent.OpenCode, Name: "OpenCode", Support: AllWiresDenyNotAsk,
	Why:       "runaway's plugin in OpenCode's plugin folder runs it before every tool call and model request, with OpenCode's own spend; a plugin cannot ask you, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you, and at the cap the session ends before its next model request. opencode --pure runs without plugins, runaway's included.",
	dirs:      func(home string) []string { return []string{filepath.Join(home, ".opencode", "bin", "opencode")} },
	entryPath: configs.OpenCodePluginPath,
	wire:      planOpenCodeSetup,
	unwire:    planOpenCodeRemove,
	doctor:    (*doctor).checkOpenCode,
}
