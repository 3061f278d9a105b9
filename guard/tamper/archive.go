package tamper

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/bzip2"
	"compress/gzip"
	"io"
	"os"

	"github.com/runaway-guard/runaway/ownfiles"
)

// What a local archive holds, for tar -x and unzip into a folder that
// holds runaway's files: the entries' names, read without extracting.

// Bounds on what is read of an archive: past them it counts as not
// listable (and the extraction is denied).
const (
	maxArchiveBytes   = 256 << 20 // compressed size of a tar
	maxArchiveEntries = 100000
)

// archiveEntries lists a zip, a tar, a gzip'ed or bzip2'ed tar (ok false:
// not a local regular file, another format, or too big).
func archiveEntries(p string) ([]string, bool) {
	if p == "" || !known(p) {
		return nil, false // stdin, or a name the wire cannot know
	}
	f, err := ownfiles.OpenRegular(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	var r io.Reader = bufio.NewReader(io.LimitReader(f, maxArchiveBytes))
	switch {
	case len(head) >= 4 && string(head[:4]) == "PK\x03\x04":
		z, err := zip.NewReader(f, fi.Size())
		if err != nil || len(z.File) > maxArchiveEntries {
			return nil, false
		}
		names := make([]string, len(z.File))
		for i, e := range z.File {
			names[i] = e.Name
		}
		return names, true
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		if fi.Size() > maxArchiveBytes {
			return nil, false
		}
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, false
		}
		r = gz
	case len(head) >= 3 && string(head[:3]) == "BZh":
		if fi.Size() > maxArchiveBytes {
			return nil, false
		}
		r = bzip2.NewReader(r)
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		if fi.Size() > maxArchiveBytes {
			return nil, false
		}
	default:
		return nil, false
	}
	tr := tar.NewReader(r)
	var names []string
	for len(names) <= maxArchiveEntries {
		h, err := tr.Next()
		if err == io.EOF {
			return names, true
		}
		if err != nil {
			return nil, false
		}
		names = append(names, h.Name)
	}
	return nil, false
}
