// Package installer finds the coding agents on this machine and wires
// runaway into them: it plans setup and remove as exact file edits that a
// person (or the wizard) can look at first, then applies them.
package installer

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

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

	// dirs and programs show the agent installed besides its config folder
	// and its agent.Facts programs (nil: none).
	dirs     func(home string) []string
	programs []string
	// entryPath is the file that wires runaway in when the agent has no
	// configs.Settings (OpenCode's plugin); nil: none.
	entryPath func() string
	// wire plans the edits that wire runaway in (nil: runaway's entries in
	// the agent's configs.Settings file); unwire plans their inverses from
	// setup's record (nil: the entries out of that file).
	wire   func(bin string, prior *InstalledFile, p configs.Platform) (Edits, error)
	unwire func(prior *InstalledFile) (Edits, error)
	// platform reads from the version of the agent found what the form of
	// its entries must be on goos (nil: nothing to read).
	platform func(p *configs.Platform, goos, version string)
	// denyRule writes one of the agent's own rules that keep its tools off
	// a path (a folder when dir), which setup adds to its user settings
	// file (nil: it has none; Claude Code's permissions.deny Edit rules).
	denyRule func(path string, dir bool, goos string) string
	// besides are the files next to the agent's settings file at path that
	// can switch its hooks off, guarded with it (nil: none).
	besides func(path string) []string
	// events are doctor's checks of runaway's entries under the agent's
	// events besides the one before each tool call (and commonEvents).
	events map[string]eventCheck
	// afterSetup are the steps only the person can take once setup changed
	// the agent's settings file, for the wizard's last screen (nil: none).
	afterSetup func(bin string) []string
	// doctor are the agent's own doctor checks (nil: "found" or "not
	// installed" with Why); settingsChecks those of its settings file once
	// runaway's entries in it are read; protection says how runaway's files
	// are kept from the agent's tools (nil: the tamper wire alone).
	doctor         func(d *doctor, h Harness)
	settingsChecks func(d *doctor, w *wiredChecks)
	protection     func(d *doctor, f InstalledFile)
}

// Harnesses lists every harness runaway knows, in the order shown; each
// agent's is in its own file (claude.go, codex.go, …).
var Harnesses = []Harness{claudeHarness, codexHarness, cursorHarness, geminiHarness, openCodeHarness, qwenHarness, copilotHarness}

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
		dirs := []string{facts.ConfigDir(configs.Env)}
		if h.dirs != nil {
			dirs = append(dirs, h.dirs(home)...)
		}
		progs := append(slices.Clip(facts.Programs), h.programs...)
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
	if h, ok := HarnessByID(id); ok && h.entryPath != nil {
		return h.entryPath()
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

// Wired are the harnesses runaway wires into, in Harnesses' order.
func Wired() []Harness {
	var out []Harness
	for _, h := range Harnesses {
		if h.Support != NotSupported {
			out = append(out, h)
		}
	}
	return out
}

// WiredNames names them for people: "Claude Code, Codex, Gemini CLI and
// OpenCode".
func WiredNames() string {
	var names []string
	for _, h := range Wired() {
		names = append(names, h.Name)
	}
	return joinNames(names)
}

// joinNames lists names for people: "A", "A and B", "A, B and C".
func joinNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// WiredIDs lists their ids as --harness takes them: "claude, codex,
// gemini, opencode".
func WiredIDs() string {
	var ids []string
	for _, h := range Wired() {
		ids = append(ids, string(h.ID))
	}
	return strings.Join(ids, ", ")
}
