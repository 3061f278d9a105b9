// Package ownfiles is where runaway keeps its own files and how it writes
// them: its folders, the error and decision logs (bounded, rotated), one
// writer (durable for files a person keeps, fast for the hook's per-call
// state), a regular-files-only open that cannot block, and ~ for paths
// shown to people. Every layer may import it; it imports nothing of ours
// but the leaf sysmode (where a system install keeps its files).
package ownfiles

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/adrg/xdg"

	"github.com/runaway-guard/runaway/sysmode"
)

// Dirs are where runaway keeps its own files.
type Dirs struct {
	Config string // the folder of config.json
	State  string // the folder of sessions, logs and installed.json
	Bin    string // the installed binary that hook entries run
}

// ConfigFile is runaway's config.json.
func (d Dirs) ConfigFile() string { return filepath.Join(d.Config, "config.json") }

// PricesFileName is the price catalogue `runaway prices update` imports,
// beside config.json.
const PricesFileName = "prices.json"

// PricesFile is the imported price catalogue; the hook prices with it over
// the embedded table when it is there.
func (d Dirs) PricesFile() string { return filepath.Join(d.Config, PricesFileName) }

// InstalledFile is setup's record of what it wrote (for an exact remove
// and doctor's drift checks).
func (d Dirs) InstalledFile() string { return filepath.Join(d.State, "installed.json") }

// ErrorLogFile is the hook's error log.
func (d Dirs) ErrorLogFile() string { return filepath.Join(d.State, ErrorLogName) }

// DecisionLogFile is the hook's decision log.
func (d Dirs) DecisionLogFile() string { return filepath.Join(d.State, DecisionLogName) }

// ExeName is the installed binary's file name on goos.
func ExeName(goos string) string {
	if goos == "windows" {
		return "runaway.exe"
	}
	return "runaway"
}

// OwnDirs are runaway's folders on this machine: the system install's
// when there is one (see SystemMode), else the person's own (UserDirs).
func OwnDirs() Dirs {
	if l := sysmode.Real(); l.Installed() {
		return SystemDirs(l)
	}
	return UserDirs()
}

// SystemMode reports whether a system install is in force
// (`sudo runaway setup --system`): then every command uses its root-owned
// files, and the environment can move none of them.
func SystemMode() bool { return sysmode.Real().Installed() }

// SystemDirs are a system install's folders.
func SystemDirs(l sysmode.Layout) Dirs {
	return Dirs{Config: l.ConfigDir(), State: l.StateDir(), Bin: l.Bin()}
}

// UserDirs are the person's own runaway folders:
//
//   - Linux: the XDG base directories (~/.config/runaway,
//     ~/.local/state/runaway, ~/.local/bin/runaway).
//   - macOS: the same XDG layout, not ~/Library/Application Support:
//     that is where people look for a command-line tool's files (as for
//     gh, chezmoi and the agents' own dot folders). The XDG_* variables
//     win when set; a folder an earlier runaway made under
//     ~/Library/Application Support is used while the XDG one is absent.
//   - Windows: adrg/xdg's known folders (%LOCALAPPDATA%\runaway for config
//     and state) and %LOCALAPPDATA%\Programs\runaway\runaway.exe.
func UserDirs() Dirs {
	return chooseDirs(dirsEnv{
		goos: runtime.GOOS, home: Home(), getenv: os.Getenv, isDir: isDir,
		xdgConfig: xdg.ConfigHome, xdgState: xdg.StateHome, xdgBin: xdg.BinHome,
	})
}

// dirsEnv is what the choice depends on, so that every OS's choice is
// tested on any OS.
type dirsEnv struct {
	goos, home string
	getenv     func(string) string
	isDir      func(string) bool
	// adrg/xdg's answers for this OS (they honour the XDG_* variables).
	xdgConfig, xdgState, xdgBin string
}

func chooseDirs(e dirsEnv) Dirs {
	d := Dirs{
		Config: filepath.Join(e.xdgConfig, "runaway"),
		State:  filepath.Join(e.xdgState, "runaway"),
		Bin:    filepath.Join(e.xdgBin, ExeName(e.goos)),
	}
	switch e.goos {
	case "darwin":
		d.Config = macDir(e, "XDG_CONFIG_HOME", filepath.Join(e.home, ".config"), e.xdgConfig)
		d.State = macDir(e, "XDG_STATE_HOME", filepath.Join(e.home, ".local", "state"), e.xdgState)
		if e.getenv("XDG_BIN_HOME") == "" {
			d.Bin = filepath.Join(e.home, ".local", "bin", "runaway")
		}
	case "windows":
		if e.getenv("XDG_BIN_HOME") == "" {
			// %LOCALAPPDATA%\Programs holds one folder per program.
			d.Bin = filepath.Join(e.xdgBin, "runaway", "runaway.exe")
		}
	}
	return d
}

// macDir is runaway's folder under the XDG variable env when it is set
// (an absolute path, as the spec asks), else under def; an existing
// folder under the macOS default (legacy, from adrg/xdg) is kept while
// there is none under def.
func macDir(e dirsEnv, env, def, legacy string) string {
	if v := e.getenv(env); filepath.IsAbs(v) {
		return filepath.Join(v, "runaway")
	}
	want := filepath.Join(def, "runaway")
	old := filepath.Join(legacy, "runaway")
	if old != want && !e.isDir(want) && e.isDir(old) {
		return old
	}
	return want
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
