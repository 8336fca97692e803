package agent

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
)

// maxCandidates bounds the aligned candidate windows of one stage (a
// window of a year cut into minutes has half a million); beyond it the
// stage is not placed by this allocator.
const maxCandidates = 1 << 20

// lowCostInput is what the low-cost aligned allocator reads.
type lowCostInput struct {
	// loads is the plan's committed load as YARN's planner reads it
	// (yarnPlanLoads); outside its domain it counts as 0.
	loads *profile
	// mods is what earlier stages of this job took (read only: the
	// allocator's own batches fill whole candidate windows, so it adds
	// them to a window's values as it reads them).
	mods *profile
	// net is the stage window's availability, without mods.
	net      *profile
	capacity berth.Resource
	calc     berth.Calculator
	smooth   int64
	left     bool
	// scratch holds buffers recycled across runs (nil: allocate).
	scratch *lowCostScratch
	// recount makes every gang count read the profiles, never derived
	// from the count before a batch (see countsDown); for tests.
	recount bool
}

// countsDown reports whether f counts gangs so that taking n gangs out of
// an amount leaves exactly n fewer that fit (below the cap of
// math.MaxInt32): componentwise over memory and vcores (a gang of extended
// types has none), where each count is floor(amount / gang) and
// floor((a − n·g) / g) = floor(a / g) − n. The minimum over the pieces of
// a window then drops by n too, as every piece loses the same batch.
func countsDown(f fitter) bool {
	return f.componentwise && !f.gang.HasExtras() && (f.gang.Memory > 0 || f.gang.VCores > 0)
}

// lowCostScratch is the low-cost allocator's working storage, kept in a
// planning run's recycled state: the candidate windows, the rounds placed,
// and the sweep's per-window costs and gang counts. Nothing returned
// shares it.
type lowCostScratch struct {
	items  []durationInterval
	placed []placement
	costs  []float64
	fits   []int64
	// runs holds the canonical form of the answer, which the caller
	// copies out (job.exported) before the next run.
	runs []placement
}

// small reports whether the scratch is small enough to keep.
func (s *lowCostScratch) small() bool {
	return cap(s.items) <= maxKept && cap(s.placed) <= maxKept && cap(s.costs) <= maxKept && cap(s.fits) <= maxKept &&
		cap(s.runs) <= maxKept
}

// sized returns buf resized to n (its contents to be set), reusing its
// storage when large enough.
func sized[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// durationInterval is one aligned candidate window with its cost and how
// many gangs fit in it.
type durationInterval struct {
	start, end berth.Time
	cost       float64
	canFit     int64
	// taken is how many gangs this run placed in the window so far.
	taken int64
}

type diHeap struct {
	items []durationInterval
	left  bool
}

func (h *diHeap) Len() int { return len(h.items) }
func (h *diHeap) Less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if c := javaDoubleCompare(a.cost, b.cost); c != 0 {
		return c < 0
	}
	if h.left {
		return a.end < b.end
	}
	return a.end > b.end
}
func (h *diHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }

// The heap operations are container/heap's, step for step (so ties pop in
// the same order), on the typed slice: no interface boxing per push and
// pop, the allocator's hottest loop.

func (h *diHeap) init() {
	n := len(h.items)
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

func (h *diHeap) push(x durationInterval) {
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

func (h *diHeap) pop() durationInterval {
	n := len(h.items) - 1
	h.Swap(0, n)
	h.down(0, n)
	x := h.items[n]
	h.items = h.items[:n]
	return x
}

func (h *diHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		j = i
	}
}

func (h *diHeap) down(i, n int) {
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && h.Less(j2, j1) {
			j = j2
		}
		if !h.Less(j, i) {
			break
		}
		h.Swap(i, j)
		i = j
	}
}

