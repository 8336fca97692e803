//go:build !linux

package plan

// threadCPU is not measured off Linux.
func threadCPU() int64 { return 0 }
