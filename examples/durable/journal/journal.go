package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/berthsched/berth"
)

// SyncMode is when the journal makes appended records durable (fsync).
type SyncMode uint8

// The sync modes.
const (
	// SyncAlways writes and fsyncs every record before Append returns:
	// an appended record survives a crash of the process or the machine.
	SyncAlways SyncMode = iota
	// SyncBatch buffers records and writes and fsyncs them when
	// Options.SyncEvery records are waiting or Options.SyncInterval of
	// host time passed since the last sync (checked on Append and Tick):
	// a crash loses at most what was not yet synced.
	SyncBatch
	// SyncNever buffers records and hands them to the operating system
	// when the buffer fills and on Flush, Sync and Close, and fsyncs only
	// on Sync, rotation, snapshots and Close.
	SyncNever
)

// Options configures a [Journal]. The zero value fsyncs every record and
// rotates segments at 64 MiB.
type Options struct {
	Sync         SyncMode
	SyncEvery    int            // SyncBatch: sync once this many records wait (0: no count trigger)
	SyncInterval berth.Duration // SyncBatch: sync once this much host time passed (0: no time trigger)
	// SegmentBytes is the size of a segment file (default 64 MiB, at
	// least 2 KiB: 1.5 KiB of header and marks, a sector of records),
	// allocated when the segment is created; a record that does not fit
	// starts the next one.
	SegmentBytes int64
	// BufferBytes is the write buffer of SyncBatch and SyncNever (default
	// 64 KiB); a larger pending write goes out at once.
	BufferBytes int
	// AcceptTruncation lets Open recover a journal that lost records it
	// had made durable (a segment cut short or deleted by something other
	// than a crash): it keeps the records up to the loss, reports it in
	// [Recovery].Lost, sets the damaged files aside and continues after
	// them. Without it Open refuses with a [*LossError]. Corruption (a
	// record that is there and damaged) is refused either way.
	AcceptTruncation bool
	// ReadOnly opens the journal without changing anything on disk: no
	// repair, no appends, no snapshots. It takes the directory's lock
	// shared, so it fails while a writer has the journal open.
	ReadOnly bool

	// FS is the file system the journal works on (nil: [OSFS]); tests
	// inject failures through it.
	FS FS
}

func (o *Options) fill() error {
	if o.Sync > SyncNever {
		return &berth.FieldError{Field: "Options.Sync", Value: strconv.Itoa(int(o.Sync)), Err: berth.ErrInvalidArgument}
	}
	if o.SyncEvery < 0 {
		return &berth.FieldError{Field: "Options.SyncEvery", Value: strconv.Itoa(o.SyncEvery), Err: berth.ErrInvalidArgument}
	}
	if o.SyncInterval < 0 {
		return &berth.FieldError{Field: "Options.SyncInterval", Value: strconv.FormatInt(o.SyncInterval, 10), Err: berth.ErrInvalidArgument}
	}
	if o.SegmentBytes < 0 {
		return &berth.FieldError{Field: "Options.SegmentBytes", Value: strconv.FormatInt(o.SegmentBytes, 10), Err: berth.ErrInvalidArgument}
	}
	if o.SegmentBytes == 0 {
		o.SegmentBytes = 64 << 20
	}
	if o.BufferBytes <= 0 {
		o.BufferBytes = 64 << 10
	}
	if o.FS == nil {
		o.FS = OSFS{}
	}
	return nil
}

// segInfo is one segment on disk.
type segInfo struct {
	first    uint64
	name     string // file name in the directory
	version  int
	capacity int64 // 0 for format 1
	good     int64 // end of its good records
}

// Journal is a file-backed log of records for one process: it appends
// records with sequence numbers 1, 2, …, makes them durable as its
// Options say, rotates segment files, keeps snapshots and drops the
// segments a snapshot made useless, and on Open recovers what a crash
// left: the records up to the last good one, with a torn last record cut
// off (its bytes kept beside the segment for inspection), and refuses
// what a crash cannot explain: corruption, and records it had made
// durable gone missing.
//
// One Journal at a time has a directory open: Open takes an exclusive
// lock on it. A Journal starts no goroutine and reads no clock: the host
// passes its time to Append and Tick for SyncBatch's interval. It is not
// safe for concurrent use; a host serialises its calls (as it serialises
// the commands it journals).
type Journal struct {
	dir     string
	opts    Options
	fs      FS
	dirLock File // the directory, open to hold its lock (nil: none)
	lock    File // the LOCK file, naming the holder (nil: none)

	segs     []segInfo // sorted by first; the last is the current one
	f        File      // the current segment, open for writing (nil: none yet, read-only or closed)
	capacity int64     // the current segment's capacity
	off      int64     // where the next record goes, buffered records included
	bufAt    int64     // where buf goes
	buf      []byte
	next     uint64 // sequence number of the next record
	written  uint64 // last record handed to the OS
	synced   uint64 // last record fsynced
	pending  int    // records not yet synced
	lastAt   berth.Time
	snap     uint64   // sequence number of the latest snapshot (0: none)
	snapOld  bool     // the snapshot may be unframed: an older build wrote it
	markB    bool     // the next synced mark goes to the second slot
	markBuf  [16]byte // room for appendMark
	man      manifest // as last written or read

	rec      Recovery
	failed   error // a write failed: the file's end is unknown until a reopening
	readOnly error // why the journal refuses writes (nil: it does not)
	closed   bool
}

