package plan

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// The read side of a plan (YARN's PlanView): its reservations, loads and
// consumption over time.

// read runs f on the current state under the read lock.
func read[T any](p *Plan, f func(st *state) T) T {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return f(p.st)
}

// Capacity returns the plan's total capacity.
func (p *Plan) Capacity() berth.Resource {
	return read(p, func(st *state) berth.Resource { return st.capacity })
}

// Len returns the number of reservations in the plan.
func (p *Plan) Len() int { return read(p, func(st *state) int { return st.table.Len() }) }

// Reservation returns the reservation id; ok is false when absent. The
// allocation is shared: treat it as read-only.
func (p *Plan) Reservation(id ReservationID) (a *Allocation, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.st.get(id)
}

// All returns every reservation, later acceptance first (YARN's
// getAllReservations order, see [Allocation.Compare]).
func (p *Plan) All() []*Allocation {
	out := read(p, func(st *state) []*Allocation {
		out := make([]*Allocation, 0, st.table.Len())
		st.table.Ascend(func(e idEntry) bool { out = append(out, e.a); return true })
		return out
	})
	slices.SortFunc(out, (*Allocation).Compare)
	return out
}

// Filter selects reservations for [Plan.Reservations] (YARN's
// getReservations(id, interval, user)).
type Filter struct {
	// ID, when set, selects that reservation alone; Window and User are
	// then ignored, as in YARN.
	ID ReservationID
	// Window, when set, keeps the reservations with start ≤ Window.End and
	// end > Window.Start (closed at Window.End, as YARN); nil means
	// [0, MaxTime]. Periodic reservations match when one of their
	// occurrences does (YARN's test, see the package doc).
	Window *berth.Interval
	// User, when not empty, keeps that user's reservations.
	User string
}

// Reservations returns the reservations selected by f, ordered by
// (start, end, id). It costs O((1 + k) log n) for k answers: both the
// non-periodic and the periodic reservations are indexed (periodic ones
// that start after the window are pruned by subtree, so only those
// interleaved with answers are visited).
func (p *Plan) Reservations(f Filter) []*Allocation {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.st.reservations(f)
}

func (st *state) reservations(f Filter) []*Allocation {
	if !f.ID.IsZero() {
		if a, ok := st.get(f.ID); ok {
			return []*Allocation{a}
		}
		return nil
	}
	s, e := berth.Time(0), berth.MaxTime
	if f.Window != nil {
		s, e = f.Window.Start, f.Window.End
	}
	idx := &st.byInterval
	if f.User != "" {
		us := st.users[f.User]
		if us == nil {
			return nil
		}
		idx = &us.byInterval
	}
	out := idx.appendOverlapping(nil, s, e)
	np := len(out)
	if f.User == "" {
		out = st.periodic.appendMeeting(out, s, e)
	} else {
		out = st.users[f.User].periodic.appendMeeting(out, s, e)
	}
	if len(out) > np {
		slices.SortFunc(out, func(x, y *Allocation) int { return keyOf(x).compare(keyOf(y)) })
		out = slices.Compact(out)
	}
	return out
}

// periodicOverlaps is YARN's test for a periodic reservation against the
// search window [s, e], the reservation's start aligned to phase 0, with
// floor modulo (YARN's Java remainder agrees for the non-negative times it
// assumes) and every difference taken between phases, so nothing
// overflows. A reservation spanning a whole period meets every window
// (see arcLen; YARN's modulo makes it meet almost none). The periodic index answers the same test without a scan; this
// is the reference it is tested against, and the path for an inverted
// window.
func periodicOverlaps(a *Allocation, s, e berth.Time) bool {
	per := a.Period()
	shift := floorMod(a.Start, per)
	rel := func(t berth.Time) berth.Time { return floorMod(floorMod(t, per)-shift, per) }
	pRE, pSS, pSE := arcLen(a), rel(s), rel(e)
	longer := e > s && (e-s < 0 || e-s > per) // e-s < 0: the span overflowed int64
	return longer || pSE < pRE || pSS < pRE || pSS > pSE
}

