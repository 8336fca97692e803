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
//
// When gang counts are exact (memory calculator, small enough values, see
// stretchNeed.exact) the same pass also bounds what all batches together
// can take: a batch of m gangs over [s, s+dur) lies inside a stretch of
// duration at least dur and, at every instant, the batches stacked there
// number at most the free gangs of that instant (and at most the stage's
// gangs). So the stage needs gangs × dur of "gang time" summed over the
// long stretches, each instant counting min(free gangs, gangs); with less
// it cannot be placed.

// errNoStretch reports that the window holds no stretch with room for one
// gang: the stage cannot be placed. It never leaves the package.
var errNoStretch = errors.New("agent: no stretch of the stage's duration has room for one gang")

// stretchNeed is what a first batch needs from the availability: a stretch
// of dur inside the window where every step has room for one gang.
type stretchNeed struct {
	fitter   fitter
	duration berth.Duration
	// memGang is the gang's memory as a float32 when fit under the memory
	// calculator reduces to a comparison (see room); 0 otherwise. gangMem
	// is the same as an integer, gangs how many gangs the stage places.
	memGang float32
	gangMem int64
	gangs   int64
}

// newStretchNeed returns the need of one gang of sj.
func newStretchNeed(sj stageJob) stretchNeed {
	n := stretchNeed{fitter: sj.fitter, duration: sj.duration, gangs: sj.gangs}
	if memoryOnly(sj.fitter) && sj.fitter.gang.Memory > 0 {
		n.memGang, n.gangMem = float32(sj.fitter.gang.Memory), sj.fitter.gang.Memory
	}
	return n
}

// exact reports whether, under the memory calculator, fit is the exact
// floor(free / gang) for every free memory up to capacity's, so that gang
// counts add up: then k gangs taken from free leave exactly fit(free) − k,
// and the batches a greedy stacks at one instant never number more than
// fit(free) there. It holds when capacity + gang < 2²⁴: both are exact
// float32 values, and with a = q·g + r, 0 < r < g, the quotient a/g lies
// 1/g below q+1 while rounding moves it by at most (q+1)·2⁻²⁴ < 1/g
// (as (q+1)·g ≤ a + g < 2²⁴), so it never rounds up to q+1.
func (n *stretchNeed) exact(capacity berth.Resource) bool {
	return n.gangMem > 0 && capacity.Memory >= 0 && capacity.Memory < 1<<24-n.gangMem
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
	return n.fitter.fit(free, 1) >= 1
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
	return fitsIn(sc.from, sc.need.duration, e)
}
