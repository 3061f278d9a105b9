package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
)

// Notification is the JSON object notify_command reads on stdin: one per
// hook run that stopped, asked or denied, for its strongest verdict.
type Notification struct {
	// Event is what runaway did: "stop", "ask" or "deny"; Decision is what
	// the agent received ("deny" for an ask in Codex, Gemini CLI, OpenCode).
	Event     string  `json:"event"`
	Harness   Harness `json:"harness"`
	SessionID string  `json:"session_id"`
	Cwd       string  `json:"cwd"`
	Wire      string  `json:"wire"`
	Decision  string  `json:"decision"`
	Reason    string  `json:"reason"`
	SpendUSD  float64 `json:"spend_usd"`
	CapUSD    float64 `json:"cap_usd"`
	// AllowCommand raises the cap that stopped the session ("" for other
	// wires).
	AllowCommand string `json:"allow_command"`
}

// notify starts the policy's notify_command for the answer's strongest
// verdict, detached and never waited for: the hook's time must not depend
// on it. What fails goes to the error log.
func (h *Hook) notify(c *call, ans Answer) {
	cmd := c.policy.NotifyCommand
	k := ans.Kind()
	if cmd == "" || k < Ask {
		return
	}
	var v Verdict
	for _, x := range ans.Verdicts {
		if x.Kind == k {
			v = x
			break
		}
	}
	n := Notification{
		Event: k.String(), Harness: c.in.Harness, SessionID: c.in.SessionID, Cwd: c.in.Cwd,
		Wire: v.Wire, Decision: received(c.in.Harness, k), Reason: v.Reason,
		SpendUSD: roundMicro(c.sess.Spend.USD), CapUSD: c.sess.SessionCap(c.policy), AllowCommand: v.Allow,
	}
	if err := startDetached(cmd, n); err != nil {
		h.errorLog().Log("notify_command", err)
	}
}

// startDetached runs command through the shell in its own session, with n
// as JSON on stdin through a pipe (small enough never to block the write),
// its output discarded, and returns once it started.
func startDetached(command string, n Notification) error {
	data, err := json.Marshal(n)
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command(shellName, shellFlag, command)
	cmd.Stdin = r
	cmd.SysProcAttr = detachedAttr()
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("starting %q: %w", command, err)
	}
	_, werr := w.Write(append(data, '\n'))
	cerr := w.Close()
	// Not waited for: the hook exits and the command's parent becomes init.
	_ = cmd.Process.Release()
	if werr == nil {
		werr = cerr
	}
	return werr
}