// ReservationsAt returns the reservations active at t (start ≤ t < end;
// YARN's getReservationsAtTime).
func (p *Plan) ReservationsAt(t berth.Time) []*Allocation {
	return p.Reservations(Filter{Window: &berth.Interval{Start: t, End: t}})
}

// UserReservationsAt returns user's reservations active at t (YARN's
// getReservationByUserAtTime).
func (p *Plan) UserReservationsAt(user string, t berth.Time) []*Allocation {
	if user == "" {
		return nil
	}
	return p.Reservations(Filter{Window: &berth.Interval{Start: t, End: t}, User: user})
}

// TotalCommitted returns the resources committed at t, periodic
// reservations included (YARN's getTotalCommittedResources).
func (p *Plan) TotalCommitted(t berth.Time) berth.Resource {
	return read(p, func(st *state) berth.Resource { return committedAt(st.total, st.patterns, t) })
}

// HoldsPeriodic reports whether the plan holds a periodic reservation
// that holds something. YARN's reads of the plan's load clip to the asked
// window only then (see the agent package's low-cost aligned planner).
func (p *Plan) HoldsPeriodic() bool {
	return read(p, func(st *state) bool { return len(st.patterns) > 0 })
}

func committedAt(total *rle.Series, patterns map[berth.Duration]*rle.Series, t berth.Time) berth.Resource {
	var r berth.Resource
	if total != nil {
		r = total.At(t)
	}
	for per, s := range patterns {
		r = r.Add(s.At(floorMod(t, per)))
	}
	return r
}

// UserConsumptionAt returns what user's reservations hold at t.
func (p *Plan) UserConsumptionAt(user string, t berth.Time) berth.Resource {
	return read(p, func(st *state) berth.Resource {
		us := st.users[user]
		if us == nil {
			return berth.Resource{}
		}
		return committedAt(us.total, us.patterns, t)
	})
}

// EarliestStart returns the first time the non-periodic reservations hold
// anything; ok is false when they hold nothing. Periodic reservations are
// ignored, as in YARN.
func (p *Plan) EarliestStart() (t berth.Time, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.st.total.EarliestStart()
}

// LastEnd returns the end of the last non-periodic allocation; ok is false
// when there is none. Periodic reservations are ignored, as in YARN.
func (p *Plan) LastEnd() (t berth.Time, ok bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.st.total.LatestEnd()
}

func sortedPeriods(m map[berth.Duration]*rle.Series) []berth.Duration {
	ps := make([]berth.Duration, 0, len(m))
	for per := range m {
		ps = append(ps, per)
	}
	slices.Sort(ps)
	return ps
}

// CumulativeLoad returns everything committed over window, periodic
// reservations unrolled; defined inside window only (YARN's
// getCumulativeLoadOverTime).
func (p *Plan) CumulativeLoad(window berth.Interval) (*rle.Series, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return loadSeries(p.st.total, p.st.patterns, window)
}

// UserConsumption returns what user's reservations hold over window,
// periodic ones unrolled; defined inside window only (YARN's
// getConsumptionForUserOverTime). A user without reservations gets an
// empty (zero) series.
func (p *Plan) UserConsumption(user string, window berth.Interval) (*rle.Series, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	us := p.st.users[user]
	if us == nil {
		return rle.New(), nil
	}
	return loadSeries(us.total, us.patterns, window)
}

// ReservationCount returns how many of user's reservations are active over
// window, as <n, n> (YARN's getReservationCountForUserOverTime). A
// non-periodic reservation is active from its first to its last non-empty
// interval, a periodic one from its start on.
func (p *Plan) ReservationCount(user string, window berth.Interval) *rle.Series {
	p.mu.RLock()
	defer p.mu.RUnlock()
	us := p.st.users[user]
	if us == nil || us.count == nil {
		return rle.New()
	}
	return us.count.Clip(window)
}
