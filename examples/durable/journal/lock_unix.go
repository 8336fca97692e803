//go:build unix

package journal

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes a flock on f: it belongs to the open file, so a second
// open of the lock file conflicts whether it is in another process or in
// this one, and the kernel releases it when the process dies.
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}
