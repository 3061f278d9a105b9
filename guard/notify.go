package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
)

// Notification is the JSON object notify_command reads on stdin: one per
// hook run that stopped, asked or denied, for its strongest verdict.
type Notification struct {
	// Event is what runaway did: "stop", "ask" or "deny"; Decision is what
	// the agent received ("deny" for an ask in Codex, Gemini CLI, OpenCode).
	Event     string   `json:"event"`
	Harness   agent.ID `json:"harness"`
	SessionID string   `json:"session_id"`
	Cwd       string   `json:"cwd"`
	Wire      string   `json:"wire"`
	Decision  string   `json:"decision"`
	Reason    string   `json:"reason"`
	SpendUSD  float64  `json:"spend_usd"`
	CapUSD    float64  `json:"cap_usd"`
	// AllowCommand raises the cap that stopped the session ("" for other
	// wires).
	AllowCommand string `json:"allow_command"`
	// Ended says how runaway ended the agent's run itself, when it did
	// (Codex); Next are the commands that go on, in order.
	Ended string   `json:"ended,omitempty"`
	Next  []string `json:"next,omitempty"`
}

// notification is the event for the answer's strongest verdict, or nil:
// nothing to notify, no notify_command, or the same wire and decision as the
// session's last notification in the same prompt (Codex is denied call after
// call until the cap is raised or the prompt ends: one notification says it).
func notification(c *call, ans Answer, end ending) *Notification {
	k := ans.Kind()
	if c.policy.NotifyCommand == "" || k < Ask {
		return nil
	}
	var v Verdict
	for _, x := range ans.Verdicts {
		if x.Kind == k {
			v = x
			break
		}
	}
	key := v.Wire + " " + k.String() + " " + c.in.promptKey()
	if c.sess.Notified == key {
		return nil
	}
	c.sess.Notified = key
	n := &Notification{
		Event: k.String(), Harness: c.in.Harness, SessionID: c.in.SessionID, Cwd: c.in.Cwd,
		Wire: v.Wire, Decision: received(c.in.Harness, k), Reason: v.Reason,
		SpendUSD: roundMicro(c.sess.Spend.USD), CapUSD: c.sess.SessionCap(c.policy), AllowCommand: v.Allow,
	}
	if end != nil {
		e := end.record(c.now)
		n.Ended, n.Next = e.How, e.Next
	}
	return n
}

// notify starts the policy's notify_command with n, detached and never
// waited for: the hook's time must not depend on it. What fails goes to
// the error log.
func (h *Hook) notify(p configs.Policy, n *Notification) {
	if n == nil {
		return
	}
	if err := startDetached(p.NotifyCommand, *n); err != nil {
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
