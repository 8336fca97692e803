package agent

import "github.com/berthsched/berth"

// stageJob is what the allocators need to know about one stage.
type stageJob struct {
	fitter            fitter
	container         berth.Resource // one container
	concurrency       int64          // containers per gang
	gangs             int64          // gangs to place
	duration          int64          // duration rounded up to the step
	requestedDuration int64          // duration as requested
	step              int64
}

// batch returns the resource of n gangs.
func (j stageJob) batch(n int64) berth.Resource { return j.container.MulInt(j.concurrency * n) }

// maxBatches bounds the rounds of one stage's search. A stage needing more
// (billions of containers in a tiny plan over years) is not placed: YARN
// would build an allocation of as many blocks and run out of memory.
const maxBatches = 1 << 16

// scanOptions select between YARN's answers and the exact ones.
type scanOptions struct {
	// seeBatches makes every batch see the batches placed before it. YARN
	// computes the availability once per stage, so a later batch can
	// overlap an earlier one and over-book; Berth always sets it.
	seeBatches bool
	// exact: ties keep the nearest constraining point, and the right-to-left
	// scan ignores the segment that ends where the candidate window
	// starts. Off by default, as YARN.
	exact bool
}

// greedyRLE is YARN's StageAllocatorGreedyRLE on the net availability of
// the stage window [start, deadline): batch after batch, place as many gangs
// as fit everywhere in the leftmost (or rightmost) candidate window, then
// move past the most constraining breakpoint. net is consumed.
func greedyRLE(net *profile, j stageJob, start, deadline berth.Time, left bool, o scanOptions) ([]placement, bool) {
	if !fitsIn(start, j.requestedDuration, deadline) {
		return nil, false
	}
	g := greedyScan{net: net, job: j, options: o, gangs: j.gangs}
	for rounds := 1; g.gangs > 0 && fitsIn(start, j.duration, deadline); rounds++ {
		if rounds > maxBatches {
			return nil, false
		}
		if left {
			take, next := g.leftmostBatch(start)
			g.place(start, take)
			start = next
		} else {
			take, next := g.rightmostBatch(start, deadline)
			g.place(deadline-j.duration, take)
			deadline = next
		}
	}
	return g.out, g.gangs == 0
}

// greedyScan is one stage's greedyRLE: the net availability it consumes,
// the gangs still to place and the batches placed.
type greedyScan struct {
	net     *profile
	job     stageJob
	options scanOptions
	gangs   int64
	out     []placement
}

// better tells whether fit gangs is a tighter bound than best, the bound
// so far (set once a point constrained it).
func (g *greedyScan) better(fit, best int64, set bool) bool {
	if g.options.exact {
		return fit < best || !set
	}
	return fit <= best
}

// leftmostBatch finds how many gangs fit everywhere in the candidate
// window [start, start+dur) and where the next window starts: past the
// most constraining breakpoint, or after this window.
func (g *greedyScan) leftmostBatch(start berth.Time) (take int64, next berth.Time) {
	net, j := g.net, g.job
	take, set := g.gangs, false
	constraining := -1
	for i := max(net.floor(start), 0); i < len(net.ts) && take > 0; i++ {
		t := max(net.ts[i], start)
		if !fitsIn(t, 1, start+j.duration) {
			break
		}
		if fit := j.fitter.fit(net.rs[i], g.gangs); g.better(fit, take, set) {
			take, constraining, set = fit, i, true
		}
	}
	next = start + j.duration
	if set {
		k := net.end
		if constraining+1 < len(net.ts) {
			k = net.ts[constraining+1]
		}
		next = min(k, start+j.duration)
	}
	return take, next
}

