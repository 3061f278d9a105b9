package testscripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/testbin"
)

// TestSystemModeInNamespace runs testdata/system_namespace.sh: a system
// install, the agent's user (nobody) trying to switch it off, root raising
// a cap, and remove --system, all inside a private mount namespace whose
// /etc, /usr/local and /var/lib are overlays onto a temp folder. It needs
// root (CI runs as root) and never touches the real system folders.
func TestSystemModeInNamespace(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root: the system install is made in a private mount namespace")
	}
	for _, tool := range []string{"unshare", "setpriv", "groupadd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	testbin.TouchSources("..")
	tmp, err := os.MkdirTemp("", "runaway-system-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	// The agent's user (nobody) must reach its own files under it.
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs(filepath.Join("testdata", "system_namespace.sh"))
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "bash", script, filepath.Join(binDir, "runaway"), tmp)
	out, err := cmd.CombinedOutput()
	text := string(out)
	t.Logf("\n%s", text)
	if err != nil && !strings.Contains(text, "ok:") {
		t.Fatalf("the script did not run: %v", err)
	}
	oks := strings.Count(text, "\nok: ") + boolInt(strings.HasPrefix(text, "ok: "))
	if strings.Contains(text, "FAIL:") {
		t.Errorf("%d checks passed; failures above", oks)
	}
	if oks < 30 {
		t.Errorf("only %d checks passed, want every one (30 or more)", oks)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
