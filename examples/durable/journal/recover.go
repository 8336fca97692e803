package journal

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// Recovery is what [Open] found in the directory and did about it.
type Recovery struct {
	// Snapshot is the snapshot replay starts after (0: none), and
	// SnapshotFile its file name.
	Snapshot     uint64
	SnapshotFile string
	// First and Last are the records Replay gives (none when First >
	// Last); Last+1 is the next record's sequence number.
	First, Last uint64
	// Synced is the last record the journal recorded as durable, in its
	// manifest or the synced marks of its segments: Last reaches it
	// unless a loss was accepted (0: no record of it).
	Synced uint64
	// Segments names the segment files recovered, in order.
	Segments []string
	// TornBytes were cut off the end of the last segment (a write a
	// crash interrupted, never acknowledged) and kept in TornFile ("":
	// nothing was cut).
	TornBytes int64
	TornFile  string
	// Format is the oldest segment format read: 1 for a journal an older
	// build wrote, which is read as it is (new records go to format 2
	// segments).
	Format int
	// Lost is the loss Options.AcceptTruncation let through (nil: none).
	Lost *LossError
	// ReadOnly is why the journal refuses writes (nil: it does not):
	// Options.ReadOnly, or a repair recovery had to write and could not,
	// a full disk or a read-only file system. Replay and OpenSnapshot
	// work either way.
	ReadOnly error
}

const lockName = "LOCK"

var errOpenedReadOnly = errors.New("opened with Options.ReadOnly")

// Open opens (creating when needed) the journal in dir and recovers it:
// it takes the directory's lock, checks every segment against the
// manifest, cuts a torn tail off the last segment, and is ready to
// append after the last good record. Records are read back with
// [Journal.Replay], the latest snapshot with [Journal.OpenSnapshot], and
// [Journal.Recovery] reports what was found.
//
// Open refuses, and changes nothing:
//   - a directory another Journal has open, in this process or another,
//     with a [*LockedError];
//   - corruption (a damaged record or file that is there) with an error
//     wrapping [berth.ErrCorruptState]: a host must not append to a
//     journal whose acknowledged records it cannot read;
//   - a journal that lost records it had made durable (a segment cut
//     short or deleted, fewer records than the manifest says were
//     synced) with a [*LossError], unless Options.AcceptTruncation.
//
// When recovery has to write (cut a torn tail, start a segment) and
// cannot, because the disk is full or the file system read-only, Open
// still recovers, read-only, and Recovery().ReadOnly says why.
func Open(dir string, opts Options) (*Journal, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	j := &Journal{dir: dir, opts: opts, fs: opts.FS}
	if opts.ReadOnly {
		j.readOnly = errOpenedReadOnly
	} else if err := j.fs.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("journal: creating %s: %w", dir, pathless(err))
	}
	if err := j.takeLock(); err != nil {
		return nil, err
	}
	if err := j.recover(); err != nil {
		j.unlock()
		return nil, err
	}
	return j, nil
}

// takeLock locks the directory itself (flock on it), exclusively for a
// writer and shared for a reader, and writes the holder (process id and
// host) into its LOCK file for a refused opener to name. The lock is on
// the directory, not on the LOCK file: an operator who deletes a LOCK
// file as stale while its writer runs lets no second writer in. A writer
// also locks the LOCK file, as builds that locked only that file did.
func (j *Journal) takeLock() error {
	d, err := j.fs.OpenFile(j.dir, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("journal: opening %s to lock it: %w", j.dir, pathless(err))
	}
	if err := j.lockOne(d); err != nil {
		return err
	}
	j.dirLock = d
	path := filepath.Join(j.dir, lockName)
	flag := os.O_RDWR | os.O_CREATE
	if j.opts.ReadOnly {
		flag = os.O_RDONLY
	}
	f, err := j.fs.OpenFile(path, flag, 0o644)
	switch {
	case j.opts.ReadOnly && err != nil:
		return nil // a reader needs no note, and changes nothing
	case err != nil:
		j.unlock()
		return fmt.Errorf("journal: opening the LOCK file of %s: %w", j.dir, pathless(err))
	}
	if err := j.lockOne(f); err != nil {
		j.unlock()
		return err
	}
	j.lock = f
	if !j.opts.ReadOnly {
		// Best effort: the lock holds without the note, which a full
		// disk may refuse.
		host, _ := os.Hostname()
		if f.Truncate(0) == nil {
			f.WriteAt([]byte(fmt.Sprintf("pid %d host %s\n", os.Getpid(), host)), 0)
		}
	}
	return nil
}

