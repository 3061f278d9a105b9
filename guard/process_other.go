//go:build !linux

package guard

import (
	"errors"
	"os"
)

// proc is a process; outside Linux runaway does not find the agent's, so a
// stop it cannot answer is a deny of every call (see ending).
type proc struct {
	pid, ppid int
	comm      string
	start     uint64
}

var errNoProc = errors.New("finding the agent's process needs Linux's /proc")

func agentAncestor(func(proc) bool) (proc, error) { return proc{}, errNoProc }
func (proc) cmdline() []string                    { return nil }
func (proc) alive() bool                          { return false }
func (proc) args() []string                       { return nil }
func (proc) fdPath(int) string                    { return "" }
func (proc) openFD(int) *os.File                  { return nil }
func (proc) interrupt() error                     { return errNoProc }
func isTerminal(string) bool                      { return false }
func repairTerminal(string, []string) error       { return errNoProc }
