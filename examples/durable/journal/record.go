package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/berthsched/berth"
)

// The on-disk format (version 3), all fixed-size integers little-endian.
//
// A segment file, named seg-<first sequence, 20 digits>.wal, is created
// at its full size (its capacity, preallocated) and starts with a header:
//
//	magic     8 bytes  "BERTHJNL"
//	version   1 byte   FormatVersion (3)
//	first     8 bytes  the sequence number of its first record
//	capacity  8 bytes  the file's size as created
//	checksum  4 bytes  CRC-32C of the 25 bytes before it
//
// then zeros up to byte 512, and two synced marks, at bytes 512 and 1024
// (each in a sector of its own, so that a write torn by a crash spoils
// one at most):
//
//	synced    8 bytes  every record up to this one was durable
//	checksum  4 bytes  CRC-32C of the segment's first record number and
//	                   synced (16 bytes)
//
// Records start at byte 1536 and follow each other, then zeros up to its
// capacity:
//
//	length    4 bytes  payload length (1 … MaxRecord)
//	checksum  4 bytes  CRC-32C of the record's sequence number (8 bytes)
//	                   followed by the payload
//	payload   length bytes
//
// A record's sequence number is not stored: it is the segment's first plus
// the record's index, and the checksum covers it, so a record read at the
// wrong place (a segment renamed, a block from another file) fails its
// check. Records never cross the capacity: one that does not fit starts
// the next segment, made larger when a record needs it. Because a crash
// never shortens a file created at its full size, a segment shorter than
// its capacity was cut by something else, and recovery knows it.
//
// The marks are the journal's note, in the segment itself, of how far its
// records were synced: after each fsync of the segment returns, the
// journal writes the synced record's number into the older mark (without
// a second fsync: the next one carries it, whatever a crash leaves of it
// is still true). Recovery holds the records to the higher valid mark, so
// records cut off or zeroed behind every group commit but the last are
// noticed, where the manifest knows only what was synced at the last
// rotation. The marks cost one write of 12 bytes per fsync, no fsync of
// their own.
//
// Format 2 (still read; a journal continues in a new format 3 segment)
// had no marks and its records started after the 29-byte header; format 1
// had a 21-byte header without the capacity, and its segments grew as
// records were appended.
//
// Beside the segments, the directory holds:
//
//   - MANIFEST: what the journal knew to be durable when it last rotated,
//     checkpointed or closed (see manifest.go);
//   - snap-<sequence, 20 digits>.snap: a snapshot of the host's state
//     after that record, framed by a header and a checksum trailer (see
//     snapfile.go);
//   - LOCK: the one writer's process id and host, for the message of a
//     refused opener (the lock itself is a flock on the directory and on
//     this file);
//   - <segment>.<offset>.torn: bytes recovery cut off a torn tail, kept
//     for inspection; <segment>.lost: a segment past a loss that
//     Options.AcceptTruncation gave up.

// FormatVersion is the version of the segment format this build writes;
// it reads this one and formats 1 and 2.
const FormatVersion = 3

// MaxRecord is the largest payload a record may have.
const MaxRecord = 64 << 20

const (
	segMagic    = "BERTHJNL"
	segHeaderV1 = 8 + 1 + 8 + 4
	segHeaderV2 = 8 + 1 + 8 + 8 + 4 // formats 2 and 3
	markA       = 512               // the synced marks of format 3
	markB       = 1024
	markSize    = 8 + 4
	// segDataStart is where the records of a format 3 segment start.
	segDataStart  = 1536
	recHeaderSize = 8
	// sectorSize is the unit a disk writes atomically: a crash tears a
	// write at a sector boundary, leaving whole sectors unwritten.
	sectorSize = 512
	// maxTornScan bounds the bytes after a bad record header that
	// recovery examines to tell a torn tail from damage in the middle; a
	// longer remainder cannot be one interrupted write of ordinary
	// records and is refused as corruption.
	maxTornScan = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrTornTail is what [ReadSegment] reports when the segment ends in a
// torn write: an incomplete last record, or one with a sector never
// written. The records before it are good; a journal recovers by cutting
// the tail off, since a record is acknowledged only once synced and a
// synced record is whole.
var ErrTornTail = errors.New("torn last record")

// RecordError reports a segment that cannot be read: which record
// (sequence number) at which byte offset, and why. It wraps
// [berth.ErrCorruptState] (or [ErrTornTail] for a torn tail, or
// [berth.ErrUnsupportedVersion]); from [Journal.Replay] it wraps the
// error of the host's function.
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

// appendSegmentHeader appends the start of a new segment: its header,
// its marks (none yet: zeros) up to where its records start.
func appendSegmentHeader(b []byte, first uint64, capacity int64) []byte {
	start := len(b)
	b = append(b, segMagic...)
	b = append(b, FormatVersion)
	b = binary.LittleEndian.AppendUint64(b, first)
	b = binary.LittleEndian.AppendUint64(b, uint64(capacity))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
	return append(b, make([]byte, segDataStart-segHeaderV2)...)
}

// appendMark appends a synced mark of the segment starting at first. The
// checksum's 16-byte input is built in b's own room, then overwritten by
// the mark (as AppendRecord does), so that a b with room for 16 bytes
// keeps the fsync path free of allocations.
func appendMark(b []byte, first, synced uint64) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint64(b, first)
	b = binary.LittleEndian.AppendUint64(b, synced)
	crc := crc32.Checksum(b[start:], castagnoli)
	binary.LittleEndian.PutUint64(b[start:], synced)
	binary.LittleEndian.PutUint32(b[start+8:], crc)
	return b[:start+markSize]
}

