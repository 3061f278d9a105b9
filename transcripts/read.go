package transcripts

import (
	"context"
	"fmt"
	"runtime"
	"sync"
)

// readFiles reads every file of pos with handle, in pos.Files order,
// stopping at the first file that hits the deadline; with sink.Files set,
// it reads them at the same time instead.
func readFiles(ctx context.Context, pos *Position, sink Sink, reset func(*FilePos), handle func(line []byte, file string, fp *FilePos, sink *Sink)) (bool, error) {
	if sink.Files != nil {
		return readFilesParallel(ctx, pos, sink.Files, reset, handle)
	}
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

// maxParallel bounds the files a parallel read reads at once.
const maxParallel = 4

// readFilesParallel reads the files of pos on up to GOMAXPROCS goroutines
// (at most maxParallel: each holds a read buffer of up to 4 MiB), each
// file's records going to its own Sink. Every file keeps its own FilePos,
// so positions stay exact wherever ctx stops a read.
func readFilesParallel(ctx context.Context, pos *Position, sinkFor func(file string) Sink, reset func(*FilePos), handle func(line []byte, file string, fp *FilePos, sink *Sink)) (bool, error) {
	sinks := make([]Sink, len(pos.Files))
	for i := range pos.Files {
		sinks[i] = sinkFor(pos.absPath(pos.Files[i].Path))
		sinks[i].Files = nil
	}
	more := make([]bool, len(pos.Files))
	errs := make([]error, len(pos.Files))
	next := make(chan int, len(pos.Files))
	for i := range pos.Files {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxParallel, len(pos.Files)) {
		wg.Go(func() {
			for i := range next {
				more[i], errs[i] = readFile(ctx, pos, &pos.Files[i], &sinks[i], reset, handle)
			}
		})
	}
	wg.Wait()
	anyMore := false
	for i := range pos.Files {
		if errs[i] != nil {
			return false, errs[i]
		}
		anyMore = anyMore || more[i]
	}
	return anyMore, nil
}
