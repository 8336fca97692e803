package journal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/berthsched/berth"
)

// The on-disk format (version 1), all fixed-size integers little-endian.
//
// A segment file, named seg-<first sequence, 20 digits>.wal, starts with a
// header:
//
//	magic     8 bytes  "BERTHJNL"
//	version   1 byte   FormatVersion
//	first     8 bytes  the sequence number of its first record
//	checksum  4 bytes  CRC-32C of the 17 bytes before it
//
// and holds records back to back:
//
//	length    4 bytes  payload length (1 … MaxRecord)
//	checksum  4 bytes  CRC-32C of the record's sequence number (8 bytes)
//	                   followed by the payload
//	payload   length bytes
//
// A record's sequence number is not stored: it is the segment's first plus
// the record's index, and the checksum covers it, so a record read at the
// wrong place (a segment renamed, a block from another file) fails its
// check. A snapshot file, snap-<sequence, 20 digits>.snap, holds what the
// host wrote for the state after that record; the host's format checks
// itself (a Berth snapshot has its own checksum trailer).

// FormatVersion is the version of the segment format this build writes
// and reads.
const FormatVersion = 1

// MaxRecord is the largest payload a record may have.
const MaxRecord = 64 << 20

const (
	segMagic      = "BERTHJNL"
	segHeaderSize = 8 + 1 + 8 + 4
	recHeaderSize = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrTornTail is what [ReadSegment] reports when the segment ends in an
// incomplete or unchecked last record: the tail a crash can leave. The
// records before it are good; a journal recovers by cutting the tail off.
var ErrTornTail = errors.New("torn last record")

// RecordError reports a segment that cannot be read: which record
// (sequence number) at which byte offset, and why. It wraps
// [berth.ErrCorruptState] (or [ErrTornTail] for a torn tail, or
// [berth.ErrUnsupportedVersion]).
type RecordError struct {
	Segment string // file name, when known
	Seq     uint64 // the record's sequence number
	Offset  int64  // where the record starts in the segment
	Err     error
}

// Error names the segment, the record and the offset, and the cause.
func (e *RecordError) Error() string {
	seg := e.Segment
	if seg == "" {
		seg = "segment"
	}
	return fmt.Sprintf("journal %s, record %d at byte %d: %v", seg, e.Seq, e.Offset, e.Err)
}

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }

func appendSegmentHeader(b []byte, first uint64) []byte {
	b = append(b, segMagic...)
	b = append(b, FormatVersion)
	b = binary.LittleEndian.AppendUint64(b, first)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(b)-17:], castagnoli))
}

// recordCRC is the checksum of a record: its sequence number, then its
// payload. scratch holds at least 8 bytes (passing it keeps the hot path
// free of allocations).
func recordCRC(scratch []byte, seq uint64, payload []byte) uint32 {
	binary.LittleEndian.PutUint64(scratch, seq)
	return crc32.Update(crc32.Checksum(scratch[:8], castagnoli), castagnoli, payload)
}

// AppendRecord appends the framing and payload of record seq to b.
func AppendRecord(b []byte, seq uint64, payload []byte) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, seq) // scratch for the checksum, then the header
	crc := recordCRC(b[start:], seq, payload)
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc)
	return append(b, payload...)
}

// Segment is what [ReadSegment] found: the first sequence number, the
// number of good records, and the byte length of the good prefix (header
// and good records).
type Segment struct {
	First uint64
	Count uint64
	Good  int64
}

