//go:build !unix

package preempt

import "time"

// processCPU is unavailable here; benchmarks then report 0.
func processCPU() time.Duration { return 0 }
