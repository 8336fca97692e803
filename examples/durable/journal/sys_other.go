//go:build !linux

package journal

import "os"

// allocate gives f a size of size bytes (a sparse file: the space is
// not reserved on this platform).
func allocate(f *os.File, size int64) error { return f.Truncate(size) }
