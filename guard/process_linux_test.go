//go:build linux

package guard

import (
	"os"
	"testing"
)

// The walk finds the nearest ancestor by its name, and only an ancestor:
// this test's own parent (go test's runner) is found; a name no ancestor
// has is not, even if some other process has it.
func TestAgentAncestor(t *testing.T) {
	parent, err := readProc(os.Getppid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	p, err := agentAncestor(func(p proc) bool { return p.comm == parent.comm })
	if err != nil || p.pid != parent.pid || !p.alive() {
		t.Errorf("agentAncestor(%q) = %+v, %v; want the parent, pid %d", parent.comm, p, err, parent.pid)
	}
	self, _ := readProc(os.Getpid())
	if _, err := agentAncestor(func(p proc) bool { return p.comm == self.comm+"-none" }); err == nil {
		t.Errorf("found an ancestor named %q", self.comm+"-none")
	}
	gone := proc{pid: parent.pid, start: parent.start + 1}
	if gone.alive() {
		t.Errorf("a process with another start time counts as alive: pid reuse is not told apart")
	}
}