// pieces calls f for the canonical pieces of the sum of the profiles in
// [s, e): maximal runs of equal value, in time order. A profile contributes
// zero outside its domain.
func pieces(s, e berth.Time, sign int64, a, b *profile, f func(s, e berth.Time, v berth.Resource)) {
	if s >= e {
		return
	}
	if zeroOver(b, s, e) {
		// b adds nothing here (this job's tentative load, often none in
		// the window): read a alone. Same pieces, as a ± 0 = a.
		b = nil
	}
	ca, cb := newCursor(a, s), newCursor(b, s)
	cur := s
	var runStart berth.Time
	var runVal berth.Resource
	open := false
	for cur < e {
		v, next := ca.valueAt(cur)
		next = min(next, e)
		if cb.p != nil {
			// b is zero where it is undefined: a ± 0 = a otherwise.
			vb, nb := cb.valueAt(cur)
			if sign < 0 {
				v = v.Sub(vb)
			} else {
				v = v.Add(vb)
			}
			next = min(next, nb)
		}
		if open && sameResource(v, runVal) {
			cur = next
			continue
		}
		if open {
			f(runStart, cur, runVal)
		}
		runStart, runVal, open = cur, v, true
		cur = next
	}
	if open {
		f(runStart, e, runVal)
	}
}

// sameResource is x.Equal(y), without a call when neither holds extended
// types (the allocators' inner loops compare resources once per piece).
func sameResource(x, y berth.Resource) bool {
	if x.Memory != y.Memory || x.VCores != y.VCores {
		return false
	}
	return !x.HasExtras() && !y.HasExtras() || equalExtras(x, y)
}

// equalExtras is x.Equal(y), out of line so that sameResource inlines.
func equalExtras(x, y berth.Resource) bool { return x.Equal(y) }

// zeroOver reports whether p is zero (or undefined) throughout [s, e).
func zeroOver(p *profile, s, e berth.Time) bool {
	if p == nil || p.empty() || s >= p.end {
		return true
	}
	for i := max(p.floor(s), 0); i < len(p.ts) && p.ts[i] < e; i++ {
		if !p.rs[i].IsZero() {
			return false
		}
	}
	return true
}

// cursor reads a profile at non-decreasing times, one binary search to
// start and a walk after that.
type cursor struct {
	p *profile
	i int // the last breakpoint ≤ the time last read, or -1
}

func newCursor(p *profile, t berth.Time) cursor {
	if p == nil || p.empty() {
		return cursor{}
	}
	return cursor{p: p, i: p.floor(t)}
}

// valueAt returns the value at t (zero outside the domain) and the next
// time it may change; t must not decrease between calls.
func (c *cursor) valueAt(t berth.Time) (berth.Resource, berth.Time) {
	p := c.p
	if p == nil || t >= p.end {
		return berth.Resource{}, berth.MaxTime
	}
	i, ts := c.i, p.ts
	for i+1 < len(ts) && ts[i+1] <= t {
		i++
	}
	c.i = i
	if i < 0 {
		return berth.Resource{}, ts[0]
	}
	if i+1 < len(ts) {
		return p.rs[i], ts[i+1]
	}
	return p.rs[i], p.end
}

// cost is YARN's getDurationIntervalTotalCost: the sum over the window of
// the load share (plan load plus this job's tentative load, relative to
// capacity) per step, accumulated piece by piece in time order as YARN does
// (the float sums must round alike for ties to break alike). taken is what
// this run placed all over [s, e) (a constant added to every piece leaves
// the pieces as they are).
func (in *lowCostInput) cost(s, e, step berth.Time, taken berth.Resource) float64 {
	total := 0.0
	mem := in.memoryRatio()
	pieces(s, e, 1, in.loads, in.mods, func(ps, pe berth.Time, v berth.Resource) {
		c := in.ratio(mem, v.Add(taken))
		total = total + c*float64(pe-ps)/float64(step)
	})
	return total
}

// memoryRatio reports whether the calculator is the memory calculator,
// whose Ratio the cost loops compute inline.
func (in *lowCostInput) memoryRatio() bool {
	_, ok := in.calc.(berth.MemoryCalculator)
	return ok
}

// ratio is in.calc.Ratio(v, in.capacity) as a float64; mem says the
// calculator is the memory calculator (see memoryRatio).
func (in *lowCostInput) ratio(mem bool, v berth.Resource) float64 {
	if mem {
		return float64(memoryRatio(v.Memory, in.capacity.Memory))
	}
	return float64(in.calc.Ratio(v, in.capacity))
}

