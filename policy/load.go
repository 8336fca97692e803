package policy

import (
	"cmp"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Fast reads of a plan's load, as sums of allocations.
//
// The plan's series accessors (UserConsumption, AvailableResources) copy
// the series they return, which costs far more than the checks. The load of
// a window is also the sum of the allocations that overlap it, and the plan
// finds those through its interval index in O((1+k) log n). (Package agent
// has the same helper; both could move to plan as a zero-copy accessor.)

// allocationsOver returns the allocations whose resources may fall in w
// (of user, when not empty): those overlapping it and every periodic one. A
// window longer than any period matches every periodic reservation under
// the plan's filter; the one used ends where no ordinary reservation does.
func allocationsOver(p *plan.Plan, w berth.Interval, user string) []*plan.Allocation {
	as := p.Reservations(plan.Filter{Window: &w, User: user})
	pw := berth.Interval{Start: berth.MaxTime - 2*p.MaxPeriodicity() - 2, End: berth.MaxTime}
	for _, a := range p.Reservations(plan.Filter{Window: &pw, User: user}) {
		if a.IsPeriodic() && !slices.ContainsFunc(as, func(x *plan.Allocation) bool { return x.ID == a.ID }) {
			as = append(as, a)
		}
	}
	return as
}

// Note: the periodic query above walks only the right spine of the plan's
// interval index and its periodic set; it is cheap next to the first.

// event is a change of the sum at t: + or − res[i] (16 bytes, so that
// sorting moves little).
// event is a change of the sum at t: interval k of allocation a (or, when
// a is negative, extra resource k), added (k > 0) or removed (k < 0). 16
// bytes, so that sorting moves little and no resource is copied.
type event struct {
	t berth.Time
	a int32
	k int32
}

// sumOver adds allocations up over w (plus extra, if not nil) into
// canonical pieces covering w (zero where nothing is held).
func sumOver(as []*plan.Allocation, extra *plan.Allocation, w berth.Interval) ([]rseg, error) {
	return sumOverClip(as, extra, w, w)
}

// sumOverClip is sumOver with extra counted only inside ew (⊂ w).
func sumOverClip(as []*plan.Allocation, extra *plan.Allocation, w, ew berth.Interval) ([]rseg, error) {
	n := 0
	for _, a := range as {
		n += len(a.Intervals)
	}
	evs := make([]event, 0, 2*n+8)
	var steps []berth.Resource // pieces of periodic allocations and of extra
	addSteps := func(a *plan.Allocation, w berth.Interval) error {
		s, err := a.ResourcesOver(w)
		if err != nil {
			return err
		}
		for st := range s.StepsIn(w) {
			if !st.Value.IsZero() {
				steps = append(steps, st.Value)
				k := int32(len(steps))
				evs = append(evs, event{t: st.Interval.Start, a: -1, k: k}, event{t: st.Interval.End, a: -1, k: -k})
			}
		}
		return nil
	}
	for ai, a := range as {
		if a.IsPeriodic() {
			if err := addSteps(a, w); err != nil {
				return nil, err
			}
			continue
		}
		for k, e := range a.Intervals {
			iv, ok := e.Interval.Intersect(w)
			if !ok || e.Resource.IsZero() {
				continue
			}
			evs = append(evs, event{t: iv.Start, a: int32(ai), k: int32(k + 1)}, event{t: iv.End, a: int32(ai), k: -int32(k + 1)})
		}
	}
	if extra != nil && ew.Valid() {
		if extra.IsPeriodic() {
			if err := addSteps(extra, ew); err != nil {
				return nil, err
			}
		} else {
			for _, e := range extra.Intervals {
				if iv, ok := e.Interval.Intersect(ew); ok && !e.Resource.IsZero() {
					steps = append(steps, e.Resource)
					k := int32(len(steps))
					evs = append(evs, event{t: iv.Start, a: -1, k: k}, event{t: iv.End, a: -1, k: -k})
				}
			}
		}
	}
	sortEvents(evs, w.Start)
	out := make([]rseg, 1, len(evs)/2+2)
	out[0] = rseg{t: w.Start}
	var cur berth.Resource
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			e := evs[i]
			k := e.k
			if k < 0 {
				k = -k
			}
			var r berth.Resource
			if e.a < 0 {
				r = steps[k-1]
			} else {
				r = as[e.a].Intervals[k-1].Resource
			}
			cur = addSigned(cur, r, e.k < 0)
		}
		if t >= w.End {
			break
		}
		n := len(out) - 1
		switch {
		case out[n].r.Equal(cur):
		case out[n].t == t:
			out[n].r = cur
			if n > 0 && out[n-1].r.Equal(cur) {
				out = out[:n]
			}
		default:
			out = append(out, rseg{t: t, r: cur})
		}
	}
	return out, nil
}

// pieceEnd returns the end of piece i of segs, which cover up to end.
func pieceEnd(segs []rseg, i int, end berth.Time) berth.Time {
	if i+1 < len(segs) {
		return segs[i+1].t
	}
	return end
}

// addSigned returns cur + r, or cur − r when neg; plain memory+vcores
// resources take a path without calls.
func addSigned(cur, r berth.Resource, neg bool) berth.Resource {
	if !r.HasExtras() && !cur.HasExtras() {
		if neg {
			cur.Memory -= r.Memory
			cur.VCores -= r.VCores
		} else {
			cur.Memory += r.Memory
			cur.VCores += r.VCores
		}
		return cur
	}
	if neg {
		return cur.Sub(r)
	}
	return cur.Add(r)
}

// sortEvents sorts events by time. Events within 2^40 ms of base are
// sorted as packed integers (time offset, then position), which is several
// times faster than a comparison sort of structs.
func sortEvents(evs []event, base berth.Time) {
	const idxBits = 23
	ok := len(evs) < 1<<idxBits
	for _, e := range evs {
		if d := e.t - base; d < 0 || d >= 1<<(63-idxBits) {
			ok = false
			break
		}
	}
	if !ok {
		slices.SortStableFunc(evs, func(x, y event) int { return cmp.Compare(x.t, y.t) })
		return
	}
	// Pack (offset, a, k) when they fit, else (offset, position).
	keys := make([]uint64, len(evs))
	for i, e := range evs {
		keys[i] = uint64(e.t-base)<<idxBits | uint64(i)
	}
	slices.Sort(keys)
	tmp := make([]event, len(evs))
	copy(tmp, evs)
	for i, k := range keys {
		evs[i] = tmp[k&(1<<idxBits-1)]
	}
}
