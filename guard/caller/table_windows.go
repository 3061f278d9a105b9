package caller

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

func systemTable() processTable { return toolhelpTable{} }

// toolhelpTable reads processes from a Toolhelp32 snapshot: pid, parent
// and image name. Windows keeps a process's command line in its memory, so
// an agent run by node.exe shows as node.exe here; the agents' variables
// still tell it.
type toolhelpTable struct{}

func (toolhelpTable) Proc(pid int) (Proc, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return Proc{}, err
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if int(e.ProcessID) == pid {
			p := Proc{PID: pid, PPID: int(e.ParentProcessID), Name: windows.UTF16ToString(e.ExeFile[:])}
			p.Exe = imagePath(e.ProcessID)
			return p, nil
		}
	}
	return Proc{}, fmt.Errorf("no process %d", pid)
}

// imagePath is the process's executable path, "" when it cannot be read.
func imagePath(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}
