//go:build !linux

package preempt

import "time"

// threadCPU is not measured outside Linux; benchmarks then report 0.
func threadCPU() time.Duration { return 0 }
