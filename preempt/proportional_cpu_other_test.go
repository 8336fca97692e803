//go:build !linux

package preempt_test

// capThreadCPU is not measured outside Linux.
func capThreadCPU() int64 { return 0 }
