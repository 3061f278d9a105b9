package installer

import (
	"context"
	"os/exec"
	"runtime"
	"time"

	"github.com/runaway-guard/runaway/configs"
)

// thisPlatform is what decides the form of the entries setup writes here:
// the OS and the version of the Claude Code found (read from its files,
// else from `claude --version`): whether it runs exec-form handlers (on
// Windows) and has the PreSkillShellCommand event.
func thisPlatform(agents []Found) configs.Platform {
	return platformFor(runtime.GOOS, agents, claudeVersionOutput)
}

// platformFor is thisPlatform with the OS and the way of asking Claude
// Code for its version passed in, so that tests choose them.
func platformFor(goos string, agents []Found, askVersion func(program string) string) configs.Platform {
	p := configs.Platform{OS: goos}
	for _, f := range agents {
		if f.ID != "claude" || !f.Found {
			continue
		}
		v := f.Version
		if v == "" && f.Program != "" {
			v = askVersion(f.Program)
		}
		// Elsewhere the shell form works in every version.
		p.ClaudeExecForm = goos == "windows" && configs.ClaudeRunsExecForm(v)
		p.ClaudeSkillShell = configs.ClaudeHasSkillShell(v)
	}
	return p
}

// claudeVersionOutput runs `program --version`, bounded: Claude Code
// prints "2.1.240 (Claude Code)".
func claudeVersionOutput(program string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, program, "--version").Output()
	if err != nil {
		return ""
	}
	return string(out)
}
