//go:build linux

package agent_test

import (
	"syscall"
	"unsafe"
)

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

// threadClock is the calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)
// in ns: unlike threadCPU, whose figures advance by scheduler ticks, it is
// exact enough to time one decision of a few microseconds.
func threadClock() int64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}
