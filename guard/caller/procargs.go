package caller

import (
	"bytes"
	"encoding/binary"
)

// parseProcargs2 reads kern.procargs2: argc (int32), the executable's path,
// NUL padding, then argc NUL-terminated arguments (the environment follows).
func parseProcargs2(b []byte) (exe string, args []string) {
	if len(b) < 4 {
		return "", nil
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return string(b), nil
	}
	exe, b = string(b[:i]), bytes.TrimLeft(b[i:], "\x00")
	for len(args) < argc && len(b) > 0 {
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			args = append(args, string(b))
			break
		}
		args = append(args, string(b[:j]))
		b = b[j+1:]
	}
	return exe, args
}
