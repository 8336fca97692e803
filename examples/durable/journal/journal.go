package journal

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	// SegmentBytes rotates to a new segment once the current one reaches
	// this size (default 64 MiB).
	SegmentBytes int64
	// BufferBytes is the write buffer of SyncBatch and SyncNever (default
	// 64 KiB); a larger pending write goes out at once.
	BufferBytes int
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
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = 64 << 20
	}
	if o.BufferBytes <= 0 {
		o.BufferBytes = 64 << 10
	}
	return nil
}

// segInfo is one segment on disk.
type segInfo struct {
	first uint64
	count uint64
	path  string
}

// Journal is a file-backed log of records for one process: it appends
// records with sequence numbers 1, 2, …, makes them durable as its
// Options say, rotates segment files, keeps snapshots and drops the
// segments a snapshot made useless, and on Open recovers what a crash
// left: the records up to the last good one, with a torn last record cut
// off (its bytes kept beside the segment as <segment>.torn for
// inspection) and corruption anywhere else refused.
//
// A Journal starts no goroutine and reads no clock: the host passes its
// time to Append and Tick for SyncBatch's interval. It is not safe for
// concurrent use; a host serialises its calls (as it serialises the
// commands it journals).
type Journal struct {
	dir  string
	opts Options

	segs    []segInfo // sorted by first; the last is open for append
	f       *os.File
	size    int64 // bytes in the current segment, buffered ones included
	buf     []byte
	next    uint64 // sequence number of the next record
	written uint64 // last record handed to the OS
	synced  uint64 // last record fsynced
	pending int    // records not yet synced
	lastAt  berth.Time
	snap    uint64 // sequence number of the latest snapshot (0: none)
	err     error  // sticky: after a failed write the file's end is unknown
}

// Open opens (creating when needed) the journal in dir and recovers it:
// every segment is checked, a torn tail of the last segment is cut off,
// and the journal is ready to append after the last good record. Records
// are read back with [Journal.Replay], the latest snapshot with
// [Journal.OpenSnapshot]. Corruption (a bad record before the end, a
// missing segment, a segment that does not follow its predecessor) is an
// error wrapping [berth.ErrCorruptState]: a host must not append to a
// journal whose acknowledged records it cannot read.
func Open(dir string, opts Options) (*Journal, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	j := &Journal{dir: dir, opts: opts}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "seg-") && strings.HasSuffix(name, ".wal"):
			first, err := strconv.ParseUint(name[4:len(name)-4], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("journal: %w: segment name %q", berth.ErrCorruptState, name)
			}
			j.segs = append(j.segs, segInfo{first: first, path: filepath.Join(dir, name)})
		case strings.HasPrefix(name, "snap-") && strings.HasSuffix(name, ".snap"):
			seq, err := strconv.ParseUint(name[5:len(name)-5], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("journal: %w: snapshot name %q", berth.ErrCorruptState, name)
			}
			j.snap = max(j.snap, seq)
		case strings.HasSuffix(name, ".tmp"):
			// A snapshot or segment a crash interrupted before its rename.
			os.Remove(filepath.Join(dir, name))
		}
	}
	slices.SortFunc(j.segs, func(a, b segInfo) int { return cmp.Compare(a.first, b.first) })
	if err := j.check(); err != nil {
		return nil, err
	}
	if err := j.openTail(); err != nil {
		return nil, err
	}
	return j, nil
}

// check reads every segment, cuts a torn tail of the last one, and checks
// that the segments follow each other and reach back to the snapshot.
func (j *Journal) check() error {
	for i := range j.segs {
		s := &j.segs[i]
		last := i == len(j.segs)-1
		seg, err := readFile(s.path, nil)
		if err != nil && !(last && errors.Is(err, ErrTornTail)) {
			return fmt.Errorf("journal: %w", err)
		}
		if err != nil {
			if seg.Good < segHeaderSize {
				// The segment's header itself is torn: nothing in it.
				if err := os.Remove(s.path); err != nil {
					return err
				}
				j.segs = j.segs[:i]
				break
			}
			if err := cutTail(s.path, seg.Good); err != nil {
				return err
			}
		}
		if seg.First != s.first {
			return fmt.Errorf("journal: %w: segment %s starts at record %d", berth.ErrCorruptState, filepath.Base(s.path), seg.First)
		}
		s.count = seg.Count
		if i > 0 {
			p := j.segs[i-1]
			if p.first+p.count != s.first {
				return fmt.Errorf("journal: %w: records %d to %d are missing (between %s and %s)",
					berth.ErrCorruptState, p.first+p.count, s.first-1, filepath.Base(p.path), filepath.Base(s.path))
			}
		}
	}
	if len(j.segs) > 0 && j.segs[0].first > j.snap+1 {
		return fmt.Errorf("journal: %w: records %d to %d are missing (the snapshot is at %d)",
			berth.ErrCorruptState, j.snap+1, j.segs[0].first-1, j.snap)
	}
	j.next = j.snap + 1
	if n := len(j.segs); n > 0 {
		j.next = max(j.next, j.segs[n-1].first+j.segs[n-1].count)
	}
	j.written, j.synced = j.next-1, j.next-1
	return nil
}

