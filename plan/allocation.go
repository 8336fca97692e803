package plan

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// IntervalResource is one entry of an allocation: Resource held over
// Interval. YARN keeps these in a map ReservationInterval → Resource.
type IntervalResource struct {
	// Interval is the half-open time span.
	Interval berth.Interval
	// Resource is held over the whole span.
	Resource berth.Resource
}

// NotAccepted is the [Allocation.AcceptedAt] of an allocation no plan has
// accepted yet (YARN's −1).
const NotAccepted berth.Time = -1

// maxUnrolledPeriods bounds how many occurrences of a periodic allocation
// one query may unroll, so that an unbounded window is an error instead of
// an endless loop.
const maxUnrolledPeriods = 1 << 20

// Allocation is a placed reservation: YARN's ReservationAllocation
// (InMemoryReservationAllocation). Build one with [NewAllocation]; the plan
// stores its own copy on [Plan.AddReservation] and stamps AcceptedAt and
// Queue there. Allocations returned by a plan are shared and must be
// treated as read-only.
//
// A periodic allocation (Definition.Period > 0) repeats its intervals every
// period for ever; its intervals may be given in absolute time (one
// occurrence) or relative to the period, since only their phase matters.
type Allocation struct {
	// ID names the reservation.
	ID ReservationID
	// Definition is the contract the allocation satisfies.
	Definition Definition
	// User owns the reservation.
	User string
	// Queue is the plan (reservable queue) holding it; set by the plan.
	Queue string
	// Start and End bound the reservation, [Start, End): the contract's
	// arrival and deadline as YARN agents set them, not the allocation span.
	Start, End berth.Time
	// Intervals are the resources placed over time, sorted by interval
	// (start, then end), equal intervals summed. Read-only.
	Intervals []IntervalResource
	// Gang records that the allocation holds gangs (YARN's containsGangs);
	// the plan follower caps gang reservations. Agents leave it false, as
	// YARN's do.
	Gang bool
	// AcceptedAt is when the plan accepted it ([NotAccepted] before).
	AcceptedAt berth.Time

	// series is the allocation over time; for a periodic allocation, the
	// pattern of one period on [0, period).
	series *rle.Series
	// frozen is a private copy of the intervals, period and window the
	// series was built from, so the plan can reuse the series when the
	// caller did not change them.
	frozen       []IntervalResource
	frozenPeriod berth.Duration
	frozenWindow berth.Interval
	// active is the span booked in the user's active-reservation count
	// when the plan accepted it (kept so removal undoes exactly that).
	active    berth.Interval
	hasActive bool
}

// NewAllocation builds an allocation of user for def under id, bounded by
// window ([Start, End)) and holding intervals. The intervals are copied,
// sorted, and checked: an inverted interval, a negative resource, a
// non-periodic interval outside window, or a periodic interval longer than
// the period is a *berth.FieldError naming the entry. Empty intervals
// (start == end) hold nothing and are dropped (YARN would record a stray
// zero breakpoint). Zero resources are kept, as YARN keeps them in its map.
func NewAllocation(id ReservationID, user string, def Definition, window berth.Interval, intervals []IntervalResource) (*Allocation, error) {
	a := &Allocation{ID: id, Definition: def.Clone(), User: user, Start: window.Start, End: window.End,
		AcceptedAt: NotAccepted}
	if window.Start > window.End {
		return nil, berth.InvalidField("allocation.end", window.End, fmt.Sprintf("must not precede start %d", window.Start))
	}
	ivs := make([]IntervalResource, 0, len(intervals))
	for i, e := range intervals {
		field := fmt.Sprintf("allocation.intervals[%d]", i)
		switch {
		case e.Interval.Start > e.Interval.End:
			return nil, berth.InvalidField(field+".interval", e.Interval, "start must not exceed end")
		case e.Resource.AnyNegative():
			return nil, berth.InvalidField(field+".resource", e.Resource, "must not be negative")
		case e.Interval.Start == e.Interval.End:
			continue
		}
		ivs = append(ivs, e)
	}
	slices.SortStableFunc(ivs, func(x, y IntervalResource) int { return x.Interval.Compare(y.Interval) })
	// Sum equal intervals, as a map keyed by interval would hold one entry.
	out := ivs[:0]
	for _, e := range ivs {
		if n := len(out); n > 0 && out[n-1].Interval == e.Interval {
			out[n-1].Resource = out[n-1].Resource.Add(e.Resource)
			continue
		}
		out = append(out, e)
	}
	a.Intervals = slices.Clip(out)
	if err := a.build(); err != nil {
		return nil, err
	}
	return a, nil
}

