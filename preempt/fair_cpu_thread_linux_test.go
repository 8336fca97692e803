//go:build linux

package preempt

import (
	"syscall"
	"time"
)

// threadCPU is the calling OS thread's user + system CPU time (the
// benchmark locks its goroutine to the thread): the round's own work,
// without what other threads of the process do meanwhile.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