// Next returns the sequence number the next appended record gets.
func (j *Journal) Next() uint64 { return j.next }

// Synced returns the sequence number of the last record known durable:
// a host acknowledges a command only once Synced reaches it.
func (j *Journal) Synced() uint64 { return j.synced }

// SnapshotSeq returns the sequence number of the latest snapshot (0 when
// there is none): replay starts after it.
func (j *Journal) SnapshotSeq() uint64 { return j.snap }

// Segments returns the number of segment files (for tests and metrics).
func (j *Journal) Segments() int { return len(j.segs) }

// Recovery returns what Open found and did.
func (j *Journal) Recovery() Recovery { return j.rec }

var errClosed = errors.New("journal: closed")

// usable is nil when the journal may write.
func (j *Journal) usable() error {
	switch {
	case j.closed:
		return errClosed
	case j.failed != nil:
		return fmt.Errorf("%w (%v)", ErrFailed, j.failed)
	case j.readOnly != nil:
		return fmt.Errorf("%w: %w", ErrReadOnly, j.readOnly)
	}
	return nil
}

// Append adds a record and returns its sequence number. now is the host's
// time, read only by SyncBatch's interval. With SyncAlways the record is
// durable when Append returns; otherwise see [Journal.Synced].
//
// An error wrapping [ErrSyncFailed] (a [*SyncError]) means a write or an
// fsync failed: the records it names, this one included, may or may not
// be on disk, and the Journal stops (see [ErrFailed]) until it is
// reopened. Any other error means this record was not appended: a full
// disk when a new segment is needed, for one, leaves the journal as it
// was, and a later Append may succeed.
func (j *Journal) Append(payload []byte, now berth.Time) (uint64, error) {
	if err := j.usable(); err != nil {
		return 0, err
	}
	if len(payload) == 0 || len(payload) > MaxRecord {
		return 0, &berth.FieldError{Field: "payload", Value: strconv.Itoa(len(payload)) + " bytes", Err: berth.ErrInvalidArgument}
	}
	need := int64(recHeaderSize + len(payload))
	if j.f == nil || j.off+need > j.capacity {
		if err := j.rotate(need); err != nil {
			return 0, err
		}
	}
	seq := j.next
	j.buf = AppendRecord(j.buf, seq, payload)
	j.next++
	j.off += need
	j.pending++
	switch j.opts.Sync {
	case SyncAlways:
		return seq, j.sync()
	case SyncBatch:
		if j.opts.SyncEvery > 0 && j.pending >= j.opts.SyncEvery ||
			j.opts.SyncInterval > 0 && now-j.lastAt >= j.opts.SyncInterval {
			j.lastAt = now
			return seq, j.sync()
		}
	}
	if len(j.buf) >= j.opts.BufferBytes {
		return seq, j.flush()
	}
	return seq, nil
}

// fail stops the journal after a failed write or fsync of the records
// not yet synced.
func (j *Journal) fail(op string, err error) error {
	se := &SyncError{Op: op, Segment: j.segs[len(j.segs)-1].name, First: j.synced + 1, Last: j.next - 1, Err: pathless(err)}
	j.failed = se
	return se
}

// Tick lets SyncBatch's interval fire without an append: the host calls
// it from its own timer with its time.
func (j *Journal) Tick(now berth.Time) error {
	if j.opts.Sync != SyncBatch || j.opts.SyncInterval <= 0 || j.pending == 0 || now-j.lastAt < j.opts.SyncInterval {
		return nil
	}
	if err := j.usable(); err != nil {
		return err
	}
	j.lastAt = now
	return j.sync()
}

// Flush hands the buffered records to the operating system (they survive
// a crash of the process, not of the machine).
func (j *Journal) Flush() error {
	if err := j.usable(); err != nil {
		return err
	}
	return j.flush()
}

func (j *Journal) flush() error {
	if len(j.buf) == 0 {
		return nil
	}
	if _, err := j.f.WriteAt(j.buf, j.bufAt); err != nil {
		return j.fail("write", err)
	}
	j.bufAt += int64(len(j.buf))
	j.buf = j.buf[:0]
	j.written = j.next - 1
	j.segs[len(j.segs)-1].good = j.bufAt
	return nil
}