// readMarks returns the higher of a format 3 segment's valid marks (0:
// none). A mark that fails its check is a write a crash tore, or damage:
// either way it proves nothing.
func readMarks(data []byte, first uint64) uint64 {
	var best uint64
	for _, at := range []int{markA, markB} {
		m := data[at : at+markSize]
		synced := binary.LittleEndian.Uint64(m)
		var want [16]byte
		if [markSize]byte(appendMark(want[:0], first, synced)) == [markSize]byte(m) {
			best = max(best, synced)
		}
	}
	return best
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

// Segment is what [ReadSegment] found.
type Segment struct {
	Version  int    // the segment's format version (0 when its header is cut)
	First    uint64 // the sequence number of its first record
	Count    uint64 // good records
	Good     int64  // bytes of the header and the good records
	Capacity int64  // the size it was created with (formats 2 and 3; 0 for format 1)
	// Mark is the higher of a format 3 segment's synced marks: the
	// journal had made every record up to it durable (0: no mark).
	Mark uint64
	// Data is where the written bytes end: Good, or the end of the torn
	// tail or damage after it. Only zeros follow up to the file's end.
	Data int64
}

// ReadSegment reads a segment of size bytes from r, calling fn (when not
// nil) with each good record's sequence number and payload (valid only
// during the call). It stops at the first record that does not check:
//
//   - a torn write is an [ErrTornTail] (Segment tells the good prefix):
//     a last record cut short by the end of the file, or one that holds a
//     whole sector (512 bytes, aligned in the file) of zeros, the mark of
//     a write the crash interrupted, with nothing readable after it;
//   - anything else wraps [berth.ErrCorruptState]: a complete last record
//     whose checksum fails (a synced record damaged: dropping it would
//     lose an acknowledged command), a record that differs from a good
//     one by a single bit, a bad record with a good one after it, or more
//     damaged bytes than one interrupted write leaves.
//
// The zeros after the records are the unused part of a format 2 segment
// (in format 1 they are a torn tail: the file grew, the data never
// came). A header cut short is a torn tail with no records; a wrong magic
// or header checksum is corruption, an unknown version an error wrapping
// [berth.ErrUnsupportedVersion]. An error returned by fn stops the read
// and is returned as it is. ReadSegment never panics, whatever the bytes.
func ReadSegment(r io.Reader, size int64, fn func(seq uint64, payload []byte) error) (Segment, error) {
	if size < 0 {
		return Segment{}, &RecordError{Err: fmt.Errorf("%w: negative size %d", berth.ErrCorruptState, size)}
	}
	data := make([]byte, size)
	if n, err := io.ReadFull(r, data); err != nil {
		return Segment{}, &RecordError{Offset: int64(n), Err: fmt.Errorf("%w: reading: %w", berth.ErrCorruptState, err)}
	}
	var each func(uint64, int64, []byte) error
	if fn != nil {
		each = func(seq uint64, _ int64, p []byte) error { return fn(seq, p) }
	}
	return parseSegment(data, each)
}

// parseSegment is ReadSegment on the segment's bytes; fn (when not nil)
// also gets each record's offset.
func parseSegment(data []byte, fn func(seq uint64, off int64, payload []byte) error) (Segment, error) {
	var seg Segment
	if len(data) < 9 || len(data) < headerSize(data[8]) {
		if len(data) >= 8 && string(data[:8]) != segMagic {
			return seg, &RecordError{Err: fmt.Errorf("%w: not a journal segment (bad magic)", berth.ErrCorruptState)}
		}
		return seg, &RecordError{Err: fmt.Errorf("%w: segment header cut at %d bytes", ErrTornTail, len(data))}
	}
	if string(data[:8]) != segMagic {
		return seg, &RecordError{Err: fmt.Errorf("%w: not a journal segment (bad magic)", berth.ErrCorruptState)}
	}
	hs := headerSize(data[8])
	if hs == 0 {
		return seg, &RecordError{Err: fmt.Errorf("%w: segment format %d (this build reads 1 to %d)", berth.ErrUnsupportedVersion, data[8], FormatVersion)}
	}
	hl := min(hs, segHeaderV2) // the header proper, its checksum last
	if crc32.Checksum(data[:hl-4], castagnoli) != binary.LittleEndian.Uint32(data[hl-4:]) {
		return seg, &RecordError{Err: fmt.Errorf("%w: segment header checksum", berth.ErrCorruptState)}
	}
	seg.Version = int(data[8])
	seg.First = binary.LittleEndian.Uint64(data[9:17])
	if seg.Version >= 2 {
		c := binary.LittleEndian.Uint64(data[17:25])
		if c < uint64(hs) || c > 1<<62 {
			return seg, &RecordError{Err: fmt.Errorf("%w: segment capacity %d", berth.ErrCorruptState, c)}
		}
		seg.Capacity = int64(c)
	}
	if seg.Version >= 3 {
		seg.Mark = readMarks(data, seg.First)
	}
	seg.Good = int64(hs)
	var scratch [8]byte
	for {
		off := seg.Good
		seq := seg.First + seg.Count
		rest := data[off:]
		if len(rest) < recHeaderSize {
			break
		}
		n := int64(binary.LittleEndian.Uint32(rest))
		if n == 0 || n > MaxRecord || n > int64(len(rest))-recHeaderSize {
			break
		}
		payload := rest[recHeaderSize : recHeaderSize+n]
		if recordCRC(scratch[:], seq, payload) != binary.LittleEndian.Uint32(rest[4:]) {
			break
		}
		if fn != nil {
			if err := fn(seq, off, payload); err != nil {
				return seg, err
			}
		}
		seg.Count++
		seg.Good = off + recHeaderSize + n
	}
	return endOfRecords(data, seg)
}

// headerSize is where the records of a segment format start (0: an
// unknown format).
func headerSize(version byte) int {
	switch version {
	case 1:
		return segHeaderV1
	case 2:
		return segHeaderV2
	case 3:
		return segDataStart
	}
	return 0
}

// endOfRecords tells what follows the good records of seg: nothing but
// zeros (the end), a torn tail, or damage.
func endOfRecords(data []byte, seg Segment) (Segment, error) {
	pos := seg.Good
	end := pos + int64(lastNonZero(data[pos:]))
	seg.Data = end
	seq := seg.First + seg.Count
	fail := func(err error) (Segment, error) {
		return seg, &RecordError{Seq: seq, Offset: pos, Err: err}
	}
	if end == pos {
		if seg.Version == 1 && pos < int64(len(data)) {
			// Format 1 grew with each write: zeros are a write the
			// file's size recorded and its data never reached.
			seg.Data = int64(len(data))
			return fail(fmt.Errorf("%w: zero-filled tail of %d bytes", ErrTornTail, seg.Data-pos))
		}
		return seg, nil
	}
	if seg.Version == 1 {
		seg.Data = int64(len(data)) // format 1 cuts everything after the good records
	}
	b := tornView{data: data, pos: pos, end: end, seq: seq}
	if why := b.damage(); why != "" {
		return fail(fmt.Errorf("%w: %s", berth.ErrCorruptState, why))
	}
	return fail(fmt.Errorf("%w: %d bytes after the last good record", ErrTornTail, end-pos))
}

// lastNonZero is the length of b up to and including its last non-zero
// byte (0 when b is all zeros). It tests 64 bytes a step (7 GB/s here,
// against 2.8 for 8 bytes a step): the free space of a segment, scanned
// at every Open, is most of it.
func lastNonZero(b []byte) int {
	n := len(b)
	for n >= 64 {
		s, le := b[n-64:n], binary.LittleEndian
		if le.Uint64(s[0:])|le.Uint64(s[8:])|le.Uint64(s[16:])|le.Uint64(s[24:])|
			le.Uint64(s[32:])|le.Uint64(s[40:])|le.Uint64(s[48:])|le.Uint64(s[56:]) != 0 {
			break
		}
		n -= 64
	}
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return n
}

// tornView is the bytes after the good records of a segment, the first
// of which does not read as a good record: data[pos:end] holds non-zero
// bytes, only zeros follow.
type tornView struct {
	data     []byte
	pos, end int64
	seq      uint64 // the sequence number a record at pos would have
}

// damage says why the bytes at pos are damage rather than a torn write,
// or "" when a crash can explain them. A crash leaves a prefix of what
// the journal was writing, or whole sectors of it unwritten (zeros), and
// nothing good after it; a flipped bit, a bad record before good ones, a
// complete record with no unwritten sector are not a crash's doing.
func (v tornView) damage() string {
	size := int64(len(v.data))
	var n, recEnd int64 // the first bad record's payload length and end, when its length is possible
	if size-v.pos >= recHeaderSize {
		if l := int64(binary.LittleEndian.Uint32(v.data[v.pos:])); l >= 1 && l <= MaxRecord {
			n, recEnd = l, v.pos+recHeaderSize+l
		}
		if n > 0 && recEnd <= size && v.oneBitOff(n) {
			return fmt.Sprintf("record checksum: one bit differs from a good record of %d bytes", n)
		}
		if v.lengthBitOff() {
			return "record length: one bit differs from a good record's"
		}
	}
	within := n > 0 && v.end <= recEnd // the written bytes end inside the first bad record
	if !within {
		if v.end-v.pos > maxTornScan {
			return fmt.Sprintf("%d bytes after the last good record do not read as records", v.end-v.pos)
		}
		if v.laterRecord() {
			return fmt.Sprintf("a bad record with a good record after it (%d bytes up to the last data)", v.end-v.pos)
		}
	}
	incomplete := size-v.pos < recHeaderSize || recEnd > size
	if !incomplete && !zeroSector(v.data, v.pos, max(v.end, recEnd)) {
		return "checksum of a complete record with no unwritten sector (a synced record was damaged)"
	}
	return ""
}

// oneBitOff reports whether the complete record at pos, of payload
// length n, would check with one bit of its payload or its checksum
// flipped: a flip, not a torn write. CRC-32C tells every single-bit error
// apart, and its linearity lets one pass try them all: the checksums of
// two messages of one length differ by the checksum (with zero initial
// and final values) of their difference.
func (v tornView) oneBitOff(n int64) bool {
	var scratch [8]byte
	payload := v.data[v.pos+recHeaderSize : v.pos+recHeaderSize+n]
	syndrome := recordCRC(scratch[:], v.seq, payload) ^ binary.LittleEndian.Uint32(v.data[v.pos+4:])
	if bits.OnesCount32(syndrome) == 1 {
		return true // the stored checksum took the flip
	}
	// state[k] is the difference a flip of bit k in the byte m bytes
	// before the end makes; the payload's last byte first.
	var state [8]uint32
	for k := range state {
		state[k] = castagnoli[1<<k]
	}
	for range n {
		for k := range state {
			if state[k] == syndrome {
				return true
			}
			state[k] = castagnoli[byte(state[k])] ^ state[k]>>8
		}
	}
	return false
}

// lengthBitOff reports whether the record at pos would check with one
// bit of its length flipped.
func (v tornView) lengthBitOff() bool {
	var scratch [8]byte
	n := binary.LittleEndian.Uint32(v.data[v.pos:])
	want := binary.LittleEndian.Uint32(v.data[v.pos+4:])
	for b := range 32 {
		m := int64(n ^ 1<<b)
		if m < 1 || m > MaxRecord || v.pos+recHeaderSize+m > int64(len(v.data)) {
			continue
		}
		if recordCRC(scratch[:], v.seq, v.data[v.pos+recHeaderSize:v.pos+recHeaderSize+m]) == want {
			return true
		}
	}
	return false
}

// laterRecord reports whether a good record (sequence seq, seq+1 or
// seq+2) starts after pos among the written bytes: then the bytes at pos
// are damage, not a torn tail. A candidate's payload may run past the
// last written byte only by a sector's worth of zeros, which bounds the
// work on garbage.
func (v tornView) laterRecord() bool {
	var scratch [8]byte
	for p := v.pos + 1; p < v.end && p+recHeaderSize <= int64(len(v.data)); p++ {
		n := int64(binary.LittleEndian.Uint32(v.data[p:]))
		if n == 0 || p+recHeaderSize+n > min(int64(len(v.data)), v.end+sectorSize) {
			continue
		}
		want := binary.LittleEndian.Uint32(v.data[p+4:])
		body := v.data[p+recHeaderSize : p+recHeaderSize+n]
		for k := range uint64(3) {
			if recordCRC(scratch[:], v.seq+k, body) == want {
				return true
			}
		}
	}
	return false
}

// zeroSector reports whether some piece of data[from:to] that lies in
// one sector (sectors are aligned on the file's offsets) is all zeros:
// a sector the crash never wrote.
func zeroSector(data []byte, from, to int64) bool {
	for s := from; s < to; {
		e := min(to, (s/sectorSize+1)*sectorSize)
		if lastNonZero(data[s:e]) == 0 {
			return true
		}
		s = e
	}
	return false
}
