//go:build !unix

package engine

import "time"

// cpuTime is not measured here: benchmarks report wall time only.
func cpuTime() time.Duration { return 0 }
