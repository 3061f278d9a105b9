package installer

import (
	"context"
	"os/exec"
	"runtime"
	"time"

	"github.com/runaway-guard/runaway/configs"
)

// thisPlatform is what decides the form of the entries setup writes here:
// the OS and the versions of the agents found (read from their files, else
// from `<program> --version`), as each agent's Harness.platform reads them
// (Claude Code: whether it runs exec-form handlers on Windows and has the
// PreSkillShellCommand event).
func thisPlatform(agents []Found) configs.Platform {
	return platformFor(runtime.GOOS, agents, versionOutput)
}

// platformFor is thisPlatform with the OS and the way of asking an agent
// for its version passed in, so that tests choose them.
func platformFor(goos string, agents []Found, askVersion func(program string) string) configs.Platform {
	p := configs.Platform{OS: goos}
	for _, f := range agents {
		if f.platform == nil || !f.Found {
			continue
		}
		v := f.Version
		if v == "" && f.Program != "" {
			v = askVersion(f.Program)
		}
		f.platform(&p, goos, v)
	}
	return p
}

// versionOutput runs `program --version`, bounded: Claude Code prints
// "2.1.240 (Claude Code)".
func versionOutput(program string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, program, "--version").Output()
	if err != nil {
		return ""
	}
	return string(out)
}