// lockOne locks f as the journal needs (exclusive for a writer), or
// closes it and says who holds it.
func (j *Journal) lockOne(f File) error {
	switch err := f.Lock(!j.opts.ReadOnly); {
	case errors.Is(err, ErrLocked):
		f.Close()
		le := &LockedError{Dir: j.dir}
		if n, err := j.fs.OpenFile(filepath.Join(j.dir, lockName), os.O_RDONLY, 0); err == nil {
			le.PID, le.Host = readHolder(n)
			n.Close()
		}
		return le
	case err != nil && !errors.Is(err, errors.ErrUnsupported):
		f.Close()
		return fmt.Errorf("journal: locking %s: %w", j.dir, pathless(err))
	}
	return nil
}

// readHolder parses the holder a LOCK file names, if it does.
func readHolder(f File) (pid int, host string) {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	fields := strings.Fields(string(b[:n]))
	for i := 0; i+1 < len(fields); i += 2 {
		switch fields[i] {
		case "pid":
			pid, _ = strconv.Atoi(fields[i+1])
		case "host":
			host = fields[i+1]
		}
	}
	return pid, host
}

func (j *Journal) unlock() {
	if j.lock != nil {
		if !j.opts.ReadOnly {
			j.lock.Truncate(0) // the holder leaves
		}
		j.lock.Close()
		j.lock = nil
	}
	if j.dirLock != nil {
		j.dirLock.Close()
		j.dirLock = nil
	}
}

// found is one segment file as recovery read it.
type found struct {
	segInfo
	seg  Segment
	size int64
	err  error // from ReadSegment: nil, a torn tail, or damage
	// hdrVersion is the format byte of its header, when the file is long
	// enough to hold one (0: it is not): a header cut short by a crash
	// is format 1's, whose segments grew as they were written.
	hdrVersion byte
}

// dirScan is what the directory holds.
type dirScan struct {
	segs  []found  // sorted by first
	snaps []uint64 // sorted
	tmps  []string
}

func (j *Journal) scanDir() (dirScan, error) {
	var d dirScan
	entries, err := j.fs.ReadDir(j.dir)
	if err != nil {
		return d, fmt.Errorf("journal: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "seg-") && strings.HasSuffix(name, ".wal"):
			first, err := strconv.ParseUint(name[4:len(name)-4], 10, 64)
			if err != nil {
				return d, fmt.Errorf("journal: %w: segment name %q in %s", berth.ErrCorruptState, name, j.dir)
			}
			d.segs = append(d.segs, found{segInfo: segInfo{first: first, name: name}})
		case strings.HasPrefix(name, "snap-") && strings.HasSuffix(name, ".snap"):
			seq, err := strconv.ParseUint(name[5:len(name)-5], 10, 64)
			if err != nil {
				return d, fmt.Errorf("journal: %w: snapshot name %q in %s", berth.ErrCorruptState, name, j.dir)
			}
			d.snaps = append(d.snaps, seq)
		case strings.HasSuffix(name, ".tmp"):
			// A file a crash interrupted before its rename.
			d.tmps = append(d.tmps, name)
		}
	}
	slices.SortFunc(d.segs, func(a, b found) int { return cmp.Compare(a.first, b.first) })
	slices.Sort(d.snaps)
	return d, nil
}

