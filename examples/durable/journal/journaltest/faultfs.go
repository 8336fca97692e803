package journaltest

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/berthsched/berth/examples/durable/journal"
)

// FaultFS is a journal.FS over the operating system's that fails on
// demand. The zero value behaves as journal.OSFS. It is safe for
// concurrent use.
type FaultFS struct {
	mu       sync.Mutex
	full     bool
	syncErr  error
	writeErr error
	noDisk   bool
	files    map[*faultFile]struct{}
	stopped  string

	// Crash points: ops counts the changes made (see Ops); once it
	// reaches crashAt (when armed), the process is dead and every call
	// fails with ErrCrashed.
	ops     int
	crashAt int
	armed   bool
	dead    bool
	trace   []string // what each change was, for messages
	// dirOps are the directory changes since each directory's last
	// fsync, oldest first: a machine crash undoes some of the newest.
	dirOps []dirOp
}

// ErrCrashed is what every call of a FaultFS returns once the crash point
// set by CrashAfter is reached: the process is dead, and nothing it does
// reaches the disk.
var ErrCrashed = errors.New("journaltest: the process crashed here")

// dirOp is a directory change not yet made durable by an fsync of its
// directory, with what undoing it needs.
type dirOp struct {
	dir      string
	kind     string // "create", "rename" or "remove"
	from, to string // rename: from → to; create and remove: to
	old      []byte // the file at to that the rename replaced or the removal removed
	had      bool   // there was one
}

// SetFull makes the disk full (or no longer): allocating space,
// extending a file and writing into a new file fail with ENOSPC, while
// writes inside space a file already has succeed.
func (f *FaultFS) SetFull(full bool) { f.mu.Lock(); f.full = full; f.mu.Unlock() }

// FailSync makes every fsync, of a file or a directory, fail with err
// (nil: succeed again). The data written stays where a process crash
// keeps it; a machine crash loses it.
func (f *FaultFS) FailSync(err error) { f.mu.Lock(); f.syncErr = err; f.mu.Unlock() }

// FailWrite makes every write fail with err (nil: succeed again),
// writing nothing.
func (f *FaultFS) FailWrite(err error) { f.mu.Lock(); f.writeErr = err; f.mu.Unlock() }

// NoDiskSync makes fsync succeed at once without asking the disk, for
// tests that need not wait for it (a busy disk takes milliseconds a
// call). The crashes FaultFS simulates are unchanged: CrashMachine keeps
// what was fsynced; only a real power cut would not.
func (f *FaultFS) NoDiskSync(on bool) { f.mu.Lock(); f.noDisk = on; f.mu.Unlock() }

// Ops counts the changes made through the FS so far: writes, fsyncs
// (of files and directories), renames, removals, allocations,
// truncations and files created. A test runs an operation once to count
// its changes, then again with CrashAfter set to each count in turn.
func (f *FaultFS) Ops() int { f.mu.Lock(); defer f.mu.Unlock(); return f.ops }

// CrashAfter kills the process after n more changes: the next n succeed,
// and from the one after on every call of the FS (reads included) fails
// with ErrCrashed, changing nothing, until CrashProcess or CrashMachine
// settles what the crash left. n < 0 disarms it.
func (f *FaultFS) CrashAfter(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed, f.crashAt = n >= 0, f.ops+n
	f.dead = f.armed && n == 0
}

// Crashed reports whether the crash point was reached, and names the
// change it stopped (the first one not made).
func (f *FaultFS) Crashed() (bool, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.dead {
		return false, ""
	}
	return true, f.stopped
}

// Trace lists the changes made so far, one line each (for a message
// naming a crash point).
func (f *FaultFS) Trace() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.trace...)
}

// change counts one change, described by what, or refuses it when the
// process is dead or dies now. Called with the lock held.
func (f *FaultFS) change(what string) error {
	if f.dead {
		return ErrCrashed
	}
	if f.armed && f.ops >= f.crashAt {
		f.dead, f.stopped = true, what
		return ErrCrashed
	}
	f.ops++
	f.trace = append(f.trace, what)
	return nil
}