// build computes the series from the intervals.
func (a *Allocation) build() error {
	s := rle.New()
	p := a.Definition.Period
	if p < 0 {
		return berth.InvalidField(fieldRecurrence, p, "must not be negative")
	}
	for i, e := range a.Intervals {
		field := fmt.Sprintf("allocation.intervals[%d]", i)
		if !e.Interval.Valid() {
			continue
		}
		if p == 0 {
			if e.Interval.Start < a.Start || e.Interval.End > a.End {
				return berth.InvalidField(field+".interval", e.Interval,
					fmt.Sprintf("must lie inside the reservation [%d, %d)", a.Start, a.End))
			}
			if err := s.Add(e.Interval, e.Resource); err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
			continue
		}
		if e.Interval.Len() > p {
			return berth.InvalidField(field+".interval", e.Interval, fmt.Sprintf("is longer than the period %d", p))
		}
		for _, iv := range phase(e.Interval, p) {
			if err := s.Add(iv, e.Resource); err != nil {
				return fmt.Errorf("%s: %w", field, err)
			}
		}
	}
	a.series = s
	a.frozen = slices.Clone(a.Intervals)
	a.frozenPeriod, a.frozenWindow = p, a.Window()
	return nil
}

// builtFromCurrent reports whether the series still matches the exported
// fields (the caller may have changed them since NewAllocation).
func (a *Allocation) builtFromCurrent() bool {
	return a.series != nil && a.frozenPeriod == a.Definition.Period && a.frozenWindow == a.Window() &&
		slices.EqualFunc(a.Intervals, a.frozen, func(x, y IntervalResource) bool {
			return x.Interval == y.Interval && x.Resource.Equal(y.Resource)
		})
}

// phase maps iv (no longer than p) onto [0, p), split in two where it wraps.
func phase(iv berth.Interval, p berth.Duration) []berth.Interval {
	s := floorMod(iv.Start, p)
	e := s + iv.Len()
	if e <= p {
		return []berth.Interval{{Start: s, End: e}}
	}
	return []berth.Interval{{Start: s, End: p}, {Start: 0, End: e - p}}
}

// floorMod is t mod p in [0, p) for p > 0.
func floorMod(t berth.Time, p berth.Duration) berth.Time {
	m := t % p
	if m < 0 {
		m += p
	}
	return m
}

// floorDiv is ⌊t / p⌋ for p > 0.
func floorDiv(t berth.Time, p berth.Duration) int64 {
	q := t / p
	if t%p != 0 && t < 0 {
		q--
	}
	return q
}

// Period is the recurrence of the allocation in ms (0: not periodic).
func (a *Allocation) Period() berth.Duration { return a.Definition.Period }

// IsPeriodic reports whether the allocation repeats.
func (a *Allocation) IsPeriodic() bool { return a.Definition.Period > 0 }

// ContainsGangs reports the Gang flag (YARN's containsGangs).
func (a *Allocation) ContainsGangs() bool { return a.Gang }

// Window returns [Start, End).
func (a *Allocation) Window() berth.Interval { return berth.Interval{Start: a.Start, End: a.End} }