// Sync flushes and fsyncs: every record appended so far is durable.
func (j *Journal) Sync() error {
	if err := j.usable(); err != nil {
		return err
	}
	return j.sync()
}

func (j *Journal) sync() error {
	if err := j.flush(); err != nil {
		return err
	}
	if j.synced == j.written {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return j.fail("fsync", err)
	}
	j.synced = j.written
	j.pending = 0
	j.mark()
	return nil
}

// mark notes in the current segment that every record up to Synced is
// durable, in the older of its two marks: the next fsync makes the note
// durable, and a crash before then leaves the older note, still true. A
// failed write of it costs only what it would prove: the next write of
// records meets the same disk.
func (j *Journal) mark() {
	s := j.segs[len(j.segs)-1]
	at := int64(markA)
	if j.markB {
		at = markB
	}
	j.markB = !j.markB
	j.f.WriteAt(appendMark(j.markBuf[:0], s.first, j.synced), at)
}

// manifestNow is the manifest of the journal as it stands once synced.
func (j *Journal) manifestNow() manifest {
	m := manifest{snapshot: j.snap, synced: j.synced, framed: !j.snapOld}
	if n := len(j.segs); n > 0 {
		m.segment = j.segs[n-1].first
	}
	return m
}

// rotate syncs and closes the current segment, if any, and starts the
// next one with room for a record of need bytes, then records it in the
// manifest. A failure to create the segment (a full disk) leaves the
// journal as it was; one to write the manifest leaves the new segment
// current and the manifest behind (a lower bound still), to be written
// at the next rotation, checkpoint or Close.
func (j *Journal) rotate(need int64) error {
	if j.f != nil {
		if err := j.sync(); err != nil {
			return err
		}
		j.f.Close() // its records are fsynced: a failing close loses nothing
		j.f = nil
	}
	if err := j.newSegment(max(j.opts.SegmentBytes, segDataStart+need)); err != nil {
		return err
	}
	return j.writeManifest(j.manifestNow())
}

func segName(first uint64) string { return fmt.Sprintf("seg-%020d.wal", first) }

// newSegment creates the segment starting at j.next at its full
// capacity, durably (file and directory entry synced), and makes it
// current.
func (j *Journal) newSegment(capacity int64) error {
	capacity = max(capacity, segDataStart+sectorSize)
	name := segName(j.next)
	path := filepath.Join(j.dir, name)
	tmp := path + ".tmp"
	f, err := j.fs.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o644)
	if err == nil {
		err = f.Allocate(capacity)
		if err == nil {
			_, err = f.WriteAt(appendSegmentHeader(nil, j.next, capacity), 0)
		}
		if err == nil {
			err = f.Sync()
		}
		if err == nil {
			err = j.fs.Rename(tmp, path)
		}
		if err == nil {
			err = j.fs.SyncDir(j.dir)
		}
		if err != nil {
			f.Close()
			j.fs.Remove(tmp)
		}
	}
	if err != nil {
		return fmt.Errorf("journal: creating segment %s in %s: %w", name, j.dir, pathless(err))
	}
	j.f, j.capacity, j.off, j.bufAt, j.markB = f, capacity, segDataStart, segDataStart, false
	j.segs = append(j.segs, segInfo{first: j.next, name: name, version: FormatVersion, capacity: capacity, good: segDataStart})
	return nil
}

// lastOf is the last record of segment i (the one before its first when
// it holds none).
func (j *Journal) lastOf(i int) uint64 {
	if i+1 < len(j.segs) {
		return j.segs[i+1].first - 1
	}
	return j.next - 1
}

