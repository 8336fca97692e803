package agent

import (
	"errors"

	"github.com/berthsched/berth"
)

// A rejected request costs the greedy-RLE allocator a whole pass over its
// window (a read of the plan's load, a profile built from it, a fit per
// breakpoint and a rescan after every breakpoint it passes), and in a
// saturated plan most requests are rejected. Yet the left-to-right greedy
// places a batch only on a stretch of the stage's duration where every step
// it meets has room for at least one gang: when the window holds no such
// stretch the stage cannot be placed, whatever the greedy would scan. The
// stretch test runs on the steps as read from the plan, before any profile
// is built, in one pass with a comparison per step (memory calculator) or
// one fit per step (others).

// errNoStretch reports that the window holds no stretch with room for one
// gang: the stage cannot be placed. It never leaves the package.
var errNoStretch = errors.New("agent: no stretch of the stage's duration has room for one gang")

// stretchNeed is what a first batch needs from the availability: a stretch
// of dur inside the window where every step has room for one gang.
type stretchNeed struct {
	f   fitter
	dur berth.Duration
	// memGang is the gang's memory as a float32 when fit under the memory
	// calculator reduces to a comparison (see room); 0 otherwise.
	memGang float32
}

// newStretchNeed returns the need of one gang of sj.
func newStretchNeed(sj stageJob) stretchNeed {
	n := stretchNeed{f: sj.f, dur: sj.dur}
	if _, ok := sj.f.calc.(berth.MemoryCalculator); ok && !sj.f.componentwise && sj.f.gang.Memory > 0 {
		n.memGang = float32(sj.f.gang.Memory)
	}
	return n
}

// room reports fit(free, 1) ≥ 1. Under the memory calculator fit is
// floor(float32(free) / float32(gang)) on memory; with a positive gang the
// quotient is at least 1 exactly when float32(free) ≥ float32(gang)
// (rounding is monotone, 1 is exact, and the float32 below any x is at most
// x·(1 − 2⁻²⁴), whose quotient rounds below 1).
func (n *stretchNeed) room(free berth.Resource) bool {
	if n.memGang > 0 {
		return float32(free.Memory) >= n.memGang
	}
	return n.f.fit(free, 1) >= 1
}

// stretchScan follows runs of consecutive steps with room, in time order,
// clipped to [start, deadline).
type stretchScan struct {
	need            *stretchNeed
	start, deadline berth.Time
	in              bool
	from            berth.Time
}

// see takes the step [s, e) with free available and reports whether a run
// long enough has been seen.
func (sc *stretchScan) see(s, e berth.Time, free berth.Resource) bool {
	s, e = max(s, sc.start), min(e, sc.deadline)
	if s >= e {
		return false
	}
	if !sc.need.room(free) {
		sc.in = false
		return false
	}
	if !sc.in {
		sc.in, sc.from = true, s
	}
	return fitsIn(sc.from, sc.need.dur, e)
}