// alive refuses any call once the process is dead. Called with the lock
// held.
func (f *FaultFS) alive() error {
	if f.dead {
		return ErrCrashed
	}
	return nil
}

// aliveLocked is alive, taking the lock.
func (f *FaultFS) aliveLocked() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.alive()
}

// CrashProcess closes every file the FS opened, as the kernel does when
// a process dies: what was written stays, locks are released. The
// journals that had them open must not be used again. A crash point set
// by CrashAfter is cleared: the FS works again, for the next process.
func (f *FaultFS) CrashProcess() { f.crash(nil) }

// CrashMachine is a power cut: the directory changes made since their
// directory's last fsync persist in the order they were made up to a
// random point and the rest are undone (a file created is gone, a rename
// or a removal undone), and every file loses what was written since its
// last successful fsync, except a random choice of the sectors of those
// writes (drawn from rng); then every file is closed as in CrashProcess.
func (f *FaultFS) CrashMachine(rng *rand.Rand) { f.crash(rng) }

func (f *FaultFS) crash(rng *rand.Rand) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rng != nil {
		f.undoDirOps(rng)
	}
	for ff := range f.files {
		if rng != nil {
			ff.tear(rng)
		}
		ff.File.Close()
	}
	f.files, f.dirOps = nil, nil
	f.armed, f.dead, f.stopped = false, false, ""
}

// undoDirOps undoes the directory changes a power cut loses: those after
// a random point, newest first. Called with the lock held.
func (f *FaultFS) undoDirOps(rng *rand.Rand) {
	keep := rng.IntN(len(f.dirOps) + 1)
	for i := len(f.dirOps) - 1; i >= keep; i-- {
		op := f.dirOps[i]
		switch op.kind {
		case "create":
			os.Remove(op.to)
		case "rename":
			os.Rename(op.to, op.from)
			for ff := range f.files {
				if ff.name == op.to {
					ff.name = op.from
				}
			}
			if op.had {
				os.WriteFile(op.to, op.old, 0o644)
			}
		case "remove":
			if op.had {
				os.WriteFile(op.to, op.old, 0o644)
			}
		}
	}
}

// logDirOp records a directory change for a machine crash to undo.
// Called with the lock held.
func (f *FaultFS) logDirOp(op dirOp) {
	op.dir = filepath.Dir(op.to)
	f.dirOps = append(f.dirOps, op)
}

// MkdirAll creates dir as os.MkdirAll does (the directory is taken as
// durable at once).
func (f *FaultFS) MkdirAll(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.alive(); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// ReadDir lists dir.
func (f *FaultFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.alive(); err != nil {
		return nil, err
	}
	return os.ReadDir(dir)
}

// Rename renames a file; the rename is durable once the directory is
// fsynced.
func (f *FaultFS) Rename(from, to string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.change(fmt.Sprintf("rename %s to %s", filepath.Base(from), filepath.Base(to))); err != nil {
		return err
	}
	old, rerr := os.ReadFile(to)
	if err := os.Rename(from, to); err != nil {
		return err
	}
	f.logDirOp(dirOp{kind: "rename", from: from, to: to, old: old, had: rerr == nil})
	for ff := range f.files {
		if ff.name == from {
			ff.name = to
		}
	}
	return nil
}

// Remove removes a file; the removal is durable once the directory is
// fsynced.
func (f *FaultFS) Remove(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.change("remove " + filepath.Base(name)); err != nil {
		return err
	}
	old, rerr := os.ReadFile(name)
	if err := os.Remove(name); err != nil {
		return err
	}
	f.logDirOp(dirOp{kind: "remove", to: name, old: old, had: rerr == nil})
	return nil
}

// SyncDir fsyncs dir, or fails as FailSync says; once it succeeds, the
// directory's changes survive a machine crash.
func (f *FaultFS) SyncDir(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.change("fsync directory"); err != nil {
		return err
	}
	if f.syncErr != nil {
		return f.syncErr
	}
	if !f.noDisk {
		if err := (journal.OSFS{}).SyncDir(dir); err != nil {
			return err
		}
	}
	kept := f.dirOps[:0]
	for _, op := range f.dirOps {
		if op.dir != filepath.Clean(dir) {
			kept = append(kept, op)
		}
	}
	f.dirOps = kept
	return nil
}

// OpenFile opens a file; on a full disk, creating one succeeds (an inode
// is not space) but writing into it does not. A file created is durable
// once its directory is fsynced.
func (f *FaultFS) OpenFile(name string, flag int, perm fs.FileMode) (journal.File, error) {
	f.mu.Lock()
	err := f.alive()
	created := false
	if err == nil && flag&os.O_CREATE != 0 {
		if _, serr := os.Lstat(name); os.IsNotExist(serr) {
			created = true
			err = f.change("create " + filepath.Base(name))
		}
	}
	if err == nil && flag&os.O_TRUNC != 0 && !created {
		err = f.change("truncate " + filepath.Base(name) + " on open")
	}
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	file, err := journal.OSFS{}.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	if created {
		f.mu.Lock()
		f.logDirOp(dirOp{kind: "create", to: name})
		f.mu.Unlock()
	}
	st, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, err
	}
	ff := &faultFile{File: file, fs: f, name: name, size: st.Size()}
	f.mu.Lock()
	if f.files == nil {
		f.files = map[*faultFile]struct{}{}
	}
	f.files[ff] = struct{}{}
	f.mu.Unlock()
	return ff, nil
}

