package agent

import (
	"cmp"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Fast reads of a plan's load.
//
// The plan's series accessors (CumulativeLoad, AvailableResources) copy
// the series they return, which costs far more than the search itself. The
// load of a window is also the sum of the allocations that overlap it, and
// the plan finds those through its interval index in O((1+k) log n); the
// agents sum them here. Periodic requests keep using the plan's own
// AvailableResources (minimum over every period instance).

// periodicWindow selects every periodic reservation: a window longer than
// any period matches all of them under the plan's filter, and ends where no
// ordinary reservation does.
func periodicWindow(p *plan.Plan) berth.Interval {
	span := 2*p.MaxPeriodicity() + 2
	return berth.Interval{Start: berth.MaxTime - span, End: berth.MaxTime}
}

// event is a change of the sum at t: + or − res[i] (16 bytes, so that
// sorting moves little).
type event struct {
	t   berth.Time
	i   int32
	neg bool
}

// allocationsOver returns the allocations whose resources may fall in w:
// those overlapping it and every periodic one.
func allocationsOver(p *plan.Plan, w berth.Interval) []*plan.Allocation {
	as := p.Reservations(plan.Filter{Window: &w})
	pw := periodicWindow(p)
	for _, a := range p.Reservations(plan.Filter{Window: &pw}) {
		if a.IsPeriodic() && !slices.ContainsFunc(as, func(x *plan.Allocation) bool { return x.ID == a.ID }) {
			as = append(as, a)
		}
	}
	return as
}

// sumOver adds the allocations up over w into a profile (zero where none).
func sumOver(as []*plan.Allocation, w berth.Interval) (*profile, error) {
	evs := make([]event, 0, 4*len(as))
	res := make([]berth.Resource, 0, 2*len(as))
	for _, a := range as {
		if a.IsPeriodic() {
			s, err := a.ResourcesOver(w)
			if err != nil {
				return nil, err
			}
			for st := range s.StepsIn(w) {
				if !st.Value.IsZero() {
					res = append(res, st.Value)
					evs = append(evs, event{t: st.Interval.Start, i: int32(len(res) - 1)}, event{t: st.Interval.End, i: int32(len(res) - 1), neg: true})
				}
			}
			continue
		}
		for _, e := range a.Intervals {
			iv, ok := e.Interval.Intersect(w)
			if !ok || e.Resource.IsZero() {
				continue
			}
			res = append(res, e.Resource)
			evs = append(evs, event{t: iv.Start, i: int32(len(res) - 1)}, event{t: iv.End, i: int32(len(res) - 1), neg: true})
		}
	}
	slices.SortFunc(evs, func(x, y event) int { return cmp.Compare(x.t, y.t) })
	out := &profile{end: w.End, ts: make([]berth.Time, 0, len(evs)/2+1), rs: make([]berth.Resource, 0, len(evs)/2+1)}
	out.ts = append(out.ts, w.Start)
	out.rs = append(out.rs, berth.Resource{})
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
		n := len(out.ts) - 1
		switch {
		case out.rs[n].Equal(cur):
		case out.ts[n] == t:
			out.rs[n] = cur
			if n > 0 && out.rs[n-1].Equal(cur) {
				out.ts, out.rs = out.ts[:n], out.rs[:n]
			}
		default:
			out.ts = append(out.ts, t)
			out.rs = append(out.rs, cur)
		}
	}
	return out, nil
}

// physicalAvailable is capacity minus everything the plan holds over w,
// the reservation old added back; an over-committed plan is an error, as
// YARN's getAvailableResourceOverTime throws.
func physicalAvailable(p *plan.Plan, old plan.ReservationID, w berth.Interval) (*profile, error) {
	as := allocationsOver(p, w)
	load, err := sumOver(as, w)
	if err != nil {
		return nil, err
	}
	capacity := p.Capacity()
	for i, r := range load.rs {
		if !r.FitsIn(capacity) {
			return nil, &berth.FieldError{Field: "plan", Value: load.ts[i], Kind: berth.ErrCapacityExceeded,
				Reason: "the plan is over-committed at this time: " + r.String() + " held of " + capacity.String()}
		}
		load.rs[i] = capacity.Sub(r)
	}
	if !old.IsZero() {
		for _, a := range as {
			if a.ID != old {
				continue
			}
			back, err := sumOver([]*plan.Allocation{a}, w)
			if err != nil {
				return nil, err
			}
			for i, r := range back.rs {
				if r.IsZero() {
					continue
				}
				end := back.end
				if i+1 < len(back.ts) {
					end = back.ts[i+1]
				}
				load.add(back.ts[i], end, r)
			}
		}
	}
	return load, nil
}