// readSegmentFile reads and checks one segment file, in buf (grown as
// needed and returned for the next one).
func (j *Journal) readSegmentFile(s *found, buf []byte) ([]byte, error) {
	f, err := j.fs.OpenFile(filepath.Join(j.dir, s.name), os.O_RDONLY, 0)
	if err != nil {
		return buf, fmt.Errorf("journal: reading %s in %s: %w", s.name, j.dir, pathless(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return buf, fmt.Errorf("journal: reading %s in %s: %w", s.name, j.dir, pathless(err))
	}
	s.size = st.Size()
	buf = grow(buf, s.size)
	if _, err := f.ReadAt(buf, 0); err != nil {
		return buf, fmt.Errorf("journal: reading %s in %s: %w", s.name, j.dir, pathless(err))
	}
	s.seg, s.err = parseSegment(buf, nil)
	if len(buf) > 8 {
		s.hdrVersion = buf[8]
	}
	var re *RecordError
	if errors.As(s.err, &re) {
		re.Segment = s.name
	}
	s.version, s.capacity, s.good = s.seg.Version, s.seg.Capacity, s.seg.Good
	return buf, nil
}

// plan is what recovery decided: the segments kept (a chain of records
// after the snapshot), those past a loss, and the problems that prove
// one.
type plan struct {
	kept, orphans, covered []found
	last                   uint64 // the last record in order
	mark                   uint64 // the highest synced mark of the segments kept
	problems               []string
	// noManifest is a directory without a manifest that needs none: a
	// format 1 journal, or one whose first Open a crash interrupted.
	noManifest bool
}

func (j *Journal) recover() error {
	d, err := j.scanDir()
	if err != nil {
		return err
	}
	man, hasMan, err := j.readManifest()
	var problems []string
	if err != nil {
		if !j.opts.AcceptTruncation {
			return err
		}
		// A damaged manifest holds no record: go on as without one.
		problems = append(problems, err.Error())
		man, hasMan = manifest{}, false
	}
	if n := len(d.snaps); n > 0 {
		j.snap = d.snaps[n-1]
	}
	// A snapshot an older build wrote has no framing: one the manifest
	// does not vouch for as framed, or any without a manifest.
	j.snapOld = !hasMan || j.snap == man.snapshot && !man.framed
	p, err := j.plan(d, man, hasMan)
	if err != nil {
		return err
	}
	p.problems = append(problems, p.problems...)
	if len(p.problems) > 0 {
		le := &LossError{Last: p.last, Problems: p.problems}
		if synced := max(p.mark, man.synced); synced > p.last {
			le.Synced = synced
		}
		if !j.opts.AcceptTruncation {
			return le
		}
		j.rec.Lost = le
	}
	j.man = man
	j.next = p.last + 1
	j.written, j.synced = p.last, p.last
	for _, s := range p.kept {
		j.segs = append(j.segs, s.segInfo)
	}
	j.report(d, p, man)
	if j.readOnly == nil {
		if err := j.repair(d, p, hasMan); err != nil {
			j.readOnly = err
			if j.f != nil {
				j.f.Close()
				j.f = nil
			}
		}
	}
	j.rec.ReadOnly = j.readOnly
	return nil
}

// plan reads the segments and checks them against each other, the
// snapshot and the manifest.
func (j *Journal) plan(d dirScan, man manifest, hasMan bool) (plan, error) {
	p := plan{last: j.snap}
	if hasMan && man.snapshot > j.snap {
		p.problems = append(p.problems, fmt.Sprintf("%s is missing (the manifest names it)", snapName(man.snapshot)))
	}
	segs := d.segs
	// Segments wholly covered by the snapshot are leftovers of a
	// checkpoint a crash interrupted.
	for len(segs) > 1 && segs[1].first <= j.snap+1 {
		p.covered = append(p.covered, segs[0])
		segs = segs[1:]
	}
	// Without a manifest, the directory may be a format 1 journal (read
	// as the build that wrote it did), or one whose first Open (or first
	// Open after an older build) a crash interrupted: Open creates a
	// format 2 segment, then the manifest, before any append, so a
	// format 2 segment holding nothing is no sign of a lost manifest.
	v1, written2 := false, false
	var buf []byte
	for i := range segs {
		s := &segs[i]
		var err error
		if buf, err = j.readSegmentFile(s, buf); err != nil {
			return p, err
		}
		v1 = v1 || s.version == 1
		written2 = written2 || s.version != 1 && s.seg.Data > int64(headerSize(byte(s.version)))
		if stop, err := j.planSegment(&p, segs, i, hasMan); stop || err != nil {
			return p.finish(d, man, hasMan, v1, written2), err
		}
	}
	return p.finish(d, man, hasMan, v1, written2), nil
}

// planSegment checks segment i after those before it, keeping it or
// noting why it cannot be: stop is true when the chain of records ends
// there (the segments from it, or after it, are past a loss).
func (j *Journal) planSegment(p *plan, segs []found, i int, hasMan bool) (stop bool, err error) {
	s := &segs[i]
	last := i == len(segs)-1
	if s.seg.Version == 0 && errors.Is(s.err, ErrTornTail) {
		// The header is cut: a format 2 segment is created whole, so
		// only damage cuts it; a format 1 one may be a crash's.
		if !hasMan && last && s.hdrVersion <= 1 {
			p.covered = append(p.covered, *s) // removed, as format 1 did
			return true, nil
		}
		p.problems = append(p.problems, fmt.Sprintf("%s is cut inside its header (%d bytes)", s.name, s.size))
		p.orphans = segs[i:]
		return true, nil
	}
	if s.err != nil && !(last && errors.Is(s.err, ErrTornTail)) {
		if errors.Is(s.err, ErrTornTail) {
			return true, fmt.Errorf("journal: %w: a torn write in %s, which is not the last segment: %w", berth.ErrCorruptState, s.name, s.err)
		}
		return true, fmt.Errorf("journal: %w", s.err)
	}
	if s.seg.First != s.first {
		return true, fmt.Errorf("journal: %w: segment %s starts at record %d", berth.ErrCorruptState, s.name, s.seg.First)
	}
	switch {
	case s.first > p.last+1 && i == 0:
		p.problems = append(p.problems, fmt.Sprintf("records %d to %d are missing (%s is the first segment; the snapshot is at %d)",
			p.last+1, s.first-1, s.name, j.snap))
	case s.first > p.last+1:
		p.problems = append(p.problems, fmt.Sprintf("records %d to %d are missing (between %s and %s)",
			p.last+1, s.first-1, segs[i-1].name, s.name))
	case s.first < p.last+1 && i > 0:
		return true, fmt.Errorf("journal: %w: segment %s starts at record %d, inside %s", berth.ErrCorruptState, s.name, s.first, segs[i-1].name)
	}
	if s.first > p.last+1 {
		p.orphans = segs[i:]
		return true, nil
	}
	p.kept = append(p.kept, *s)
	// Records up to the snapshot are in it, wherever the segment ends.
	p.last = max(j.snap, s.first+s.seg.Count-1)
	p.mark = max(p.mark, s.seg.Mark)
	if s.capacity > 0 && s.size < s.capacity && s.size-s.seg.Data < recHeaderSize {
		p.problems = append(p.problems, fmt.Sprintf("%s is %d bytes, created with %d: cut after record %d",
			s.name, s.size, s.capacity, p.last))
		p.orphans = segs[i+1:]
		return true, nil
	}
	if s.seg.Mark > p.last {
		p.problems = append(p.problems, fmt.Sprintf("%s holds records up to %d, its mark says records up to %d were synced",
			s.name, p.last, s.seg.Mark))
		p.orphans = segs[i+1:]
		return true, nil
	}
	return false, nil
}

// finish checks the chain of records kept against the manifest (or its
// absence).
func (p plan) finish(d dirScan, man manifest, hasMan, v1, written2 bool) plan {
	p.noManifest = !hasMan && !written2 && (v1 || len(d.snaps) == 0)
	switch {
	case !hasMan && !p.noManifest:
		p.problems = append(p.problems, manifestName+" is missing")
	case hasMan && (len(d.segs) == 0 || d.segs[len(d.segs)-1].first < man.segment):
		p.problems = append(p.problems, fmt.Sprintf("%s is missing (the manifest names it as the newest segment)", segName(man.segment)))
	}
	if hasMan && man.synced > p.last {
		p.problems = append(p.problems, fmt.Sprintf("the manifest says records up to %d were synced", man.synced))
	}
	return p
}

// report fills the Recovery report.
func (j *Journal) report(d dirScan, p plan, man manifest) {
	r := &j.rec
	r.Snapshot, r.Last, r.Synced = j.snap, p.last, max(man.synced, p.mark)
	if j.snap > 0 {
		r.SnapshotFile = snapName(j.snap)
	}
	r.First = j.snap + 1
	r.Format = FormatVersion
	for _, s := range p.kept {
		r.Segments = append(r.Segments, s.name)
		r.Format = min(r.Format, s.version)
	}
	if n := len(p.kept); n > 0 {
		if s := p.kept[n-1]; s.seg.Data > s.seg.Good {
			r.TornBytes = s.seg.Data - s.seg.Good
			r.TornFile = fmt.Sprintf("%s.%d.torn", s.name, s.seg.Good)
		}
	}
}

// repair makes the directory what recovery decided: leftovers removed,
// the segments past an accepted loss set aside, a torn tail cut (its
// bytes kept), the current segment opened (or a new one started) and
// the manifest written when it must change. It stops at the first step
// that fails; the journal is then read-only.
func (j *Journal) repair(d dirScan, p plan, hasMan bool) error {
	remove := func(name string) error {
		if err := j.fs.Remove(filepath.Join(j.dir, name)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("journal: removing %s from %s: %w", name, j.dir, pathless(err))
		}
		return nil
	}
	for _, name := range d.tmps {
		if err := remove(name); err != nil {
			return err
		}
	}
	for _, s := range p.covered {
		if err := remove(s.name); err != nil {
			return err
		}
	}
	for _, seq := range d.snaps {
		if seq != j.snap {
			if err := remove(snapName(seq)); err != nil {
				return err
			}
		}
	}
	for _, s := range p.orphans {
		if err := j.fs.Rename(filepath.Join(j.dir, s.name), filepath.Join(j.dir, s.name+".lost")); err != nil {
			return fmt.Errorf("journal: setting %s aside after the accepted loss: %w", s.name, pathless(err))
		}
	}
	newSeg := false
	n := len(p.kept)
	switch {
	case n > 0 && p.kept[n-1].version == FormatVersion:
		if err := j.openTail(p.kept[n-1]); err != nil {
			return err
		}
	case n > 0 && p.kept[n-1].version == 2:
		// Cut and close it, and continue in a format 3 segment (the
		// first to carry marks).
		if err := j.openTail(p.kept[n-1]); err != nil {
			return err
		}
		j.f.Close()
		j.f = nil
	case n > 0: // format 1: cut its tail the old way
		if err := j.cutTail(p.kept[n-1], nil); err != nil {
			return err
		}
	}
	if j.f == nil {
		if err := j.newSegment(j.opts.SegmentBytes); err != nil {
			return err
		}
		newSeg = true
	}
	if err := j.fs.SyncDir(j.dir); err != nil {
		return fmt.Errorf("journal: %s: %w", j.dir, pathless(err))
	}
	if !hasMan || newSeg || j.rec.Lost != nil {
		return j.writeManifest(j.manifestNow())
	}
	return nil
}

// openTail cuts a torn tail off the last segment (format 2 or 3),
// restores its size if it was cut in its free space, fsyncs it (records a
// crashed process left in the page cache become durable before anything
// builds on them), brings its marks down to the records left after an
// accepted loss, and makes it current.
func (j *Journal) openTail(s found) error {
	f, err := j.fs.OpenFile(filepath.Join(j.dir, s.name), os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("journal: opening %s in %s: %w", s.name, j.dir, pathless(err))
	}
	err = j.cutTail(s, f)
	if err == nil && s.size < s.capacity {
		err = f.Allocate(s.capacity)
	}
	if err == nil {
		err = f.Sync()
	}
	if last := j.next - 1; err == nil && s.seg.Mark > last {
		// An accepted loss: the marks come down to what is left, durably
		// before anything is appended after it.
		for _, at := range []int64{markA, markB} {
			if _, err = f.WriteAt(appendMark(nil, s.first, last), at); err != nil {
				break
			}
		}
		if err == nil {
			err = f.Sync()
		}
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("journal: repairing %s in %s: %w", s.name, j.dir, pathless(err))
	}
	j.f, j.capacity, j.off, j.bufAt = f, s.capacity, s.seg.Good, s.seg.Good
	return nil
}

// cutTail keeps the bytes of segment s after its good records in
// <segment>.<offset>.torn, then clears them: a format 2 segment (f open)
// keeps its size and gets zeros, a format 1 one is truncated.
func (j *Journal) cutTail(s found, f File) error {
	good, end := s.seg.Good, s.seg.Data
	if end <= good {
		return nil
	}
	path := filepath.Join(j.dir, s.name)
	src, err := j.fs.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	tail := make([]byte, end-good)
	_, err = src.ReadAt(tail, good)
	src.Close()
	if err != nil {
		return err
	}
	torn := fmt.Sprintf("%s.%d.torn", s.name, good)
	if err := j.replaceFile(torn, func(t File) error {
		_, err := t.WriteAt(tail, 0)
		return err
	}); err != nil {
		return fmt.Errorf("journal: keeping the torn tail of %s (%d bytes): %w", s.name, len(tail), err)
	}
	if f != nil {
		clear(tail)
		_, err = f.WriteAt(tail, good)
		return err
	}
	t, err := j.fs.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.Truncate(good); err != nil {
		return err
	}
	return t.Sync()
}