// rightmostBatch finds how many gangs fit everywhere in the candidate
// window [deadline-dur, deadline) of the stage window starting at start,
// and where the next candidate ends: at the breakpoint before the most
// constraining one, or where this candidate starts.
func (g *greedyScan) rightmostBatch(start, deadline berth.Time) (take int64, next berth.Time) {
	net, j := g.net, g.job
	take, set := g.gangs, false
	var constraining berth.Time
	first := max(net.floor(start), 0)
	// Entries of YARN's descending view: the terminator when the window
	// still ends at the profile's end, then the breakpoints down to the
	// one in force at start. Each is examined with the value just before
	// the previous entry (YARN's lagging cursor).
	previous := deadline
	visit := func(e berth.Time) bool {
		t := previous
		previous = e
		k := net.floor(t - 1)
		if k < first {
			return true
		}
		if t < deadline-j.duration || (g.options.exact && t <= deadline-j.duration) {
			return false
		}
		if fit := j.fitter.fit(net.rs[k], g.gangs); g.better(fit, take, set) {
			take, constraining, set = fit, t, true
		}
		return take > 0
	}
	more := true
	if deadline >= net.end {
		more = visit(net.end)
	}
	for i := net.floor(deadline); more && i >= first; i-- {
		more = visit(net.ts[i])
	}
	next = deadline - j.duration
	if set {
		if k := net.floor(constraining - 1); k >= first {
			next = max(net.ts[k], deadline-j.duration)
		}
	}
	return take, next
}

// place books take gangs in [start, start+dur), if any; the next batches
// see them when the options say so.
func (g *greedyScan) place(start berth.Time, take int64) {
	if take <= 0 {
		return
	}
	r := g.job.batch(take)
	g.out = append(g.out, placement{iv: berth.Interval{Start: start, End: start + g.job.duration}, r: r})
	g.gangs -= take
	if g.options.seeBatches {
		g.net.sub(start, start+g.job.duration, r)
	}
}

// gridScan is the right-to-left step scan shared by YARN's step greedy
// (StageAllocatorGreedy) and the 2.x agent (LegacyGreedy): over the candidate
// window [deadline − dur, deadline) it visits t = deadline − step,
// deadline − 2·step, … and remembers the fewest gangs that fit and where
// (ties moving left). It walks the profile's segments instead of every
// step, with the same result.
func gridScan(net *profile, j stageJob, deadline berth.Time, gangs int64, exact bool) (maxGang int64, minPoint berth.Time) {
	maxGang, minPoint = gangs, deadline
	set := false
	lowest := deadline - j.duration
	for k := int64(1); maxGang > 0; {
		t := deadline - k*j.step
		if t < lowest {
			break
		}
		i := net.floor(t)
		if i < 0 {
			break
		}
		kBot := (deadline - max(net.ts[i], lowest)) / j.step
		fit := j.fitter.fit(net.rs[i], gangs)
		switch {
		case exact && set && fit >= maxGang:
		case fit <= maxGang:
			maxGang, set = fit, true
			if fit > 0 && !exact {
				minPoint = deadline - kBot*j.step
			} else {
				minPoint = t
			}
		}
		k = kBot + 1
	}
	return maxGang, minPoint
}

// greedySteps is YARN's StageAllocatorGreedy: right to left, batch by batch,
// each window ending at the most constraining point of the previous one.
func greedySteps(net *profile, j stageJob, start, deadline berth.Time, o scanOptions) ([]placement, bool) {
	gangs := j.gangs
	var out []placement
	for rounds := 1; gangs > 0 && fitsIn(start, j.duration, deadline); rounds++ {
		if rounds > maxBatches {
			return out, false
		}
		maxGang, minPoint := gridScan(net, j, deadline, gangs, o.exact)
		if maxGang > 0 {
			r := j.batch(maxGang)
			out = append(out, placement{iv: berth.Interval{Start: deadline - j.duration, End: deadline}, r: r})
			gangs -= maxGang
			if o.seeBatches {
				net.sub(deadline-j.duration, deadline, r)
			}
		}
		if minPoint >= deadline {
			// zero-length candidate windows cannot move; stop instead of
			// spinning (YARN only gets here with zero durations).
			break
		}
		deadline = minPoint
	}
	return out, gangs == 0
}

// fitsIn reports start + d ≤ end without overflowing.
func fitsIn(start berth.Time, d berth.Duration, end berth.Time) bool {
	return d >= 0 && start <= end && uint64(end-start) >= uint64(d)
}
