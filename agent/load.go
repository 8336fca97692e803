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

// event is a change of the sum at t: interval k of allocation a (or, when
// a is negative, extra resource k), added or (neg) removed. 16 bytes, so
// that sorting moves little and no resource is copied.
type event struct {
	t berth.Time
	a int32
	k int32
}

// periodicOf returns every periodic reservation of p.
func periodicOf(p *plan.Plan) []*plan.Allocation {
	pw := periodicWindow(p)
	return slices.DeleteFunc(p.Reservations(plan.Filter{Window: &pw}), func(a *plan.Allocation) bool { return !a.IsPeriodic() })
}

// allocationsOver returns the allocations whose resources may fall in w:
// those overlapping it and every periodic one (given).
func allocationsOver(p *plan.Plan, w berth.Interval, periodic []*plan.Allocation) []*plan.Allocation {
	as := p.Reservations(plan.Filter{Window: &w})
	for _, a := range periodic {
		if !slices.ContainsFunc(as, func(x *plan.Allocation) bool { return x.ID == a.ID }) {
			as = append(as, a)
		}
	}
	return as
}

// sumOver adds the allocations up over w into a profile (zero where none).
func sumOver(as []*plan.Allocation, w berth.Interval) (*profile, error) {
	n := 0
	for _, a := range as {
		n += len(a.Intervals)
	}
	evs := make([]event, 0, 2*n)
	var extra []berth.Resource // steps of periodic allocations
	for ai, a := range as {
		if a.IsPeriodic() {
			s, err := a.ResourcesOver(w)
			if err != nil {
				return nil, err
			}
			for st := range s.StepsIn(w) {
				if !st.Value.IsZero() {
					extra = append(extra, st.Value)
					k := int32(len(extra))
					evs = append(evs, event{t: st.Interval.Start, a: -1, k: k}, event{t: st.Interval.End, a: -1, k: -k})
				}
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
	sortEvents(evs, w.Start)
	// Headroom for the breakpoints the allocators add.
	out := &profile{end: w.End, ts: make([]berth.Time, 1, len(evs)/2+8), rs: make([]berth.Resource, 1, len(evs)/2+8)}
	out.ts[0] = w.Start
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
				r = extra[k-1]
			} else {
				r = as[e.a].Intervals[k-1].Resource
			}
			cur = addSigned(cur, r, e.k < 0)
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
func physicalAvailable(p *plan.Plan, old plan.ReservationID, w berth.Interval, periodic []*plan.Allocation) (*profile, error) {
	as := allocationsOver(p, w, periodic)
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