func readFile(path string, fn func(uint64, []byte) error) (Segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return Segment{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Segment{}, err
	}
	seg, err := ReadSegment(bufio.NewReaderSize(f, 256<<10), st.Size(), fn)
	var re *RecordError
	if errors.As(err, &re) {
		re.Segment = filepath.Base(path)
	}
	return seg, err
}

// cutTail keeps the bytes past good in path+".torn" and truncates the
// segment to good bytes.
func cutTail(path string, good int64) error {
	if err := saveTail(path, good); err != nil {
		return err
	}
	if err := os.Truncate(path, good); err != nil {
		return err
	}
	return syncPath(path)
}

// saveTail writes the bytes of path past good to path+".torn", reading
// only those (a segment can be large, its torn tail is not).
func saveTail(path string, good int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if good >= st.Size() {
		return nil
	}
	tail := make([]byte, st.Size()-good)
	if _, err := f.ReadAt(tail, good); err != nil {
		return err
	}
	return os.WriteFile(path+".torn", tail, 0o644)
}

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// openTail opens the last segment for append, or starts one.
func (j *Journal) openTail() error {
	if n := len(j.segs); n == 0 || j.segs[n-1].first+j.segs[n-1].count != j.next {
		return j.newSegment()
	}
	s := j.segs[len(j.segs)-1]
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	j.f, j.size = f, st.Size()
	return nil
}

// newSegment creates the segment starting at j.next, durably (file and
// directory entry synced), and makes it current.
func (j *Journal) newSegment() error {
	path := filepath.Join(j.dir, fmt.Sprintf("seg-%020d.wal", j.next))
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	h := appendSegmentHeader(nil, j.next)
	if _, err := f.Write(h); err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncPath(j.dir)
	}
	if err != nil {
		f.Close()
		return err
	}
	j.f, j.size = f, int64(len(h))
	j.segs = append(j.segs, segInfo{first: j.next, path: path})
	return nil
}

// Next returns the sequence number the next appended record gets.
func (j *Journal) Next() uint64 { return j.next }

// Synced returns the sequence number of the last record known durable:
// a host acknowledges a command only once Synced reaches it.
func (j *Journal) Synced() uint64 { return j.synced }

// SnapshotSeq returns the sequence number of the latest snapshot (0 when
// there is none): replay starts after it.
func (j *Journal) SnapshotSeq() uint64 { return j.snap }

// Append adds a record and returns its sequence number. now is the host's
// time, read only by SyncBatch's interval. With SyncAlways the record is
// durable when Append returns; otherwise see [Journal.Synced]. After a
// failed write the journal refuses further appends (the file's end is no
// longer known); the host reopens it, which recovers.
func (j *Journal) Append(payload []byte, now berth.Time) (uint64, error) {
	if j.err != nil {
		return 0, j.err
	}
	if j.f == nil {
		return 0, errClosed
	}
	if len(payload) == 0 || len(payload) > MaxRecord {
		return 0, &berth.FieldError{Field: "payload", Value: strconv.Itoa(len(payload)) + " bytes", Err: berth.ErrInvalidArgument}
	}
	if j.size >= j.opts.SegmentBytes {
		if err := j.rotate(); err != nil {
			return 0, j.fail(err)
		}
	}
	seq := j.next
	j.buf = AppendRecord(j.buf, seq, payload)
	j.next++
	j.size += int64(recHeaderSize + len(payload))
	j.pending++
	switch j.opts.Sync {
	case SyncAlways:
		return seq, j.Sync()
	case SyncBatch:
		if j.opts.SyncEvery > 0 && j.pending >= j.opts.SyncEvery ||
			j.opts.SyncInterval > 0 && now-j.lastAt >= j.opts.SyncInterval {
			return seq, j.syncAt(now)
		}
	}
	if len(j.buf) >= j.opts.BufferBytes {
		return seq, j.Flush()
	}
	return seq, nil
}

var errClosed = errors.New("journal: closed")

func (j *Journal) fail(err error) error {
	if j.err == nil {
		j.err = fmt.Errorf("journal: write failed, reopen to recover: %w", err)
	}
	return j.err
}

