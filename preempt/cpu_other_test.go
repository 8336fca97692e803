//go:build !linux

package preempt_test

// threadCPU is not measured outside Linux.
func threadCPU() int64 { return 0 }