// ReadSegment reads a segment of size bytes from r, calling fn (when not
// nil) with each good record's sequence number and payload (valid only
// during the call). It stops at the first record that does not check:
//
//   - a record cut short by the end of the segment (its header or payload
//     incomplete), or a last record whose checksum fails, is a torn tail:
//     the error wraps [ErrTornTail] and Segment tells the good prefix;
//   - a record whose checksum fails with more data after it, or whose
//     length is impossible while the rest of the segment could hold it, is
//     corruption in the middle: the error wraps [berth.ErrCorruptState].
//
// A header shorter than its size is a torn tail with no records (a crash
// while creating the segment); a wrong magic, version or header checksum
// is corruption. An error returned by fn stops the read and is returned
// as it is. ReadSegment never panics, whatever the bytes.
func ReadSegment(r io.Reader, size int64, fn func(seq uint64, payload []byte) error) (Segment, error) {
	var seg Segment
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	if size < segHeaderSize {
		return seg, &RecordError{Err: fmt.Errorf("%w: segment header cut at %d bytes", ErrTornTail, size)}
	}
	var h [segHeaderSize]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return seg, &RecordError{Err: fmt.Errorf("%w: reading the header: %w", berth.ErrCorruptState, err)}
	}
	if string(h[:8]) != segMagic {
		return seg, &RecordError{Err: fmt.Errorf("%w: not a journal segment (bad magic)", berth.ErrCorruptState)}
	}
	if crc32.Checksum(h[:17], castagnoli) != binary.LittleEndian.Uint32(h[17:]) {
		return seg, &RecordError{Err: fmt.Errorf("%w: segment header checksum", berth.ErrCorruptState)}
	}
	if h[8] != FormatVersion {
		return seg, &RecordError{Err: fmt.Errorf("%w: segment format %d (this build reads %d)", berth.ErrUnsupportedVersion, h[8], FormatVersion)}
	}
	seg.First = binary.LittleEndian.Uint64(h[9:17])
	seg.Good = segHeaderSize
	var buf []byte
	for {
		off := seg.Good
		seq := seg.First + seg.Count
		left := size - off
		if left == 0 {
			return seg, nil
		}
		fail := func(err error) (Segment, error) {
			return seg, &RecordError{Seq: seq, Offset: off, Err: err}
		}
		if left < recHeaderSize {
			return fail(fmt.Errorf("%w: record header cut at %d of %d bytes", ErrTornTail, left, recHeaderSize))
		}
		var rh [recHeaderSize]byte
		if _, err := io.ReadFull(br, rh[:]); err != nil {
			return fail(fmt.Errorf("%w: %w", berth.ErrCorruptState, err))
		}
		n := int64(binary.LittleEndian.Uint32(rh[:4]))
		want := binary.LittleEndian.Uint32(rh[4:])
		if n == 0 || n > left-recHeaderSize {
			rest, ok := readRest(br, left-recHeaderSize)
			if n == 0 && want == 0 && (ok && allZero(rest) || !ok && zeros(br, left-recHeaderSize)) {
				// A crash can leave the end of a file zero-filled (the
				// size was updated, the data never written). zeros reads
				// a tail too long for readRest; readRest left it unread.
				return fail(fmt.Errorf("%w: zero-filled tail of %d bytes", ErrTornTail, left))
			}
			// Either a record cut short by a crash or a damaged length
			// field in the middle: it is torn only if no good record
			// follows anywhere in the rest of the segment.
			if ok && !laterRecord(rh[:], rest, seq) {
				return fail(fmt.Errorf("%w: length %d with %d bytes left", ErrTornTail, n, left-recHeaderSize))
			}
			return fail(fmt.Errorf("%w: record length %d with %d bytes left, and good data after it", berth.ErrCorruptState, n, left-recHeaderSize))
		}
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return fail(fmt.Errorf("%w: %w", berth.ErrCorruptState, err))
		}
		if recordCRC(rh[:], seq, buf) != want {
			if n == left-recHeaderSize {
				return fail(fmt.Errorf("%w: checksum of the last record", ErrTornTail))
			}
			return fail(fmt.Errorf("%w: record checksum (with %d bytes after it)", berth.ErrCorruptState, left-recHeaderSize-n))
		}
		if fn != nil {
			if err := fn(seq, buf); err != nil {
				return seg, err
			}
		}
		seg.Count++
		seg.Good = off + recHeaderSize + n
	}
}

// zeros reports whether the next n bytes of br are all zero (consuming
// them, or some of them when not); only called once the segment cannot be
// read further.
func zeros(br *bufio.Reader, n int64) bool {
	for n > 0 {
		b, err := br.Peek(int(min(n, int64(br.Size()))))
		if len(b) == 0 {
			return err == nil
		}
		if !allZero(b) {
			return false
		}
		br.Discard(len(b))
		n -= int64(len(b))
	}
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// maxTornScan bounds the bytes after a bad record header that recovery
// examines to tell a torn tail from damage in the middle; a longer
// remainder cannot be one interrupted write of ordinary records and is
// refused as corruption.
const maxTornScan = 4 << 20

// readRest reads the n bytes left in the segment when n is small enough
// to examine.
func readRest(br *bufio.Reader, n int64) ([]byte, bool) {
	if n > maxTornScan {
		return nil, false
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(br, b); err != nil {
		return nil, false
	}
	return b, true
}

// laterRecord reports whether a good record (sequence seq+1 or seq+2, or
// seq itself starting later) begins anywhere after the bad header hdr,
// in rest: then the bad header is damage, not a torn tail.
func laterRecord(hdr, rest []byte, seq uint64) bool {
	all := append(append([]byte(nil), hdr[1:]...), rest...)
	var scratch [8]byte
	for p := 0; p+recHeaderSize <= len(all); p++ {
		n := int(binary.LittleEndian.Uint32(all[p:]))
		if n == 0 || n > len(all)-p-recHeaderSize {
			continue
		}
		want := binary.LittleEndian.Uint32(all[p+4:])
		body := all[p+recHeaderSize : p+recHeaderSize+n]
		for k := uint64(0); k < 3; k++ {
			if recordCRC(scratch[:], seq+k, body) == want {
				return true
			}
		}
	}
	return false
}
