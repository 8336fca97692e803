package journal

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// FS is the file system a Journal works on: the few calls recovery and
// appends make. [OSFS] is the operating system's; a test passes one that
// fails (a full disk, a failing fsync) in [Options].FS, as package
// journaltest does.
type FS interface {
	MkdirAll(dir string) error
	ReadDir(dir string) ([]fs.DirEntry, error)
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	Rename(from, to string) error
	Remove(name string) error
	// SyncDir makes the directory's entries (files created, renamed,
	// removed) durable.
	SyncDir(dir string) error
}

// File is an open file of an [FS].
type File interface {
	io.Reader
	io.ReaderAt
	io.WriterAt
	Stat() (fs.FileInfo, error)
	Sync() error
	Truncate(size int64) error
	// Allocate extends the file to size bytes, reserving the disk space
	// where the file system can, so that writes inside it cannot run out
	// of space.
	Allocate(size int64) error
	// Lock takes an advisory lock on the file without waiting, shared or
	// exclusive, that conflicts with the locks of every other open of
	// the file, in this process or another, and goes when the file is
	// closed. It returns an error wrapping [ErrLocked] when a
	// conflicting lock is held, and errors.ErrUnsupported where the
	// platform has no such lock.
	Lock(exclusive bool) error
	Close() error
}

// OSFS is the operating system's file system. Allocate uses fallocate
// on Linux (a sparse file elsewhere, or where the file system lacks it);
// Lock is flock on Unix.
type OSFS struct{}

// MkdirAll creates dir and its parents.
func (OSFS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// ReadDir lists dir.
func (OSFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }

// Rename renames a file.
func (OSFS) Rename(from, to string) error { return os.Rename(from, to) }

// Remove removes a file.
func (OSFS) Remove(name string) error { return os.Remove(name) }

// OpenFile opens a file as os.OpenFile does.
func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// SyncDir fsyncs the directory.
func (OSFS) SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

type osFile struct{ *os.File }

func (f osFile) Allocate(size int64) error { return allocate(f.File, size) }
func (f osFile) Lock(exclusive bool) error { return lockFile(f.File, exclusive) }

// pathless strips the file name an *fs.PathError carries, for errors that
// name the file themselves (a temporary file the journal renames or
// removes must not be named in a message the host reads later).
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
