package installer

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/sysmode"
)

// checkSystem is doctor under a system install: every file of the install
// root's with the mode it must have, every managed file holding runaway's
// entry as setup left it, and the one thing no file can hold against — an
// agent's user who can sudo without a password.
func (d *doctor) checkSystem(l sysmode.Layout) {
	d.add(StatusOK, "mode", "system install: %s guards every user's agents; only root can raise a cap or take it off", l.Bin())
	gid, err := lookupGroup(l.Group())
	if err != nil {
		d.add(StatusFail, "system-group", "group %s: %v; run: sudo runaway setup --system", l.Group(), err)
		gid = -1
	}
	for _, w := range l.Wants(gid) {
		if gid < 0 && w.Gid >= 0 {
			continue
		}
		if err := l.Check(w); errors.Is(err, fs.ErrPermission) && !sysmode.IsRoot() {
			d.add(StatusOK, "system-files", "%s: only runaway's group looks inside (run doctor with sudo to check it)", w.Path)
		} else if err != nil {
			d.add(StatusFail, "system-files", "%v; run: sudo runaway setup --system", err)
		} else {
			d.add(StatusOK, "system-files", "%s", w.Path)
		}
	}
	rec, err := readSystemRecord(l.RecordFile())
	if err != nil || rec == nil {
		d.add(StatusFail, "system-record", "no record of the system setup in %s (%v); run: sudo runaway setup --system", l.RecordFile(), err)
		return
	}
	for _, mf := range configs.ManagedSettings(l) {
		var f *InstalledFile
		for i := range rec.Managed {
			if rec.Managed[i].Harness == mf.Harness {
				f = &rec.Managed[i]
			}
		}
		if f == nil {
			continue
		}
		d.checkManaged(l, mf, f)
	}
	d.checkSudo()
	d.checkSystemOpen(rec)
}

// checkSystemOpen says what a system install does not hold, for the agents
// it wires and the others found: nothing a file's owner or mode can close.
// Facts: docs/security.md and notes/issue-22.md.
func (d *doctor) checkSystemOpen(rec *SystemRecord) {
	open := []string{"the agent's user can kill its own hook processes (the agent then runs the call)",
		"a program that calls the model's API itself is not guarded"}
	wired := map[agent.ID]bool{}
	for _, f := range rec.Managed {
		wired[f.Harness] = true
	}
	if wired[agent.Codex] {
		open = append(open, "a Codex the agent starts itself with another SHELL runs no hook (Codex runs hooks through $SHELL)")
	}
	if wired[agent.Gemini] {
		open = append(open, "a Gemini CLI the agent starts itself with GEMINI_CLI_SYSTEM_SETTINGS_PATH set reads other system settings")
	}
	if _, found := d.agents[agent.OpenCode]; found {
		open = append(open, "OpenCode is not wired by a system install yet: it is not guarded")
	}
	d.add(StatusWarn, "system-open", "not held by a system install: %s (see docs/security.md)", strings.Join(open, "; "))
}

func (d *doctor) checkManaged(l sysmode.Layout, mf configs.ManagedFile, f *InstalledFile) {
	name := "managed-" + string(mf.Harness)
	if err := l.Check(sysmode.Want{Path: mf.Path, Mode: 0o644, Gid: -1}); err != nil {
		d.add(StatusFail, name, "%v; run: sudo runaway setup --system", err)
		return
	}
	data, err := os.ReadFile(mf.Path)
	if err != nil {
		d.add(StatusFail, name, "%v", err)
		return
	}
	has := bytes.Contains(data, []byte(l.Bin()))
	if !has {
		d.add(StatusFail, name, "%s no longer holds runaway's entry; run: sudo runaway setup --system", mf.Path)
		return
	}
	if HashBytes(data) != f.SHA256 {
		d.add(StatusWarn, name, "%s changed since setup (runaway's entry is still there)", mf.Path)
		return
	}
	d.add(StatusOK, name, "%s holds runaway's entry, as setup left it", mf.Path)
}

// checkSudo warns when the user running doctor (the agent's user, when
// the person runs it as that user) can sudo without a password: then the
// agent can too, and nothing local holds against it.
func (d *doctor) checkSudo() {
	if sysmode.IsRoot() {
		d.add(StatusOK, "sudo", "run doctor as the agent's user (not root) to check whether it can sudo without a password")
		return
	}
	if _, err := exec.LookPath("sudo"); err != nil {
		d.add(StatusOK, "sudo", "no sudo on PATH")
		return
	}
	if err := exec.Command("sudo", "-n", "true").Run(); err != nil {
		d.add(StatusOK, "sudo", "this user needs a password for sudo: an agent running as it cannot raise a cap")
		return
	}
	d.add(StatusWarn, "sudo", "this user can sudo without a password, so an agent running as it can run `sudo runaway allow` and `sudo runaway remove --system`: nothing local holds. Require a password (remove NOPASSWD from sudoers) or deny sudo in each agent: %s",
		strings.Join(denySudo, "; "))
}

// denySudo is how each agent's own rules keep its tool calls from sudo.
var denySudo = []string{
	`Claude Code: "permissions": {"deny": ["Bash(sudo:*)"]} in managed settings`,
	`Codex: its sandbox (sandbox_mode = "workspace-write" or "read-only"; no_new_privs stops sudo)`,
	`Gemini CLI: "tools": {"exclude": ["run_shell_command(sudo)"]} in system settings`,
	`OpenCode: "permission": {"bash": {"sudo *": "deny"}} in /etc/opencode`,
}