// Tick lets SyncBatch's interval fire without an append: the host calls
// it from its own timer with its time.
func (j *Journal) Tick(now berth.Time) error {
	if j.err != nil {
		return j.err
	}
	if j.opts.Sync == SyncBatch && j.opts.SyncInterval > 0 && j.pending > 0 && now-j.lastAt >= j.opts.SyncInterval {
		return j.syncAt(now)
	}
	return nil
}

func (j *Journal) syncAt(now berth.Time) error {
	j.lastAt = now
	return j.Sync()
}

// Flush hands the buffered records to the operating system (they survive
// a crash of the process, not of the machine).
func (j *Journal) Flush() error {
	if j.err != nil {
		return j.err
	}
	if len(j.buf) == 0 {
		return nil
	}
	if j.f == nil {
		return errClosed
	}
	if _, err := j.f.Write(j.buf); err != nil {
		return j.fail(err)
	}
	j.buf = j.buf[:0]
	j.written = j.next - 1
	return nil
}

// Sync flushes and fsyncs: every record appended so far is durable.
func (j *Journal) Sync() error {
	if err := j.Flush(); err != nil {
		return err
	}
	if j.synced == j.written {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return j.fail(err)
	}
	j.synced = j.written
	j.pending = 0
	return nil
}

func (j *Journal) rotate() error {
	if err := j.Sync(); err != nil {
		return err
	}
	j.segs[len(j.segs)-1].count = j.next - j.segs[len(j.segs)-1].first
	if err := j.f.Close(); err != nil {
		return err
	}
	j.f = nil
	return j.newSegment()
}

// Replay calls fn with every record after the latest snapshot, in order
// (the payload is valid only during the call). Call it after Open and
// before appending. An error from fn stops it and is returned.
func (j *Journal) Replay(fn func(seq uint64, payload []byte) error) error {
	if err := j.Flush(); err != nil {
		return err
	}
	for _, s := range j.segs {
		if s.count == 0 || s.first+s.count-1 <= j.snap {
			continue // wholly covered by the snapshot
		}
		_, err := readFile(s.path, func(seq uint64, p []byte) error {
			if seq <= j.snap {
				return nil
			}
			return fn(seq, p)
		})
		if err != nil && !errors.Is(err, ErrTornTail) {
			return err
		}
	}
	return nil
}

// OpenSnapshot opens the latest snapshot for reading; ok is false when
// there is none. The caller closes it.
func (j *Journal) OpenSnapshot() (rc io.ReadCloser, seq uint64, ok bool, err error) {
	if j.snap == 0 {
		return nil, 0, false, nil
	}
	f, err := os.Open(j.snapPath(j.snap))
	if err != nil {
		return nil, 0, false, err
	}
	return f, j.snap, true, nil
}

func (j *Journal) snapPath(seq uint64) string {
	return filepath.Join(j.dir, fmt.Sprintf("snap-%020d.snap", seq))
}

// WriteSnapshot stores a snapshot of the state after record seq (the last
// appended one: seq must be Next()-1) written by write, then drops what it
// made useless: older snapshots and the segments holding only records up
// to seq. The snapshot is written to a temporary file, fsynced and renamed,
// so a crash leaves either the old snapshot or the new one, never half of
// one. The journal continues in a new segment.
func (j *Journal) WriteSnapshot(seq uint64, write func(w io.Writer) error) error {
	if j.err != nil {
		return j.err
	}
	if seq != j.next-1 {
		return &berth.FieldError{Field: "seq", Value: strconv.FormatUint(seq, 10),
			Err: fmt.Errorf("%w: the last appended record is %d", berth.ErrInvalidArgument, j.next-1)}
	}
	if err := j.Sync(); err != nil {
		return err
	}
	path := j.snapPath(seq)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncPath(j.dir)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: snapshot %d: %w", seq, err)
	}
	old := j.snap
	j.snap = seq
	if old != 0 && old != seq {
		os.Remove(j.snapPath(old))
	}
	// Continue in a fresh segment so every older one is wholly covered.
	if j.size > segHeaderSize {
		if err := j.rotate(); err != nil {
			return j.fail(err)
		}
	}
	// The segments follow each other, so those the snapshot covers are a
	// prefix; the list drops each one as its file goes, and stays true if
	// a removal fails. The last segment is the current one.
	for len(j.segs) > 1 && j.segs[0].first+j.segs[0].count-1 <= seq {
		if err := os.Remove(j.segs[0].path); err != nil {
			return err
		}
		j.segs = j.segs[1:]
	}
	return syncPath(j.dir)
}

// Segments returns the number of segment files (for tests and metrics).
func (j *Journal) Segments() int { return len(j.segs) }

// Close syncs and closes the journal.
func (j *Journal) Close() error {
	if j.f == nil {
		return nil
	}
	err := j.Sync()
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.f = nil
	return err
}
