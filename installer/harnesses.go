// Package installer finds the coding agents on this machine and wires
// runaway into them: it plans setup and remove as exact file edits that a
// person (or the wizard) can look at first, then applies them.
package installer

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// Support says how much of runaway works in a harness.
type Support int

const (
	// AllWires: loop, failure, spend and tamper wires, with every answer.
	AllWires Support = iota
	// AllWiresDenyNotAsk: every wire, but "ask the person" becomes a deny
	// that tells the model to stop and ask.
	AllWiresDenyNotAsk
	// NotSupported: runaway does not wire into this harness.
	NotSupported
)

func (s Support) String() string {
	switch s {
	case AllWires:
		return "all wires"
	case AllWiresDenyNotAsk:
		return "all wires, deny instead of ask"
	}
	return "not supported"
}

// Harness is what runaway knows about one coding agent. The texts are the
// ones setup, the wizard and doctor show; they live here only.
type Harness struct {
	ID      agent.ID // the name used in flags and in `runaway hook <id>`
	Name    string
	Support Support
	// Why explains the support level in one or two sentences.
	Why string
	// Todo is what the person must still do after setup, if anything.
	Todo string
}

// Harnesses lists every harness runaway knows, in the order shown.
var Harnesses = []Harness{
	{
		ID: "claude", Name: "Claude Code", Support: AllWires,
		Why: "runaway runs before every tool call and can warn you, ask you, deny the call, or end the turn.",
	},
	{
		ID: "codex", Name: "Codex", Support: AllWiresDenyNotAsk,
		Why:  "Codex hooks cannot ask the person, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you; Codex cannot end a turn from a hook, so at the cap runaway interrupts the codex process that ran it (that one only).",
		Todo: `start codex: it says "Hooks need review"; choose "Review hooks" (or type /hooks) and trust runaway's two entries, named "` + configs.CodexToolName + `" and "` + configs.CodexPromptName + `". Codex runs a new or changed hook only once you trust it.`,
	},
	{
		ID: "cursor", Name: "Cursor", Support: NotSupported,
		Why: "Cursor runs Claude Code's hooks, so runaway's Claude Code entry already sees its tool calls; its transcripts carry no token usage, so no spend cap is possible: use Cursor's spend limit.",
	},
	{
		ID: "gemini", Name: "Gemini CLI", Support: AllWiresDenyNotAsk,
		Why: "Gemini CLI's ask would wait forever in a headless run, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you; at the cap it ends the run. Gemini CLI's own loop detection stays on beside it.",
	},
	{
		ID: "opencode", Name: "OpenCode", Support: AllWiresDenyNotAsk,
		Why: "runaway's plugin in OpenCode's plugin folder runs it before every tool call and model request, with OpenCode's own spend; a plugin cannot ask you, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you, and at the cap the session ends before its next model request. opencode --pure runs without plugins, runaway's included.",
	},
}

// HarnessByID returns the harness with that id.
func HarnessByID(id agent.ID) (Harness, bool) {
	for _, h := range Harnesses {
		if h.ID == id {
			return h, true
		}
	}
	return Harness{}, false
}

// Found is one harness as detected on this machine.
type Found struct {
	Harness
	Found bool
	// Where lists the folders and programs that showed it.
	Where []string
	// Version, when it could be read cheaply (a package.json next to the
	// program, or a versioned install folder); never by running it.
	Version string
	// Settings is the file setup edits for it ("" when none).
	Settings string
	// Program is the agent's program found on PATH ("" when none).
	Program string
}

// Detect looks for every harness. It only looks at files and PATH.
func Detect() []Found {
	home := ownfiles.Home()
	var out []Found
	for _, h := range Harnesses {
		f := Found{Harness: h}
		facts := agent.Of(h.ID)
		dirs, progs := []string{facts.ConfigDir(configs.Env)}, facts.Programs
		switch h.ID {
		case agent.Cursor:
			// The editor keeps its own folders and program besides the agent CLI's.
			dirs = append(dirs, filepath.Join(home, ".config", "Cursor"))
			switch runtime.GOOS {
			case "darwin":
				dirs = append(dirs, "/Applications/Cursor.app", filepath.Join(home, "Library", "Application Support", "Cursor"))
			case "windows":
				dirs = append(dirs, filepath.Join(os.Getenv("APPDATA"), "Cursor"), filepath.Join(os.Getenv("LOCALAPPDATA"), "Programs", "cursor"))
			}
			progs = append(slices.Clip(progs), "cursor")
		case agent.OpenCode:
			dirs = append(dirs, filepath.Join(home, ".opencode", "bin", "opencode"))
		}
		for _, d := range dirs {
			if _, err := os.Stat(d); err == nil {
				f.Found = true
				f.Where = append(f.Where, d)
			}
		}
		for _, p := range progs {
			path, err := exec.LookPath(p)
			if err != nil {
				continue
			}
			f.Found = true
			f.Where = append(f.Where, path)
			if f.Program == "" {
				f.Program = path
			}
			if f.Version == "" {
				f.Version = programVersion(path)
			}
		}
		f.Settings = EntryPath(h.ID)
		out = append(out, f)
	}
	return out
}

// EntryPath is the file that wires runaway into a harness: its settings
// file, OpenCode's plugin file, or "" when runaway does not wire into it.
func EntryPath(id agent.ID) string {
	if sf, ok := configs.SettingsFor(id); ok {
		return sf.Path
	}
	if id == "opencode" {
		return configs.OpenCodePluginPath()
	}
	return ""
}

// programVersion reads a program's version without running it: from the
// package.json of the npm package its resolved path lies in, or from a
// versioned install folder (Claude Code's native installer keeps
// …/versions/<version>).
func programVersion(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if filepath.Base(filepath.Dir(real)) == "versions" {
		return filepath.Base(real)
	}
	dir := filepath.Dir(real)
	for range 4 {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var pkg struct{ Name, Version string }
			if json.Unmarshal(b, &pkg) == nil && agentPackage(pkg.Name) {
				return pkg.Version
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// agentPackage reports whether an npm package is one an agent ships as.
func agentPackage(name string) bool {
	for _, f := range agent.All {
		if slices.Contains(f.Packages, name) {
			return true
		}
	}
	return false
}
