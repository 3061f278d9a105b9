package ownfiles

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestChooseDirs(t *testing.T) {
	mac := func(env map[string]string, dirs ...string) dirsEnv {
		appSupport := "/Users/u/Library/Application Support"
		e := dirsEnv{
			goos: "darwin", home: "/Users/u", getenv: func(k string) string { return env[k] },
			isDir:     func(p string) bool { return slices.Contains(dirs, p) },
			xdgConfig: appSupport, xdgState: appSupport, xdgBin: "/Users/u/.local/bin",
		}
		// adrg/xdg honours the variables itself.
		if v := env["XDG_CONFIG_HOME"]; v != "" {
			e.xdgConfig = v
		}
		if v := env["XDG_STATE_HOME"]; v != "" {
			e.xdgState = v
		}
		if v := env["XDG_BIN_HOME"]; v != "" {
			e.xdgBin = v
		}
		return e
	}
	none := map[string]string{}
	legacy := "/Users/u/Library/Application Support/runaway"
	tests := []struct {
		name string
		env  dirsEnv
		want Dirs
	}{
		{"linux", dirsEnv{goos: "linux", home: "/home/u", getenv: func(string) string { return "" }, isDir: func(string) bool { return false },
			xdgConfig: "/home/u/.config", xdgState: "/home/u/.local/state", xdgBin: "/home/u/.local/bin"},
			Dirs{"/home/u/.config/runaway", "/home/u/.local/state/runaway", "/home/u/.local/bin/runaway"}},
		{"macos, fresh: the XDG layout, not Application Support", mac(none),
			Dirs{"/Users/u/.config/runaway", "/Users/u/.local/state/runaway", "/Users/u/.local/bin/runaway"}},
		{"macos, XDG variables set", mac(map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "XDG_STATE_HOME": "/x/st", "XDG_BIN_HOME": "/x/bin"}, legacy),
			Dirs{"/x/cfg/runaway", "/x/st/runaway", "/x/bin/runaway"}},
		{"macos, a relative XDG variable is ignored", mac(map[string]string{"XDG_CONFIG_HOME": "cfg"}),
			Dirs{"/Users/u/.config/runaway", "/Users/u/.local/state/runaway", "/Users/u/.local/bin/runaway"}},
		{"macos, an earlier install in Application Support is found", mac(none, legacy),
			Dirs{legacy, legacy, "/Users/u/.local/bin/runaway"}},
		{"macos, both there: the XDG one", mac(none, legacy, "/Users/u/.config/runaway", "/Users/u/.local/state/runaway"),
			Dirs{"/Users/u/.config/runaway", "/Users/u/.local/state/runaway", "/Users/u/.local/bin/runaway"}},
		{"windows", dirsEnv{goos: "windows", home: `C:\Users\u`, getenv: func(string) string { return "" }, isDir: func(string) bool { return false },
			xdgConfig: `C:\Users\u\AppData\Local`, xdgState: `C:\Users\u\AppData\Local`, xdgBin: `C:\Users\u\AppData\Local\Programs`},
			Dirs{filepath.Join(`C:\Users\u\AppData\Local`, "runaway"), filepath.Join(`C:\Users\u\AppData\Local`, "runaway"), filepath.Join(`C:\Users\u\AppData\Local\Programs`, "runaway", "runaway.exe")}},
		{"windows, XDG_BIN_HOME set", dirsEnv{goos: "windows", getenv: func(k string) string { return map[string]string{"XDG_BIN_HOME": `D:\bin`}[k] }, isDir: func(string) bool { return false },
			xdgConfig: `C:\c`, xdgState: `C:\s`, xdgBin: `D:\bin`},
			Dirs{filepath.Join(`C:\c`, "runaway"), filepath.Join(`C:\s`, "runaway"), filepath.Join(`D:\bin`, "runaway.exe")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chooseDirs(tt.env); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
