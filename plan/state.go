package plan

import (
	"fmt"
	"maps"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/google/btree"
)

// state is one version of a plan's contents. A state is never changed once
// published: a mutation builds a new state (a txn) that shares everything it
// does not touch with the old one, so a failed mutation is dropped without
// trace and readers always see a consistent version.
type state struct {
	capacity berth.Resource
	// table holds every reservation by id.
	table *btree.BTreeG[*Allocation]
	// byInterval indexes the non-periodic reservations by [start, end).
	byInterval *tnode
	// byEnd orders every reservation by (end, id), for archival.
	byEnd *btree.BTreeG[*Allocation]
	// periodic holds the periodic reservations by (start, id).
	periodic *btree.BTreeG[*Allocation]
	// total is the sum of the non-periodic reservations.
	total *rle.Series
	// patterns sums the periodic reservations of each period: the pattern
	// of one period on [0, period).
	patterns map[berth.Duration]*rle.Series
	users    map[string]*userState
}

// userState is one user's share of a state.
type userState struct {
	n          int
	byInterval *tnode
	total      *rle.Series
	patterns   map[berth.Duration]*rle.Series
	// count is the number of active reservations over time (<n, n>).
	count *rle.Series
}

const btreeDegree = 16

func lessByID(a, b *Allocation) bool { return a.ID.Compare(b.ID) < 0 }

func lessByEnd(a, b *Allocation) bool {
	if a.End != b.End {
		return a.End < b.End
	}
	return a.ID.Compare(b.ID) < 0
}

func lessByStart(a, b *Allocation) bool {
	if a.Start != b.Start {
		return a.Start < b.Start
	}
	return a.ID.Compare(b.ID) < 0
}

func newState(capacity berth.Resource) *state {
	return &state{
		capacity: capacity,
		table:    btree.NewG(btreeDegree, lessByID),
		byEnd:    btree.NewG(btreeDegree, lessByEnd),
		periodic: btree.NewG(btreeDegree, lessByStart),
		total:    rle.New(),
		patterns: map[berth.Duration]*rle.Series{},
		users:    map[string]*userState{},
	}
}

func (st *state) get(id ReservationID) (*Allocation, bool) {
	return st.table.Get(&Allocation{ID: id})
}

// copySeries copies s without touching it (safe on a shared state).
func copySeries(s *rle.Series) *rle.Series {
	return s.Clip(berth.Interval{Start: berth.MinTime, End: berth.MaxTime})
}

// deepCopy returns a state that shares no mutable storage with st. When
// exclusive is set the caller holds st's plan exclusively and the O(1)
// copy-on-write clones are used; otherwise series are copied in full.
func (st *state) deepCopy(exclusive bool) *state {
	cp := func(s *rle.Series) *rle.Series {
		if s == nil {
			return nil
		}
		if exclusive {
			return s.Clone()
		}
		return copySeries(s)
	}
	out := &state{capacity: st.capacity, byInterval: st.byInterval, total: cp(st.total),
		patterns: make(map[berth.Duration]*rle.Series, len(st.patterns)),
		users:    make(map[string]*userState, len(st.users))}
	if exclusive {
		out.table, out.byEnd, out.periodic = st.table.Clone(), st.byEnd.Clone(), st.periodic.Clone()
	} else {
		out.table, out.byEnd, out.periodic = btree.NewG(btreeDegree, lessByID), btree.NewG(btreeDegree, lessByEnd), btree.NewG(btreeDegree, lessByStart)
		st.table.Ascend(func(a *Allocation) bool { out.table.ReplaceOrInsert(a); return true })
		st.byEnd.Ascend(func(a *Allocation) bool { out.byEnd.ReplaceOrInsert(a); return true })
		st.periodic.Ascend(func(a *Allocation) bool { out.periodic.ReplaceOrInsert(a); return true })
	}
	for p, s := range st.patterns {
		out.patterns[p] = cp(s)
	}
	for u, us := range st.users {
		c := &userState{n: us.n, byInterval: us.byInterval, total: cp(us.total), count: cp(us.count),
			patterns: make(map[berth.Duration]*rle.Series, len(us.patterns))}
		for p, s := range us.patterns {
			c.patterns[p] = cp(s)
		}
		out.users[u] = c
	}
	return out
}

// txn builds the next state from a published one. Series of the old state
// are cloned (copy on write) before their first change, so the old state
// stays intact; the caller holds the plan exclusively.
type txn struct {
	st         *state
	fresh      map[*rle.Series]bool
	freshUsers map[string]bool
	calc       berth.Calculator
	maxPeriod  berth.Duration
}

func begin(old *state, calc berth.Calculator, maxPeriod berth.Duration) *txn {
	st := *old
	st.table, st.byEnd, st.periodic = old.table.Clone(), old.byEnd.Clone(), old.periodic.Clone()
	st.patterns = maps.Clone(old.patterns)
	st.users = maps.Clone(old.users)
	return &txn{st: &st, fresh: map[*rle.Series]bool{}, freshUsers: map[string]bool{}, calc: calc, maxPeriod: maxPeriod}
}

// own returns a version of s this txn may change.
func (tx *txn) own(s *rle.Series) *rle.Series {
	if s == nil {
		s = rle.New()
	} else if !tx.fresh[s] {
		s = s.Clone()
	}
	tx.fresh[s] = true
	return s
}

