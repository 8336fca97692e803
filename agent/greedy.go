package agent

import "github.com/berthsched/berth"

// stageJob is what the allocators need to know about one stage.
type stageJob struct {
	f      fitter
	cap    berth.Resource // one container
	conc   int64          // containers per gang
	gangs  int64          // gangs to place
	dur    int64          // duration rounded up to the step
	rawDur int64          // duration as requested
	step   int64
}

// batch returns the resource of n gangs.
func (j stageJob) batch(n int64) berth.Resource { return j.cap.MulInt(j.conc * n) }

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
	if !fitsIn(start, j.rawDur, deadline) {
		return nil, false
	}
	gangs := j.gangs
	var out []placement
	better := func(fit, maxGang int64, set bool) bool {
		if o.exact {
			return fit < maxGang || !set
		}
		return fit <= maxGang
	}
	rounds := 0
	if left {
		for gangs > 0 && fitsIn(start, j.dur, deadline) {
			if rounds++; rounds > maxBatches {
				return nil, false
			}
			maxGang, set := gangs, false
			var minPoint berth.Time
			minIdx := -1
			i0 := max(net.floor(start), 0)
			for i := i0; i < len(net.ts) && maxGang > 0; i++ {
				t := max(net.ts[i], start)
				if !fitsIn(t, 1, start+j.dur) {
					break
				}
				fit := j.f.fit(net.rs[i], gangs)
				if better(fit, maxGang, set) {
					maxGang, minPoint, minIdx, set = fit, t, i, true
				}
			}
			_ = minPoint
			next := start + j.dur
			if set {
				k := net.end
				if minIdx+1 < len(net.ts) {
					k = net.ts[minIdx+1]
				}
				next = min(k, start+j.dur)
			}
			if maxGang > 0 {
				r := j.batch(maxGang)
				out = append(out, placement{iv: berth.Interval{Start: start, End: start + j.dur}, r: r})
				gangs -= maxGang
				if o.seeBatches {
					net.sub(start, start+j.dur, r)
				}
			}
			start = next
		}
		return out, gangs == 0
	}
	for gangs > 0 && fitsIn(start, j.dur, deadline) {
		if rounds++; rounds > maxBatches {
			return nil, false
		}
		maxGang, set := gangs, false
		var minPoint berth.Time
		i0 := max(net.floor(start), 0)
		i1 := net.floor(deadline)
		// Entries of YARN's descending view: the terminator when the window
		// still ends at the profile's end, then the breakpoints down to the
		// one in force at start. Each is examined with the value just before
		// the previous entry (YARN's lagging cursor).
		oldT := deadline
		visit := func(e berth.Time) bool {
			t := oldT
			oldT = e
			k := net.floor(t - 1)
			if k < i0 {
				return true
			}
			if t < deadline-j.dur || (o.exact && t <= deadline-j.dur) {
				return false
			}
			fit := j.f.fit(net.rs[k], gangs)
			if better(fit, maxGang, set) {
				maxGang, minPoint, set = fit, t, true
			}
			return maxGang > 0
		}
		cont := true
		if deadline >= net.end {
			cont = visit(net.end)
		}
		for i := i1; cont && i >= i0; i-- {
			cont = visit(net.ts[i])
		}
		next := deadline - j.dur
		if set {
			if k := net.floor(minPoint - 1); k >= i0 {
				next = max(net.ts[k], deadline-j.dur)
			}
		}
		if maxGang > 0 {
			r := j.batch(maxGang)
			out = append(out, placement{iv: berth.Interval{Start: deadline - j.dur, End: deadline}, r: r})
			gangs -= maxGang
			if o.seeBatches {
				net.sub(deadline-j.dur, deadline, r)
			}
		}
		deadline = next
	}
	return out, gangs == 0
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
	lowest := deadline - j.dur
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
		fit := j.f.fit(net.rs[i], gangs)
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
	for rounds := 1; gangs > 0 && fitsIn(start, j.dur, deadline); rounds++ {
		if rounds > maxBatches {
			return out, false
		}
		maxGang, minPoint := gridScan(net, j, deadline, gangs, o.exact)
		if maxGang > 0 {
			r := j.batch(maxGang)
			out = append(out, placement{iv: berth.Interval{Start: deadline - j.dur, End: deadline}, r: r})
			gangs -= maxGang
			if o.seeBatches {
				net.sub(deadline-j.dur, deadline, r)
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
