package transcripts

import (
	"context"
	"fmt"
)

// readFiles reads every file of pos with handle, in pos.Files order,
// stopping at the first file that hits the deadline. (Reading the files in
// parallel was tried for first reads of large sessions; on the 2-core
// benchmark machine it gained nothing measurable and cost memory.)
func readFiles(ctx context.Context, pos *Position, sink Sink, reset func(*FilePos), handle func(line []byte, file string, fp *FilePos, sink *Sink)) (bool, error) {
	for i := range pos.Files {
		more, err := readFile(ctx, pos, &pos.Files[i], &sink, reset, handle)
		if err != nil || more {
			return more, err
		}
	}
	return false, nil
}

func readFile(ctx context.Context, pos *Position, fp *FilePos, sink *Sink, reset func(*FilePos), handle func([]byte, string, *FilePos, *Sink)) (bool, error) {
	abs := pos.absPath(fp.Path)
	more, err := readLines(ctx, abs, fp, func() { reset(fp) }, func(line []byte) {
		handle(line, abs, fp, sink)
	})
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", abs, err)
	}
	return more, nil
}
