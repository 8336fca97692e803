package agent

import (
	"math"
	"sort"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// Reads of a plan's load.
//
// Plan.AppendLoadSteps gives the plan's load over a window as steps, walking
// its aggregate series (periodic patterns unrolled) without building a
// series or visiting the reservations, so the agents read the load through
// it and only touch the one allocation they take out for an update.
// Periodic requests keep using the plan's own AvailableResources (minimum
// over every period instance).

// stepBuffers recycles the buffers the plan's load is read into and the
// profiles built from them, across placements (sync.Pool: safe for
// concurrent placements), so that a search allocates little. A nil
// *stepBuffers allocates afresh.
type stepBuffers struct{ steps, profiles, jobs sync.Pool }

// maxKept bounds the size of the buffers kept for reuse (a few MB).
const maxKept = 1 << 16

func newStepBuffers() *stepBuffers { return &stepBuffers{} }

func (b *stepBuffers) get() *[]rle.Step {
	if b != nil {
		if buf, ok := b.steps.Get().(*[]rle.Step); ok {
			return buf
		}
	}
	return new([]rle.Step)
}

func (b *stepBuffers) put(buf *[]rle.Step) {
	if b != nil && cap(*buf) <= maxKept {
		*buf = (*buf)[:0]
		b.steps.Put(buf)
	}
}

// profile returns a profile of n breakpoints (to be set) ending at end,
// with room for the breakpoints the allocators add.
func (b *stepBuffers) profile(n int, end berth.Time) *profile {
	if b != nil {
		if p, ok := b.profiles.Get().(*profile); ok && cap(p.ts) >= n+8 && cap(p.rs) >= n+8 {
			p.ts, p.rs, p.end = p.ts[:n], p.rs[:n], end
			return p
		}
	}
	return &profile{end: end, ts: make([]berth.Time, n, n+8), rs: make([]berth.Resource, n, n+8)}
}

// job returns a planning run's state, reset for a new run: its mods
// profile flat at zero over all time, its scratch answer empty. Runs are
// many and short (W2-hot places 10,000), so their state is recycled.
func (b *stepBuffers) job() *job {
	var j *job
	if b != nil {
		j, _ = b.jobs.Get().(*job)
	}
	if j == nil {
		return &job{mods: newFlat(berth.MinTime, berth.MaxTime, berth.Resource{})}
	}
	mods, out, lc := j.mods, j.out[:0], j.lowCost
	mods.ts = append(mods.ts[:0], berth.MinTime)
	mods.rs = append(mods.rs[:0], berth.Resource{})
	mods.end = berth.MaxTime
	*j = job{mods: mods, out: out, lowCost: lc}
	return j
}

// putJob hands back a run's state once nothing reads it: the views given
// to the stage allocators are valid only during their calls, and the
// answer was copied out.
func (b *stepBuffers) putJob(j *job) {
	if j.planLoads != nil && j.view != nil {
		j.view.release(j.planLoads)
	}
	if b != nil && cap(j.mods.ts) <= maxKept && cap(j.out) <= maxKept && j.lowCost.small() {
		j.view, j.planLoads = nil, nil // hold no plan
		b.jobs.Put(j)
	}
}

// release hands back a profile nothing uses any more.
func (b *stepBuffers) release(p *profile) {
	if b != nil && p != nil && cap(p.ts) <= maxKept {
		b.profiles.Put(p)
	}
}

// loadProfile returns what p holds over the valid window w as a profile,
// or with avail what p has left there: capacity minus the load, an
// over-committed plan being an error, as YARN's
// getAvailableResourceOverTime throws. The steps are read into a buffer of
// bufs.
//
// With need (avail only), when no stretch of w has room for need's gang,
// errNoStretch is returned before any profile is built (an over-committed
// step still gives the error above).
func loadProfile(p *plan.Plan, bufs *stepBuffers, w berth.Interval, avail bool, need *stretchNeed) (*profile, error) {
	buf := bufs.get()
	defer bufs.put(buf)
	steps, err := p.AppendLoadSteps((*buf)[:0], w, "")
	if err != nil {
		return nil, err
	}
	*buf = steps
	if len(steps) == 0 {
		steps = []rle.Step{{Interval: w}}
	}
	capacity := p.Capacity()
	if avail && need != nil && noStretch(steps, capacity, need, w) {
		return nil, errNoStretch
	}
	out := bufs.profile(len(steps), w.End)
	for i, st := range steps {
		r := st.Value
		if avail {
			if !r.FitsIn(capacity) {
				return nil, &berth.FieldError{Field: "plan", Value: st.Interval.Start, Kind: berth.ErrCapacityExceeded,
					Reason: "the plan is over-committed at this time: " + r.String() + " held of " + capacity.String()}
			}
			r = capacity.Sub(r)
		}
		out.ts[i], out.rs[i] = st.Interval.Start, r
	}
	return out, nil
}

// noStretch reports whether the steps (load over w) leave need's stage no
// placement: no stretch with room for one gang, or (memory calculator,
// exact counts) too little room in all the stretches together. It is false
// when some step is over-committed, so that the caller reports that
// instead.
func noStretch(steps []rle.Step, capacity berth.Resource, need *stretchNeed, w berth.Interval) bool {
	sc := stretchScan{need: need, start: w.Start, deadline: w.End}
	if need.memGang > 0 && !capacity.HasExtras() {
		// The common case, memory and vcores only, without a call per
		// step: this loop is the whole cost of most rejections.
		exact := need.exact(capacity)
		// Gang time is counted in int64: at most gangs × |w|, checked to
		// fit (else the bound is not used).
		exact = exact && uint64(w.End)-uint64(w.Start) <= uint64(math.MaxInt64/need.gangs)
		goal := need.gangs * need.duration // used once a stretch of dur ≤ |w| is seen
		var total, run int64               // gang·ms in the long stretches closed so far, in the open one
		long := false                      // the open stretch is long enough for a batch
		for i := range steps {
			st := &steps[i]
			v := &st.Value
			if v.HasExtras() || v.Memory > capacity.Memory || v.VCores > capacity.VCores {
				return false
			}
			free := capacity.Memory - v.Memory
			if float32(free) < need.memGang {
				if long {
					total += run
				}
				sc.in, long = false, false
				continue
			}
			s, e := max(st.Interval.Start, w.Start), min(st.Interval.End, w.End)
			if !sc.in {
				sc.in, sc.from, run = true, s, 0
			}
			if !exact {
				if fitsIn(sc.from, need.duration, e) {
					return false
				}
				continue
			}
			run += min(free/need.gangMem, need.gangs) * (e - s)
			long = long || fitsIn(sc.from, need.duration, e)
			if long && total+run >= goal {
				return false
			}
		}
		return true
	}
	for _, st := range steps {
		if !st.Value.FitsIn(capacity) {
			return false
		}
		if sc.see(st.Interval.Start, st.Interval.End, capacity.Sub(st.Value)) {
			return false
		}
	}
	return true
}

// addOld adds sign × the reservation old of p (if any) to prof over w.
func addOld(p *plan.Plan, old plan.ReservationID, w berth.Interval, prof *profile, neg bool) error {
	if old.IsZero() {
		return nil
	}
	a, ok := p.Reservation(old)
	if !ok {
		return nil
	}
	s, err := a.ResourcesOver(w)
	if err != nil {
		return err
	}
	for st := range s.StepsIn(w) {
		if neg {
			prof.sub(st.Interval.Start, st.Interval.End, st.Value)
		} else {
			prof.add(st.Interval.Start, st.Interval.End, st.Value)
		}
	}
	return nil
}

// physicalAvailable is capacity minus everything the plan holds over w,
// the reservation old added back; an over-committed plan is an error.
//
// need (nil: none) is passed to loadProfile; the caller guarantees that
// old is not in p, since adding it back could make room.
func physicalAvailable(p *plan.Plan, bufs *stepBuffers, old plan.ReservationID, w berth.Interval, need *stretchNeed) (*profile, error) {
	load, err := loadProfile(p, bufs, w, true, need)
	if err != nil {
		return nil, err
	}
	if err := addOld(p, old, w, load, false); err != nil {
		return nil, err
	}
	return load, nil
}

// yarnPlanLoads is the plan's load as YARN's IterativePlanner reads it for
// the low-cost allocator's costs (its planLoads), over the definition's
// window contract = [arrival, deadline), which holds every candidate
// window. YARN asks the plan for its load over the window aligned inwards,
// [ja, jd) = [⌈arrival⌉, ⌊deadline⌋) to the step, but the plan answers
// with its own run-length entries from the one in force at ja to the last
// one at or before jd, unclipped. So for an arrival or deadline that is
// not a multiple of the step the load YARN costs is
//
//   - 0 before the plan's run (maximal stretch of equal load) that holds
//     ja, and the plan's load from where that run starts;
//   - the plan's load up to jd, and from jd on the load at jd, held to the
//     deadline.
//
// The answer is clipped to [ja, jd) (and 0 outside) in the two cases where
// YARN merges it with a second series: when the plan holds periodic
// reservations, and on an update, the old version taken away, unless that
// version starts after jd. A window shorter than a step gives an empty
// profile (no candidate window fits in it).
func yarnPlanLoads(p *plan.Plan, bufs *stepBuffers, old plan.ReservationID, contract berth.Interval) (*profile, error) {
	step := p.Step()
	ja, jd := stepRoundUp(contract.Start, step), stepRoundDown(contract.End, step)
	if ja > jd {
		return &profile{end: contract.Start}, nil
	}
	clipped := p.HoldsPeriodic()
	if a, ok := p.Reservation(old); ok && !old.IsZero() {
		if first, ok := firstHeld(a); ok && first <= jd {
			clipped = true
		}
	}
	if clipped {
		w := berth.Interval{Start: ja, End: jd}
		if !w.Valid() {
			return &profile{end: ja}, nil
		}
		load, err := loadProfile(p, bufs, w, false, nil)
		if err != nil {
			return nil, err
		}
		if err := addOld(p, old, w, load, true); err != nil {
			return nil, err
		}
		return load, nil
	}
	// The read covers ja and jd, both inside [contract.Start, jd].
	buf := bufs.get()
	defer bufs.put(buf)
	steps, err := p.AppendLoadSteps((*buf)[:0], berth.Interval{Start: contract.Start, End: jd + 1}, "")
	if err != nil {
		return nil, err
	}
	*buf = steps
	if len(steps) == 0 {
		steps = []rle.Step{{Interval: berth.Interval{Start: contract.Start, End: jd + 1}}}
	}
	return planLoadsOf(steps, bufs, contract, ja), nil
}

// planLoadsOf is yarnPlanLoads's answer in the unclipped case from the
// plan's load steps meeting [contract.Start, jd+1), in time order (the
// first may start before contract.Start).
func planLoadsOf(steps []rle.Step, bufs *stepBuffers, contract berth.Interval, ja berth.Time) *profile {
	start := func(i int) berth.Time { return max(steps[i].Interval.Start, contract.Start) }
	// The run holding ja.
	first := max(sort.Search(len(steps), func(i int) bool { return start(i) > ja })-1, 0)
	// At most one breakpoint more than the runs read, in a recycled
	// profile (the run hands it back).
	out := bufs.profile(len(steps)-first+1, contract.End)
	out.ts, out.rs = out.ts[:0], out.rs[:0]
	push := func(t berth.Time, r berth.Resource) {
		if n := len(out.ts); n > 0 && out.rs[n-1].Equal(r) {
			return
		}
		out.ts = append(out.ts, t)
		out.rs = append(out.rs, r)
	}
	if start(first) > contract.Start {
		push(contract.Start, berth.Resource{})
	}
	for i := first; i < len(steps) && start(i) < contract.End; i++ {
		push(start(i), steps[i].Value)
	}
	return out
}

// firstHeld is where the allocation first holds something.
func firstHeld(a *plan.Allocation) (berth.Time, bool) {
	for st := range a.Series().Steps() {
		if !st.Value.IsZero() {
			return st.Interval.Start, true
		}
	}
	return 0, false
}
