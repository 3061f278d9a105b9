package caller

import (
	"golang.org/x/sys/unix"
)

func systemTable() processTable { return sysctlTable{} }

// sysctlTable reads processes with macOS's sysctl: kern.proc.pid for the
// parent and name, kern.procargs2 for the executable and arguments.
type sysctlTable struct{}

func (sysctlTable) Proc(pid int) (Proc, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Proc{}, err
	}
	p := Proc{PID: pid, PPID: int(k.Eproc.Ppid), Name: unix.ByteSliceToString(k.Proc.P_comm[:])}
	if raw, err := unix.SysctlRaw("kern.procargs2", pid); err == nil {
		p.Exe, p.Args = parseProcargs2(raw)
	}
	return p, nil
}
