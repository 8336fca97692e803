//go:build !linux

package agent_test

// threadCPU is not measured off Linux.
func threadCPU() int64 { return 0 }

// threadClock is not measured off Linux.
func threadClock() int64 { return 0 }