// canFit is YARN's getDurationIntervalGangsCanFit: the fewest gangs that fit
// anywhere in [s, e) once this job's tentative load is taken away. Where the
// job's load exceeds what is available in some resource type YARN throws
// and abandons the whole allocator; Berth counts that window
// as full instead. taken is what this run placed all over [s, e), as for
// cost.
func (in *lowCostInput) canFit(s, e berth.Time, f fitter, taken berth.Resource) int64 {
	n := int64(math.MaxInt32)
	pieces(s, e, -1, in.net, in.mods, func(ps, pe berth.Time, v berth.Resource) {
		v = v.Sub(taken)
		if v.AnyNegative() {
			n = 0
			return
		}
		if !in.net.holds(ps) {
			n = 0
			return
		}
		n = min(n, f.fit(v, math.MaxInt32))
	})
	return n
}

// sweep returns cost and canFit of the n consecutive windows
// [first + k·dur, first + (k+1)·dur): one pass of pieces over all of them,
// each piece cut at the windows' ends, gives every window exactly the
// pieces, in the same order, that cost and canFit read for it alone.
func (in *lowCostInput) sweep(first berth.Time, n int, dur, step berth.Time, f fitter) ([]float64, []int64) {
	var costs []float64
	var fits []int64
	if sc := in.scratch; sc != nil {
		sc.costs, sc.fits = sized(sc.costs, n), sized(sc.fits, n)
		costs, fits = sc.costs, sc.fits
	} else {
		costs, fits = make([]float64, n), make([]int64, n)
	}
	for k := range fits {
		costs[k], fits[k] = 0, math.MaxInt32
	}
	if n == 0 {
		return costs, fits
	}
	last := first + berth.Time(n)*dur
	if net := in.net; len(net.ts) > 0 && net.ts[0] <= first && last <= net.end {
		in.sweepFits(first, last, dur, f, fits)
	} else {
		in.sweepFitsByPieces(first, last, dur, f, fits)
	}
	// Costs only over the span of the windows that fit a gang: the others
	// are dropped unread.
	kmin, kmax := -1, -1
	for k, n := range fits {
		if n > 0 {
			if kmin < 0 {
				kmin = k
			}
			kmax = k
		}
	}
	if kmin < 0 {
		return costs, fits
	}
	mem := in.memoryRatio()
	pieces(first+berth.Time(kmin)*dur, first+berth.Time(kmax+1)*dur, 1, in.loads, in.mods, func(ps, pe berth.Time, v berth.Resource) {
		c := in.ratio(mem, v)
		for k := int((ps - first) / dur); ps < pe; k++ {
			e := min(pe, first+berth.Time(k+1)*dur)
			costs[k] = costs[k] + c*float64(e-ps)/float64(step)
			ps = e
		}
	})
	return costs, fits
}

// sweepFitsByPieces sets fits[k] to the fewest gangs that fit anywhere in
// window k of [first, last): each piece [ps, pe) of the availability less
// this job's load is cut at the windows' ends, window k getting its part
// from ps up to first + (k+1)·dur (canFit's pieces for each window).
func (in *lowCostInput) sweepFitsByPieces(first, last, dur berth.Time, f fitter, fits []int64) {
	pieces(first, last, -1, in.net, in.mods, func(ps, pe berth.Time, v berth.Resource) {
		neg := v.AnyNegative()
		var fit int64
		if !neg {
			fit = f.fit(v, math.MaxInt32)
		}
		for k := int((ps - first) / dur); ps < pe; k++ {
			switch {
			case neg || !in.net.holds(ps):
				fits[k] = 0
			default:
				fits[k] = min(fits[k], fit)
			}
			ps = min(pe, first+berth.Time(k+1)*dur)
		}
	})
}