// Replay calls fn with every record after the latest snapshot, in order
// (the payload is valid only during the call). Call it after Open and
// before appending. An error from fn stops it and is returned inside a
// [*RecordError] that names the segment and the record.
func (j *Journal) Replay(fn func(seq uint64, payload []byte) error) error {
	if j.f != nil && j.failed == nil {
		if err := j.flush(); err != nil {
			return err
		}
	}
	var buf []byte
	for i, s := range j.segs {
		if j.lastOf(i) <= j.snap || s.good <= int64(headerSize(byte(s.version))) {
			continue // wholly covered by the snapshot, or empty
		}
		var err error
		if buf, err = j.readGood(s, buf); err != nil {
			return err
		}
		_, err = parseSegment(buf, func(seq uint64, off int64, p []byte) error {
			if seq <= j.snap {
				return nil
			}
			if err := fn(seq, p); err != nil {
				return &RecordError{Segment: s.name, Seq: seq, Offset: off, Err: err}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// readGood reads the good part of segment s into buf.
func (j *Journal) readGood(s segInfo, buf []byte) ([]byte, error) {
	f, err := j.fs.OpenFile(filepath.Join(j.dir, s.name), os.O_RDONLY, 0)
	if err != nil {
		return buf, fmt.Errorf("journal: reading %s: %w", s.name, pathless(err))
	}
	defer f.Close()
	buf = grow(buf, s.good)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return buf, fmt.Errorf("journal: reading %s: %w", s.name, pathless(err))
	}
	return buf, nil
}

func grow(buf []byte, n int64) []byte {
	if int64(cap(buf)) < n {
		return make([]byte, n)
	}
	return buf[:n]
}

// OpenSnapshot opens the latest snapshot for reading; ok is false when
// there is none. The caller closes it. Reading it to its end checks the
// file: a damaged snapshot ends in an error wrapping
// [berth.ErrCorruptState] rather than io.EOF, so a host that stops
// reading where its own format ends reads on to io.EOF to learn it.
func (j *Journal) OpenSnapshot() (rc io.ReadCloser, seq uint64, ok bool, err error) {
	if j.snap == 0 {
		return nil, 0, false, nil
	}
	name := snapName(j.snap)
	f, err := j.fs.OpenFile(filepath.Join(j.dir, name), os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, false, fmt.Errorf("journal: opening snapshot %s in %s: %w", name, j.dir, pathless(err))
	}
	r, err := openSnapshotFile(f, name, j.snap, j.snapOld)
	if err != nil {
		f.Close()
		return nil, 0, false, err
	}
	return r, j.snap, true, nil
}

func snapName(seq uint64) string { return fmt.Sprintf("snap-%020d.snap", seq) }

// WriteSnapshot stores a snapshot of the state after record seq (the last
// appended one: seq must be Next()-1) written by write, then drops what it
// made useless: older snapshots and the segments holding only records up
// to seq. The snapshot is written to a temporary file, fsynced and renamed,
// so a crash leaves either the old snapshot or the new one, never half of
// one; its framing carries a checksum, so damage to it later reads as
// corruption. The journal continues in a new segment.
func (j *Journal) WriteSnapshot(seq uint64, write func(w io.Writer) error) error {
	if err := j.usable(); err != nil {
		return err
	}
	if seq != j.next-1 {
		return &berth.FieldError{Field: "seq", Value: strconv.FormatUint(seq, 10),
			Err: fmt.Errorf("%w: the last appended record is %d", berth.ErrInvalidArgument, j.next-1)}
	}
	if err := j.sync(); err != nil {
		return err
	}
	if err := j.replaceFile(snapName(seq), func(f File) error {
		sw, err := newSnapWriter(io.NewOffsetWriter(f, 0), seq)
		if err == nil {
			err = write(sw)
		}
		if err == nil {
			err = sw.finish()
		}
		return err
	}); err != nil {
		return err
	}
	old := j.snap
	j.snap, j.snapOld = seq, false
	// Continue in a fresh segment so that every older one is wholly
	// covered; the rotation records the snapshot in the manifest.
	var err error
	if j.off > segDataStart || j.f == nil {
		err = j.rotate(0)
	} else {
		err = j.writeManifest(j.manifestNow())
	}
	if err != nil {
		return fmt.Errorf("journal: snapshot %s written, older segments kept: %w", snapName(seq), err)
	}
	if old != 0 && old != seq {
		j.fs.Remove(filepath.Join(j.dir, snapName(old)))
	}
	// The segments follow each other, so those the snapshot covers are a
	// prefix; the list drops each one as its file goes, and stays true if
	// a removal fails. The last segment is the current one.
	for len(j.segs) > 1 && j.segs[1].first <= seq+1 {
		if err := j.fs.Remove(filepath.Join(j.dir, j.segs[0].name)); err != nil {
			return fmt.Errorf("journal: removing %s after snapshot %d: %w", j.segs[0].name, seq, pathless(err))
		}
		j.segs = j.segs[1:]
	}
	return j.fs.SyncDir(j.dir)
}

// Close syncs the journal, records in the manifest what it holds, and
// releases the directory. After a failed write it only releases the
// directory and returns nil: a reopening recovers.
func (j *Journal) Close() error {
	if j.closed {
		return nil
	}
	var err error
	if j.failed == nil && j.readOnly == nil {
		err = j.sync()
		if m := j.manifestNow(); err == nil && m != j.man {
			err = j.writeManifest(m)
		}
	}
	if j.f != nil {
		if cerr := j.f.Close(); err == nil && j.failed == nil {
			err = cerr
		}
		j.f = nil
	}
	j.closed = true
	j.unlock()
	return err
}
