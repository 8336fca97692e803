package journal

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/berthsched/berth"
)

// A snapshot file (format 2) frames what the host wrote so that any
// damage to it reads as corruption, whatever the host's own format:
//
//	magic     8 bytes  "BERTHSNP"
//	version   1 byte   1
//	seq       8 bytes  the record the snapshot follows (as in its name)
//	checksum  4 bytes  CRC-32C of the 17 bytes before it
//	body      the host's bytes
//	length    8 bytes  the body's length
//	checksum  4 bytes  CRC-32C of the body
//
// A format 1 snapshot is the host's bytes alone; it is read as it is.
const (
	snapMagic      = "BERTHSNP"
	snapVersion    = 1
	snapHeaderSize = 8 + 1 + 8 + 4
	snapTrailer    = 8 + 4
)

// snapWriter frames the host's bytes as they are written.
type snapWriter struct {
	bw  *bufio.Writer
	n   int64
	crc uint32
}

func newSnapWriter(w io.Writer, seq uint64) (*snapWriter, error) {
	h := append([]byte(snapMagic), snapVersion)
	h = binary.LittleEndian.AppendUint64(h, seq)
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	sw := &snapWriter{bw: bufio.NewWriterSize(w, 256<<10)}
	_, err := sw.bw.Write(h)
	return sw, err
}

func (w *snapWriter) Write(p []byte) (int, error) {
	n, err := w.bw.Write(p)
	w.crc = crc32.Update(w.crc, castagnoli, p[:n])
	w.n += int64(n)
	return n, err
}

// finish writes the trailer and flushes.
func (w *snapWriter) finish() error {
	t := binary.LittleEndian.AppendUint64(nil, uint64(w.n))
	t = binary.LittleEndian.AppendUint32(t, w.crc)
	if _, err := w.bw.Write(t); err != nil {
		return err
	}
	return w.bw.Flush()
}

// snapReader yields a snapshot's body and, at its end, checks the
// trailer: a damaged file ends in an error wrapping berth.ErrCorruptState
// instead of io.EOF.
type snapReader struct {
	f    File
	name string
	size int64 // the file's size
	left int64 // body bytes not yet read
	crc  uint32
	err  error // sticky: io.EOF or the damage
}

// openSnapshotFile checks the header of snapshot file f (seq from its
// name) and returns a reader of its body; a format 1 file, where one may
// be (old), is returned as it is.
func openSnapshotFile(f File, name string, seq uint64, old bool) (io.ReadCloser, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var h [snapHeaderSize]byte
	n, _ := f.ReadAt(h[:], 0)
	corrupt := func(why string, args ...any) error {
		return fmt.Errorf("journal: snapshot %s: %w: %s", name, berth.ErrCorruptState, fmt.Sprintf(why, args...))
	}
	framed := n >= len(snapMagic) && string(h[:len(snapMagic)]) == snapMagic
	switch {
	case !framed && old:
		return f, nil // format 1: the host's bytes, unframed
	case !framed:
		return nil, corrupt("bad magic")
	case n < snapHeaderSize || st.Size() < snapHeaderSize+snapTrailer:
		return nil, corrupt("cut at %d bytes", st.Size())
	case crc32.Checksum(h[:17], castagnoli) != binary.LittleEndian.Uint32(h[17:]):
		return nil, corrupt("header checksum")
	case h[8] != snapVersion:
		return nil, fmt.Errorf("journal: snapshot %s: %w: framing version %d", name, berth.ErrUnsupportedVersion, h[8])
	case binary.LittleEndian.Uint64(h[9:]) != seq:
		return nil, corrupt("holds the state after record %d", binary.LittleEndian.Uint64(h[9:]))
	}
	if _, err := f.Read(h[:]); err != nil { // step past the header
		return nil, err
	}
	return &snapReader{f: f, name: name, size: st.Size(), left: st.Size() - snapHeaderSize - snapTrailer}, nil
}

func (r *snapReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.left == 0 {
		r.err = r.verify()
		return 0, r.err
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.f.Read(p)
	r.crc = crc32.Update(r.crc, castagnoli, p[:n])
	r.left -= int64(n)
	if err == io.EOF && r.left > 0 {
		r.err = fmt.Errorf("journal: snapshot %s: %w: shorter than its size", r.name, berth.ErrCorruptState)
		return n, r.err
	}
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, r.err
}

// verify checks the trailer once the body is read.
func (r *snapReader) verify() error {
	var t [snapTrailer]byte
	if _, err := r.f.ReadAt(t[:], r.size-snapTrailer); err != nil {
		return fmt.Errorf("journal: snapshot %s: reading its trailer: %w", r.name, err)
	}
	body := r.size - snapHeaderSize - snapTrailer
	if got := binary.LittleEndian.Uint64(t[:]); got != uint64(body) {
		return fmt.Errorf("journal: snapshot %s: %w: trailer says %d bytes, the File holds %d", r.name, berth.ErrCorruptState, got, body)
	}
	if got := binary.LittleEndian.Uint32(t[8:]); got != r.crc {
		return fmt.Errorf("journal: snapshot %s: %w: checksum %08x, want %08x", r.name, berth.ErrCorruptState, r.crc, got)
	}
	return io.EOF
}

func (r *snapReader) Close() error { return r.f.Close() }
