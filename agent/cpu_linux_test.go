//go:build linux

package agent_test

import "syscall"

// threadCPU returns the CPU time (user + system, ns) of the calling OS
// thread. On a shared, overloaded machine wall-clock ns/op mostly measures
// waiting for a core; thread CPU time does not (nor the garbage collector's
// work on other threads).
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
