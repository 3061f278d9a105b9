package installer

import (
	"path/filepath"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// qwenHarness: Qwen Code reads Claude Code's hook format; it denies instead
// of asking (its ask is a deny in a headless run), and no hook answer ends
// its turn, so at the cap runaway interrupts the qwen process that ran the
// hook. Doctor checks its disableAllHooks switches (user, the folder's
// project settings, the system file) and how a stop ends the run.
var qwenHarness = Harness{
	ID: agent.Qwen, Name: "Qwen Code", Support: AllWiresDenyNotAsk,
	Why: "Qwen Code's ask is a deny in a headless run, so where Claude Code would ask, runaway denies the call and tells the model to stop and ask you; no Qwen Code hook answer to a tool call ends a turn, so at the cap runaway interrupts a headless qwen process that ran it (that one only), and blocks the prompt Qwen Code sends before its next model request (its terminal UI shows why and waits for you). Qwen Code's own loop detection stays on beside it.",
	doctor: func(d *doctor, h Harness) {
		d.checkWired(h)
		d.checkProcessStop("qwen-stop", "Qwen Code", "qwen",
			"a headless run ends with \"Operation cancelled.\" before the call runs; the terminal UI is not signalled (it takes SIGINT for a cancel): the call is denied and its next prompt blocked; under --acp (editors) every call is denied and each next prompt blocked")
	},
	settingsChecks: func(d *doctor, w *wiredChecks) {
		files := []string{configs.QwenSettings().Path}
		if d.opts.Dir != "" {
			// Project hooks run only in a folder Qwen Code trusts; its
			// switch there turns every hook off all the same.
			files = append(files, filepath.Join(d.opts.Dir, ".qwen", "settings.json"))
		}
		files = append(files, qwenSystemSettings)
		d.checkAllHooksOff("qwen-hooks-off", "Qwen Code", w.doc, files)
	},
}

// qwenSystemSettings is Qwen Code's system settings file on Linux, whose
// disableAllHooks turns off the user's hooks too (qwen-code.md §2).
const qwenSystemSettings = "/etc/qwen-code/settings.json"