// ResourcesAt returns what the allocation holds at t: zero outside
// [Start, End), else the series at t (at t mod period when periodic), as
// YARN's getResourcesAtTime.
func (a *Allocation) ResourcesAt(t berth.Time) berth.Resource {
	if t < a.Start || t >= a.End || a.series == nil {
		return berth.Resource{}
	}
	if p := a.Period(); p > 0 {
		return a.series.At(floorMod(t, p))
	}
	return a.series.At(t)
}

// Series returns a copy of the allocation over time; for a periodic
// allocation, the pattern of one period on [0, period).
func (a *Allocation) Series() *rle.Series {
	if a.series == nil {
		return rle.New()
	}
	return a.series.Clip(berth.Interval{Start: berth.MinTime, End: berth.MaxTime})
}

// ResourcesOver returns the allocation over window, zero elsewhere; a
// periodic allocation is unrolled over the window (YARN's
// getResourcesOverTime(start, end)). Unrolling more than 2^20 periods is an
// error of kind berth.ErrInvalidArgument.
func (a *Allocation) ResourcesOver(window berth.Interval) (*rle.Series, error) {
	if a.series == nil {
		return rle.New(), nil
	}
	if p := a.Period(); p > 0 {
		return unroll(a.series, p, window)
	}
	return a.series.Clip(window), nil
}

// unroll repeats pattern (defined on [0, p)) every p over window.
func unroll(pattern *rle.Series, p berth.Duration, window berth.Interval) (*rle.Series, error) {
	if !window.Valid() || pattern.IsEmpty() {
		return rle.New(), nil
	}
	k0, k1 := floorDiv(window.Start, p), floorDiv(window.End-1, p)
	if k1-k0+1 > maxUnrolledPeriods {
		return nil, berth.InvalidField("window", window,
			fmt.Sprintf("spans more than %d periods of %d ms", maxUnrolledPeriods, p))
	}
	bps := []rle.Breakpoint{{Time: berth.MinTime}}
	steps := slices.Collect(pattern.StepsIn(berth.Interval{Start: 0, End: p}))
	for k := k0; k <= k1; k++ {
		base := k * p
		for _, st := range steps {
			iv, ok := berth.Interval{Start: base + st.Interval.Start, End: base + st.Interval.End}.Intersect(window)
			if !ok {
				continue
			}
			if last := bps[len(bps)-1]; last.Time == iv.Start {
				bps[len(bps)-1].Value = st.Value
				continue
			}
			bps = append(bps, rle.Breakpoint{Time: iv.Start, Value: st.Value})
		}
	}
	bps = append(bps, rle.Breakpoint{Time: window.End})
	return rle.FromBreakpoints(bps...)
}

// Compare orders allocations as YARN's getAllReservations does: later
// acceptance first, then larger sequence first; Berth breaks the remaining
// ties on the larger cluster timestamp first, so distinct ids never compare
// equal (YARN's TreeSet would collapse them).
func (a *Allocation) Compare(o *Allocation) int {
	switch {
	case a.AcceptedAt > o.AcceptedAt:
		return -1
	case a.AcceptedAt < o.AcceptedAt:
		return 1
	}
	return -a.ID.Compare(o.ID)
}

// Equal compares the identity and content of two allocations: id, user,
// queue, window, gang flag, acceptance time, definition and intervals.
func (a *Allocation) Equal(o *Allocation) bool {
	return a.ID == o.ID && a.User == o.User && a.Queue == o.Queue && a.Start == o.Start &&
		a.End == o.End && a.Gang == o.Gang && a.AcceptedAt == o.AcceptedAt &&
		a.Definition.Equal(o.Definition) &&
		slices.EqualFunc(a.Intervals, o.Intervals, func(x, y IntervalResource) bool {
			return x.Interval == y.Interval && x.Resource.Equal(y.Resource)
		})
}

// String is a short form for logs.
func (a *Allocation) String() string {
	return fmt.Sprintf("%v user %q [%d, %d) %d intervals", a.ID, a.User, a.Start, a.End, len(a.Intervals))
}
