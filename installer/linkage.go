package installer

import (
	"debug/elf"
	"errors"
)

// elfLoader reads the dynamic loader an ELF binary asks for (its
// PT_INTERP): "" for a static binary. isELF is false for other formats:
// macOS binaries all link the system library, and Windows ones name no
// loader program. A dynamically linked runaway pays the loader on every
// tool call (the README gives the figure); a CGO_ENABLED=0 build does not.
func elfLoader(path string) (loader string, isELF bool, err error) {
	f, err := elf.Open(path)
	var formatErr *elf.FormatError
	if errors.As(err, &formatErr) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return "", true, err
		}
		for len(b) > 0 && b[len(b)-1] == 0 {
			b = b[:len(b)-1]
		}
		return string(b), true, nil
	}
	return "", true, nil
}
