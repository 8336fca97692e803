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

// event is a change of the sum at t: + or − res[i] (16 bytes, so that
// sorting moves little).
type event struct {
	t   berth.Time
	i   int32
	neg bool
}

// sumOver adds allocations up over w (plus extra, if not nil) into
// canonical pieces covering w (zero where nothing is held).
func sumOver(as []*plan.Allocation, extra *plan.Allocation, w berth.Interval) ([]rseg, error) {
	return sumOverClip(as, extra, w, w)
}

// sumOverClip is sumOver with extra counted only inside ew (⊂ w).
func sumOverClip(as []*plan.Allocation, extra *plan.Allocation, w, ew berth.Interval) ([]rseg, error) {
	evs := make([]event, 0, 4*len(as)+8)
	res := make([]berth.Resource, 0, 2*len(as)+4)
	addAlloc := func(a *plan.Allocation, w berth.Interval) error {
		if a.IsPeriodic() {
			s, err := a.ResourcesOver(w)
			if err != nil {
				return err
			}
			for st := range s.StepsIn(w) {
				if !st.Value.IsZero() {
					res = append(res, st.Value)
					evs = append(evs, event{t: st.Interval.Start, i: int32(len(res) - 1)}, event{t: st.Interval.End, i: int32(len(res) - 1), neg: true})
				}
			}
			return nil
		}
		for _, e := range a.Intervals {
			iv, ok := e.Interval.Intersect(w)
			if !ok || e.Resource.IsZero() {
				continue
			}
			res = append(res, e.Resource)
			evs = append(evs, event{t: iv.Start, i: int32(len(res) - 1)}, event{t: iv.End, i: int32(len(res) - 1), neg: true})
		}
		return nil
	}
	for _, a := range as {
		if err := addAlloc(a, w); err != nil {
			return nil, err
		}
	}
	if extra != nil && ew.Valid() {
		if err := addAlloc(extra, ew); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(evs, func(x, y event) int { return cmp.Compare(x.t, y.t) })
	out := make([]rseg, 1, len(evs)/2+1)
	out[0] = rseg{t: w.Start}
	var cur berth.Resource
	for i := 0; i < len(evs); {
		t := evs[i].t
		for ; i < len(evs) && evs[i].t == t; i++ {
			if evs[i].neg {
				cur = cur.Sub(res[evs[i].i])
			} else {
				cur = cur.Add(res[evs[i].i])
			}
		}
		if t >= w.End {
			break
		}
		n := len(out) - 1
		switch {
		case out[n].r.Equal(cur):
		case out[n].t == t:
			out[n].r = cur
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
