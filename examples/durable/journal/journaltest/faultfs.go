package journaltest

import (
	"io/fs"
	"math/rand/v2"
	"os"
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

// CrashProcess closes every file the FS opened, as the kernel does when
// a process dies: what was written stays, locks are released. The
// journals that had them open must not be used again.
func (f *FaultFS) CrashProcess() { f.crash(nil) }

// CrashMachine is a power cut: every file loses what was written since
// its last successful fsync, except a random choice of the sectors of
// those writes (drawn from rng), then every file is closed as in
// CrashProcess.
func (f *FaultFS) CrashMachine(rng *rand.Rand) { f.crash(rng) }

func (f *FaultFS) crash(rng *rand.Rand) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ff := range f.files {
		if rng != nil {
			ff.tear(rng)
		}
		ff.File.Close()
	}
	f.files = nil
}

// MkdirAll creates dir as os.MkdirAll does.
func (f *FaultFS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// ReadDir lists dir.
func (f *FaultFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// Rename renames a file.
func (f *FaultFS) Rename(from, to string) error { return os.Rename(from, to) }

// Remove removes a file.
func (f *FaultFS) Remove(name string) error { return os.Remove(name) }

// SyncDir fsyncs dir, or fails as FailSync says.
func (f *FaultFS) SyncDir(dir string) error {
	f.mu.Lock()
	err, skip := f.syncErr, f.noDisk
	f.mu.Unlock()
	if err != nil || skip {
		return err
	}
	return journal.OSFS{}.SyncDir(dir)
}

// OpenFile opens a file; on a full disk, creating one succeeds (an inode
// is not space) but writing into it does not.
func (f *FaultFS) OpenFile(name string, flag int, perm fs.FileMode) (journal.File, error) {
	file, err := journal.OSFS{}.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
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

// undo is one write since the last fsync: where, and the bytes it
// replaced (zeros past the file's old end).
type undo struct {
	off     int64
	old     []byte
	oldSize int64
}

func (ff *faultFile) fail(op string, err error) error {
	return &fs.PathError{Op: op, Path: ff.name, Err: err}
}

// WriteAt writes p at off unless a fault stops it.
func (ff *faultFile) WriteAt(p []byte, off int64) (int, error) {
	ff.fs.mu.Lock()
	defer ff.fs.mu.Unlock()
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
	if ff.fs.full && size > ff.size {
		return ff.fail(name, syscall.ENOSPC)
	}
	if err := op(size); err != nil {
		return err
	}
	ff.size = after
	return nil
}

// Sync fsyncs (or only says so, as NoDiskSync asks), or fails as
// FailSync says. A successful fsync makes the writes before it survive a
// machine crash; a failed one leaves them to it.
func (ff *faultFile) Sync() error {
	ff.fs.mu.Lock()
	defer ff.fs.mu.Unlock()
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
