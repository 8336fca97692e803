//go:build !unix

package journal

import (
	"errors"
	"os"
)

// lockFile is not available on this platform: the journal runs without
// the directory lock, and a host must make sure itself that one process
// opens a directory.
func lockFile(*os.File, bool) error { return errors.ErrUnsupported }
