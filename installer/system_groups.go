package installer

import (
	"fmt"
	"os/exec"
	"os/user"
	"runtime"
	"strconv"
	"strings"
)

// osGroups makes and deletes groups with the OS's own tools.
type osGroups struct{}

func (osGroups) Ensure(name string) (int, bool, error) {
	if gid, err := lookupGroup(name); err == nil {
		return gid, false, nil
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "linux":
		cmd = exec.Command("groupadd", "--system", name)
	case "darwin":
		cmd = exec.Command("dseditgroup", "-o", "create", "-r", "runaway", name)
	default:
		return 0, false, fmt.Errorf("making a group on %s is not supported yet", runtime.GOOS)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, false, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
	}
	gid, err := lookupGroup(name)
	return gid, true, err
}

func (osGroups) Delete(name string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "linux":
		cmd = exec.Command("groupdel", name)
	case "darwin":
		cmd = exec.Command("dseditgroup", "-o", "delete", name)
	default:
		return fmt.Errorf("deleting a group on %s is not supported yet", runtime.GOOS)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func lookupGroup(name string) (int, error) {
	g, err := user.LookupGroup(name)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(g.Gid)
}