// user returns the txn's own copy of a user's state, creating it.
func (tx *txn) user(name string) *userState {
	us := tx.st.users[name]
	if tx.freshUsers[name] && us != nil {
		return us
	}
	c := &userState{patterns: map[berth.Duration]*rle.Series{}}
	if us != nil {
		*c = *us
		c.patterns = maps.Clone(us.patterns)
	}
	tx.st.users[name] = c
	tx.freshUsers[name] = true
	return c
}

// activeSpan is the span over which a reservation counts as active for its
// user (YARN's userActiveReservationCount): from the reservation start on
// for a periodic one, else from the first to the last interval holding more
// than nothing under the calculator. ok is false when nothing is held.
func (tx *txn) activeSpan(a *Allocation) (berth.Interval, bool) {
	if a.IsPeriodic() {
		return berth.Interval{Start: a.Start, End: berth.MaxTime}, a.Start < berth.MaxTime
	}
	span, ok := berth.Interval{Start: berth.MaxTime, End: berth.MinTime}, false
	for _, e := range a.Intervals {
		if e.Interval.Valid() && berth.GreaterThan(tx.calc, tx.st.capacity, e.Resource, berth.Resource{}) {
			span.Start, span.End, ok = min(span.Start, e.Interval.Start), max(span.End, e.Interval.End), true
		}
	}
	return span, ok
}

var activeUnit = berth.New(1, 1)

// add books a (a private copy, series built) into the state.
func (tx *txn) add(a *Allocation) error {
	if _, dup := tx.st.get(a.ID); dup {
		return &berth.FieldError{Field: "reservation-id", Value: a.ID, Kind: berth.ErrAlreadyExists,
			Reason: fmt.Sprintf("The specified Reservation with ID %v already exists", a.ID)}
	}
	us := tx.user(a.User)
	if p := a.Period(); p > 0 {
		if tx.maxPeriod%p != 0 {
			return berth.InvalidField(fieldRecurrence, p,
				fmt.Sprintf("the reservation periodicity (%d) must be an exact divider of the system maxPeriod (%d)", p, tx.maxPeriod))
		}
		g, ug := tx.own(tx.st.patterns[p]), tx.own(us.patterns[p])
		for step := range a.series.Steps() {
			if err := g.Add(step.Interval, step.Value); err != nil {
				return fmt.Errorf("plan: booking %v: %w", a.ID, err)
			}
			if err := ug.Add(step.Interval, step.Value); err != nil {
				return fmt.Errorf("plan: booking %v: %w", a.ID, err)
			}
		}
		tx.st.patterns[p], us.patterns[p] = g, ug
		tx.st.periodic.ReplaceOrInsert(a)
	} else {
		total, ut := tx.own(tx.st.total), tx.own(us.total)
		for step := range a.series.Steps() {
			if err := total.Add(step.Interval, step.Value); err != nil {
				return fmt.Errorf("plan: booking %v: %w", a.ID, err)
			}
			if err := ut.Add(step.Interval, step.Value); err != nil {
				return fmt.Errorf("plan: booking %v: %w", a.ID, err)
			}
		}
		tx.st.total, us.total = total, ut
		k := ivKey{start: a.Start, end: a.End, id: a.ID}
		tx.st.byInterval = treapInsert(tx.st.byInterval, k, a)
		us.byInterval = treapInsert(us.byInterval, k, a)
	}
	a.active, a.hasActive = tx.activeSpan(a)
	if a.hasActive {
		us.count = tx.own(us.count)
		if err := us.count.Add(a.active, activeUnit); err != nil {
			return fmt.Errorf("plan: booking %v: %w", a.ID, err)
		}
	}
	us.n++
	tx.st.table.ReplaceOrInsert(a)
	tx.st.byEnd.ReplaceOrInsert(a)
	return nil
}

// remove unbooks the stored reservation a.
func (tx *txn) remove(a *Allocation) error {
	us := tx.user(a.User)
	fail := func(err error) error { return fmt.Errorf("plan: unbooking %v: %w", a.ID, err) }
	if p := a.Period(); p > 0 {
		g, ug := tx.own(tx.st.patterns[p]), tx.own(us.patterns[p])
		for step := range a.series.Steps() {
			if err := g.Remove(step.Interval, step.Value); err != nil {
				return fail(err)
			}
			if err := ug.Remove(step.Interval, step.Value); err != nil {
				return fail(err)
			}
		}
		tx.st.patterns[p], us.patterns[p] = g, ug
		if g.IsEmpty() {
			delete(tx.st.patterns, p)
		}
		if ug.IsEmpty() {
			delete(us.patterns, p)
		}
		tx.st.periodic.Delete(a)
	} else {
		total, ut := tx.own(tx.st.total), tx.own(us.total)
		for step := range a.series.Steps() {
			if err := total.Remove(step.Interval, step.Value); err != nil {
				return fail(err)
			}
			if err := ut.Remove(step.Interval, step.Value); err != nil {
				return fail(err)
			}
		}
		tx.st.total, us.total = total, ut
		k := ivKey{start: a.Start, end: a.End, id: a.ID}
		tx.st.byInterval = treapDelete(tx.st.byInterval, k)
		us.byInterval = treapDelete(us.byInterval, k)
	}
	if a.hasActive {
		us.count = tx.own(us.count)
		if err := us.count.Remove(a.active, activeUnit); err != nil {
			return fail(err)
		}
	}
	us.n--
	tx.st.table.Delete(a)
	tx.st.byEnd.Delete(a)
	if us.n == 0 {
		delete(tx.st.users, a.User)
	}
	return nil
}