// faultFile is a file of a FaultFS: it checks each write against the
// faults set and keeps what each unsynced write replaced, for a machine
// crash to restore.
type faultFile struct {
	journal.File
	fs     *FaultFS
	name   string
	size   int64 // the space the file holds
	undo   []undo
	closed bool
}

// undo is one change since the last fsync: a write (where, and the
// bytes it replaced: zeros past the file's old end), or a change of the
// file's size (the bytes a shrinking one cut, from off).
type undo struct {
	off     int64
	old     []byte
	oldSize int64
	resize  bool
}

func (ff *faultFile) fail(op string, err error) error {
	return &fs.PathError{Op: op, Path: ff.name, Err: err}
}

// WriteAt writes p at off unless a fault stops it.
func (ff *faultFile) WriteAt(p []byte, off int64) (int, error) {
	ff.fs.mu.Lock()
	defer ff.fs.mu.Unlock()
	if err := ff.fs.change(fmt.Sprintf("write %d bytes at %d of %s", len(p), off, filepath.Base(ff.name))); err != nil {
		return 0, err
	}
	if ff.fs.writeErr != nil {
		return 0, ff.fail("write", ff.fs.writeErr)
	}
	end := off + int64(len(p))
	if ff.fs.full && end > ff.size {
		return 0, ff.fail("write", syscall.ENOSPC)
	}
	st, err := ff.File.Stat()
	if err != nil {
		return 0, err
	}
	u := undo{off: off, old: make([]byte, len(p)), oldSize: st.Size()}
	if off < st.Size() {
		ff.File.ReadAt(u.old[:min(int64(len(p)), st.Size()-off)], off)
	}
	n, err := ff.File.WriteAt(p, off)
	if n > 0 {
		u.old = u.old[:n]
		ff.undo = append(ff.undo, u)
		ff.size = max(ff.size, off+int64(n))
	}
	return n, err
}

// Allocate reserves space unless the disk is full.
func (ff *faultFile) Allocate(size int64) error {
	return ff.resize("fallocate", size, ff.File.Allocate, max(ff.size, size))
}

// Truncate changes the size; growing it needs space.
func (ff *faultFile) Truncate(size int64) error {
	return ff.resize("truncate", size, ff.File.Truncate, size)
}

// resize runs op to give the file size bytes, unless the disk is full
// and that needs more space than the file holds; the file then holds
// after.
func (ff *faultFile) resize(name string, size int64, op func(int64) error, after int64) error {
	ff.fs.mu.Lock()
	defer ff.fs.mu.Unlock()
	if err := ff.fs.change(fmt.Sprintf("%s %s to %d bytes", name, filepath.Base(ff.name), size)); err != nil {
		return err
	}
	if ff.fs.full && size > ff.size {
		return ff.fail(name, syscall.ENOSPC)
	}
	st, err := ff.File.Stat()
	if err != nil {
		return err
	}
	u := undo{off: min(size, st.Size()), oldSize: st.Size(), resize: true}
	if size < st.Size() {
		u.old = make([]byte, st.Size()-size)
		ff.File.ReadAt(u.old, size)
	}
	if err := op(size); err != nil {
		return err
	}
	ff.undo = append(ff.undo, u)
	ff.size = after
	return nil
}

