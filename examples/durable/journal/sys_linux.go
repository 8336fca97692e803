package journal

import (
	"errors"
	"os"
	"syscall"
)

// allocate reserves size bytes for f with fallocate, so that a full disk
// shows when a segment is created rather than in the middle of a record;
// a file system without fallocate gets a sparse file of that size.
func allocate(f *os.File, size int64) error {
	err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
	if errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
		return f.Truncate(size)
	}
	return err
}