// sweepFits is sweepFitsByPieces where the availability is defined over
// all of [first, last), without the pieces' merging: a window's count is
// the least over the stretches of constant availability (less this job's
// load) meeting it, whether equal neighbours are merged or not, so the
// walk reads the breakpoints of both profiles directly.
func (in *lowCostInput) sweepFits(first, last, dur berth.Time, f fitter, fits []int64) {
	net, mods := in.net, in.mods
	if zeroOver(mods, first, last) {
		mods = nil
	}
	ia, ib := net.floor(first), -1
	if mods != nil {
		ib = mods.floor(first)
	}
	for cur := first; cur < last; {
		for ia+1 < len(net.ts) && net.ts[ia+1] <= cur {
			ia++
		}
		v, next := net.rs[ia], net.end
		if ia+1 < len(net.ts) {
			next = net.ts[ia+1]
		}
		if mods != nil && cur < mods.end {
			// mods is zero outside its domain.
			for ib+1 < len(mods.ts) && mods.ts[ib+1] <= cur {
				ib++
			}
			switch {
			case ib < 0:
				next = min(next, mods.ts[0])
			case ib+1 < len(mods.ts):
				v, next = v.Sub(mods.rs[ib]), min(next, mods.ts[ib+1])
			default:
				v, next = v.Sub(mods.rs[ib]), min(next, mods.end)
			}
		}
		next = min(next, last)
		neg := v.AnyNegative()
		var fit int64
		if !neg {
			fit = f.fit(v, math.MaxInt32)
		}
		for k, ps := int((cur-first)/dur), cur; ps < next; k++ {
			if neg {
				fits[k] = 0
			} else {
				fits[k] = min(fits[k], fit)
			}
			ps = min(next, first+berth.Time(k+1)*dur)
		}
		cur = next
	}
}

// alignedRuns is canonical for blocks whose intervals are equal or
// disjoint (the candidate windows of one stage): the sum held in each
// window, in time order, adjacent windows of equal sums merged, zero sums
// dropped. It sorts ps in place and appends to dst[:0].
func alignedRuns(dst, ps []placement) []placement {
	slices.SortFunc(ps, func(a, b placement) int { return cmpTime(a.iv.Start, b.iv.Start) })
	out := dst[:0]
	for i := 0; i < len(ps); {
		iv, r := ps[i].iv, ps[i].r
		for i++; i < len(ps) && ps[i].iv.Start == iv.Start; i++ {
			r = r.Add(ps[i].r)
		}
		if r.IsZero() {
			continue
		}
		if n := len(out); n > 0 && out[n-1].iv.End == iv.Start && out[n-1].r.Equal(r) {
			out[n-1].iv.End = iv.End
			continue
		}
		out = append(out, placement{iv: iv, r: r})
	}
	return out
}

// gangsPerUnit is the most gangs one round gives a window: the stage's
// gangs spread evenly over its window candidate windows (at least one),
// divided by the smoothness factor.
func gangsPerUnit(gangs int64, window int32, smooth int64) int64 {
	perUnit := int64(math.MaxInt32)
	if window > 0 {
		perUnit = max(int64(math.Floor(float64(gangs)/float64(window))), 1)
	}
	return max(perUnit/max(smooth, 1), 1)
}

// lowCostAligned is YARN's StageAllocatorLowCostAligned: split the stage
// window into aligned, non-overlapping candidate windows of one duration,
// and repeatedly give a few gangs (at most maxGangsPerUnit, which the
// smoothness factor divides) to the cheapest window that still fits one.
// It leaves in.mods as it is: each round sees the batches placed before it
// through the windows' counts of gangs taken (the windows do not overlap).
func lowCostAligned(in *lowCostInput, j stageJob, sa, sd berth.Time) ([]placement, bool) {
	n, perUnit, ok := candidateWindows(in, j, sa, sd)
	if !ok {
		return nil, false
	}
	// Every candidate window's cost and gang count in one sweep of the
	// profiles (the same pieces, summed in the same order, as refit).
	first := sa
	if !in.left {
		first = sd - n*j.duration
	}
	costs, fits := in.sweep(first, int(n), j.duration, j.step, j.fitter)
	kept := 0
	for _, f := range fits {
		if f > 0 {
			kept++
		}
	}
	h := &diHeap{left: in.left}
	var placed []placement
	if sc := in.scratch; sc != nil {
		h.items, placed = sized(sc.items, kept+1)[:0], sc.placed[:0]
		// Hand the (possibly grown) buffers back for the next run.
		defer func() { sc.items, sc.placed = h.items[:0], placed[:0] }()
	} else {
		h.items = make([]durationInterval, 0, kept+1)
	}
	h.items = appendCandidates(h.items, first, j.duration, costs, fits, in.left)
	h.init()
	placed, remaining := in.rounds(h, j, perUnit, placed)
	if remaining > 0 {
		return nil, false
	}
	// YARN returns its allocation series' intervals: adjacent windows with
	// equal amounts merge.
	if sc := in.scratch; sc != nil {
		sc.runs = alignedRuns(sc.runs, placed)
		return sc.runs, true
	}
	out := alignedRuns(nil, placed)
	if len(out) == 0 {
		return nil, true
	}
	return out, true
}