// ReadAt reads, unless the process is dead.
func (ff *faultFile) ReadAt(p []byte, off int64) (int, error) {
	if err := ff.fs.aliveLocked(); err != nil {
		return 0, err
	}
	return ff.File.ReadAt(p, off)
}

// Read reads, unless the process is dead.
func (ff *faultFile) Read(p []byte) (int, error) {
	if err := ff.fs.aliveLocked(); err != nil {
		return 0, err
	}
	return ff.File.Read(p)
}

// Lock locks, unless the process is dead.
func (ff *faultFile) Lock(exclusive bool) error {
	if err := ff.fs.aliveLocked(); err != nil {
		return err
	}
	return ff.File.Lock(exclusive)
}

// Sync fsyncs (or only says so, as NoDiskSync asks), or fails as
// FailSync says. A successful fsync makes the writes before it survive a
// machine crash; a failed one leaves them to it.
func (ff *faultFile) Sync() error {
	ff.fs.mu.Lock()
	defer ff.fs.mu.Unlock()
	if err := ff.fs.change("fsync " + filepath.Base(ff.name)); err != nil {
		return err
	}
	if ff.fs.syncErr != nil {
		return ff.fail("sync", ff.fs.syncErr)
	}
	if !ff.fs.noDisk {
		if err := ff.File.Sync(); err != nil {
			return err
		}
	}
	ff.undo = nil
	return nil
}

// Close closes the file; its unsynced writes stay at the mercy of a
// machine crash.
func (ff *faultFile) Close() error {
	ff.fs.mu.Lock()
	defer ff.fs.mu.Unlock()
	if ff.closed {
		return os.ErrClosed
	}
	ff.closed = true
	if len(ff.undo) == 0 {
		delete(ff.fs.files, ff)
	}
	return ff.File.Close()
}

// tear undoes what a power cut loses: the unsynced writes persist in
// the order they were made (as a file's pages are written back) up to a
// random point, the write at that point keeps a random prefix of its
// sectors, and the rest are lost. Called with the FS's lock held.
func (ff *faultFile) tear(rng *rand.Rand) {
	if len(ff.undo) == 0 {
		return
	}
	keep := rng.IntN(len(ff.undo) + 1) // writes that persist whole
	if keep == len(ff.undo) {
		return
	}
	w, err := os.OpenFile(ff.name, os.O_WRONLY, 0)
	if err != nil {
		return // the file was renamed or removed: its name is gone anyway
	}
	defer w.Close()
	// Undo newest first, so that each sector ends as the last write that
	// persisted left it.
	for i := len(ff.undo) - 1; i >= keep; i-- {
		u := ff.undo[i]
		if u.resize {
			w.Truncate(u.oldSize)
			if len(u.old) > 0 {
				w.WriteAt(u.old, u.off)
			}
			continue
		}
		from := u.off
		if i == keep { // torn: a prefix of its sectors made it
			end := u.off + int64(len(u.old))
			first := u.off/sectorSize*sectorSize + sectorSize
			var cuts []int64
			for s := first; s < end; s += sectorSize {
				cuts = append(cuts, s)
			}
			from = end
			if len(cuts) > 0 {
				from = cuts[rng.IntN(len(cuts))]
			}
			if rng.IntN(4) == 0 {
				from = u.off // or none of it
			}
		}
		w.WriteAt(u.old[from-u.off:], from)
		if u.oldSize < u.off+int64(len(u.old)) && from <= u.oldSize {
			w.Truncate(u.oldSize) // the write grew the file and its growth is lost
		}
	}
	w.Sync()
	ff.undo = nil
}

// sectorSize is the unit a disk writes atomically.
const sectorSize = 512
