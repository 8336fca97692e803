//go:build linux

package preempt_test

import "syscall"

// capThreadCPU is the calling OS thread's CPU time (user + system, ns). On
// a shared, overloaded machine wall-clock ns/op mostly measures waiting
// for a core; thread CPU time does not (GC work on other threads is not
// counted).
func capThreadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