// candidateWindows counts the candidate windows of [sa, sd) and the most
// gangs one round gives a window; ok is false when there are none, or too
// many to place.
func candidateWindows(in *lowCostInput, j stageJob, sa, sd berth.Time) (n berth.Time, perUnit int64, ok bool) {
	if j.duration <= 0 {
		return 0, 0, false
	}
	// window is the count as YARN's (int) cast has it (it wraps), which
	// only the gangs per round read.
	n = (sd - sa) / j.duration
	window := int32(n)
	perUnit = gangsPerUnit(j.gangs, window, in.smooth)
	if window <= 0 || n <= 0 || n > maxCandidates {
		// n out of range while window is in range is a count that wrapped
		// (in the cast, or in sd − sa): not placed, as any count beyond
		// the bound.
		return 0, 0, false
	}
	return n, perUnit, true
}

// appendCandidates appends the windows that fit a gang, in the order YARN
// adds them (from the side the stage fills first): window k is
// [first + k·dur, first + (k+1)·dur) with costs[k] and fits[k].
func appendCandidates(dst []durationInterval, first, dur berth.Time, costs []float64, fits []int64, left bool) []durationInterval {
	for i := range fits {
		k := i
		if !left {
			k = len(fits) - 1 - i
		}
		if fits[k] > 0 {
			dst = append(dst, durationInterval{start: first + berth.Time(k)*dur,
				end: first + berth.Time(k+1)*dur, cost: costs[k], canFit: fits[k]})
		}
	}
	return dst
}

// rounds gives, round after round, at most perUnit gangs to the cheapest
// window of h that still fits one, and appends each batch to placed. It
// returns the batches and the gangs left unplaced.
func (in *lowCostInput) rounds(h *diHeap, j stageJob, perUnit int64, placed []placement) ([]placement, int64) {
	counted := !in.recount && countsDown(j.fitter)
	remaining := j.gangs
	for rounds := 1; remaining > 0 && h.Len() > 0; rounds++ {
		if rounds > maxBatches {
			break
		}
		best := h.pop()
		n := min(perUnit, remaining, best.canFit)
		remaining -= n
		placed = append(placed, placement{iv: berth.Interval{Start: best.start, End: best.end}, r: j.batch(n)})
		if remaining == 0 {
			// Done: the window is not offered again (the heap is
			// dropped), so its new cost and count are not read.
			break
		}
		if di := in.refit(j, counted, best, n); di.canFit > 0 {
			h.push(di)
		}
	}
	return placed, remaining
}

// refit returns window best's entry once a batch of n more gangs is placed
// in it. counted says the gang count drops by n without a recount.
func (in *lowCostInput) refit(j stageJob, counted bool, best durationInterval, n int64) durationInterval {
	di := durationInterval{start: best.start, end: best.end, taken: best.taken + n}
	// n gangs each time add up: batch(a) + batch(b) = batch(a + b).
	taken := j.batch(di.taken)
	if counted && best.canFit < math.MaxInt32 {
		// The batch fills the whole window: every piece of it has n
		// gangs less room, so the fewest gangs anywhere drop by n.
		di.canFit = best.canFit - n
	} else {
		di.canFit = in.canFit(di.start, di.end, j.fitter, taken)
	}
	if di.canFit > 0 {
		// Only windows that fit a gang are kept: the cost of the
		// others is never read.
		di.cost = in.cost(di.start, di.end, j.step, taken)
	}
	return di
}
