package transcripts

import (
	"context"
	"testing"
	"time"
)

// endless is a line that never ends, as a device or a file written without
// newlines gives.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// The deadline holds inside a line too: a read of a line that never ends
// comes back with more, its start left for the next call.
func TestScanLinesStopsInsideEndlessLine(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	var more bool
	var err error
	fp := &FilePos{}
	go func() {
		defer close(done)
		more, err = scanLines(ctx, endless{}, 4<<10, fp, func([]byte) { t.Error("a line that never ended was handled") })
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("scanLines read past its deadline")
	}
	if !more || err != nil || fp.Off != 0 {
		t.Fatalf("more=%v err=%v off=%d, want more at offset 0", more, err, fp.Off)
	}
}
