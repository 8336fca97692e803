package agent

import (
	"math"

	"github.com/berthsched/berth"
)

// fitter counts how many gangs fit in an amount of available resources.
type fitter struct {
	calc    berth.Calculator
	cluster berth.Resource
	gang    berth.Resource
	// componentwise counts with every resource type (the exact answer);
	// otherwise the calculator's divide decides, as in YARN, so the memory
	// calculator ignores vcores.
	componentwise bool
}

// fit returns how many gangs fit in avail, at most limit.
func (f *fitter) fit(avail berth.Resource, limit int64) int64 {
	var n int64
	if _, mem := f.calc.(berth.MemoryCalculator); mem && !f.componentwise {
		// MemoryCalculator.Divide written in: the scans call this once per
		// breakpoint.
		return min(javaFloorToInt(memoryRatio(avail.Memory, f.gang.Memory)), limit)
	}
	if f.componentwise {
		n = math.MaxInt32
		if !avail.HasExtras() && !f.gang.HasExtras() {
			// Memory and vcores only: no need to list the types.
			if f.gang.Memory > 0 {
				n = min(n, floorDiv(avail.Memory, f.gang.Memory))
			}
			if f.gang.VCores > 0 {
				n = min(n, floorDiv(avail.VCores, f.gang.VCores))
			}
			return min(n, limit)
		}
		for _, name := range berth.TypeNames(avail, f.gang) {
			g := f.gang.Extra(name)
			if g <= 0 {
				continue
			}
			n = min(n, floorDiv(avail.Extra(name), g))
		}
	} else {
		n = javaFloorToInt(f.calc.Divide(f.cluster, avail, f.gang))
	}
	return min(n, limit)
}

// memoryRatio is MemoryCalculator's ratio: memory over memory in single
// precision, 0/0 being 0.
func memoryRatio(a, b int64) float32 {
	if a == 0 && b == 0 {
		return 0
	}
	return float32(a) / float32(b)
}

// javaFloorToInt is Java's (int) Math.floor(x) for a float x: NaN gives 0
// and out-of-range values saturate at the int32 limits.
func javaFloorToInt(x float32) int64 {
	d := math.Floor(float64(x))
	switch {
	case math.IsNaN(d):
		return 0
	case d >= math.MaxInt32:
		return math.MaxInt32
	case d <= math.MinInt32:
		return math.MinInt32
	}
	return int64(d)
}

// javaDoubleToLong is Java's (long) cast of a double.
func javaDoubleToLong(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// javaDoubleCompare is Java's Double.compare: -0.0 sorts before 0.0 and NaN
// after everything.
func javaDoubleCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := canonBits(a), canonBits(b)
	switch {
	case ab == bb:
		return 0
	case int64(ab) < int64(bb):
		return -1
	}
	return 1
}

func canonBits(x float64) uint64 {
	if math.IsNaN(x) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(x)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// stepRoundUp and stepRoundDown align t to the plan step with Java's
// truncating division, as YARN's planners do.
func stepRoundUp(t, step int64) int64 {
	if step <= 0 {
		return t
	}
	if t > math.MaxInt64-step {
		return math.MaxInt64 // no aligned time follows: nothing fits
	}
	return ((t + step - 1) / step) * step
}

func stepRoundDown(t, step int64) int64 {
	if step <= 0 {
		return t
	}
	return (t / step) * step
}
