package transcripts

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// chunky reads at most a random few bytes at a time, as a pipe or a file
// being written can.
type chunky struct {
	r   io.Reader
	rng *rand.Rand
	max int
}

func (c chunky) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), 1+c.rng.IntN(c.max))])
}

// scanLines hands over every complete line exactly as bytes.Split finds it
// (without its \r\n or \n), whatever the buffer size, the lengths of the
// lines against it and the sizes of the reads; it leaves fp.Off after the
// last newline.
func TestScanLinesMatchesSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 16))
	for round := range 300 {
		var b strings.Builder
		for range rng.IntN(40) {
			n := rng.IntN(64)
			if rng.IntN(6) == 0 {
				n = rng.IntN(40_000) // longer than the buffer
			}
			b.WriteString(strings.Repeat(string(rune('a'+rng.IntN(26))), n))
			if rng.IntN(5) == 0 {
				b.WriteString("\r")
			}
			b.WriteString("\n")
		}
		if rng.IntN(2) == 0 {
			b.WriteString("half a line")
		}
		data := b.String()
		lines := strings.Split(data, "\n")
		want := lines[:len(lines)-1]
		for i := range want {
			want[i] = strings.TrimSuffix(want[i], "\r")
		}
		bufSize := 16 << rng.IntN(10)
		fp := &FilePos{}
		var got []string
		more, err := scanLines(context.Background(), chunky{strings.NewReader(data), rng, 1 + rng.IntN(50_000)}, bufSize, fp, func(line []byte) {
			got = append(got, string(line))
		})
		if more || err != nil {
			t.Fatalf("round %d: more=%v err=%v", round, more, err)
		}
		if len(got) != len(want) {
			t.Fatalf("round %d (buffer %d): %d lines, want %d", round, bufSize, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("round %d (buffer %d): line %d is %d bytes %.20q, want %d bytes %.20q", round, bufSize, i, len(got[i]), got[i], len(want[i]), want[i])
			}
		}
		if wantOff := int64(strings.LastIndex(data, "\n") + 1); fp.Off != wantOff {
			t.Fatalf("round %d: offset %d, want %d", round, fp.Off, wantOff)
		}
	}
}

// A line over MaxLine is skipped, and the lines around it are not.
func TestScanLinesSkipsLineOverMaxLine(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates MaxLine")
	}
	huge := bytes.Repeat([]byte("x"), MaxLine+1)
	data := append(append([]byte("before\n"), huge...), "\nafter\n"...)
	fp := &FilePos{}
	var got []string
	if _, err := scanLines(context.Background(), bytes.NewReader(data), 4<<10, fp, func(line []byte) { got = append(got, string(line)) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "before" || got[1] != "after" || fp.Off != int64(len(data)) {
		t.Fatalf("lines %.30q, offset %d, want [before after] at %d", got, fp.Off, len(data))
	}
	// A line of exactly MaxLine bytes is still read.
	data = append(append([]byte{}, huge[:MaxLine]...), '\n')
	got = nil
	if _, err := scanLines(context.Background(), bytes.NewReader(data), 4<<10, &FilePos{}, func(line []byte) { got = append(got, string(line[:3])) }); err != nil || len(got) != 1 {
		t.Fatalf("a line of MaxLine bytes: %d lines, err %v", len(got), err)
	}
}
