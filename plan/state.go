package plan

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
	"github.com/google/btree"
)

// state is a plan's contents. It is changed in place by a txn under the
// plan's write lock; snapshots get a copy-on-write clone (deepCopy).
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

// txn changes a state in place and journals the inverse of every step,
// so that abort restores the state exactly (series are canonical, so
// adding back what was removed gives the same function). The caller holds
// the plan exclusively. Series shared with a snapshot are copy-on-write
// (rle), so changing them in place never reaches the snapshot.
type txn struct {
	st        *state
	undo      []func()
	calc      berth.Calculator
	maxPeriod berth.Duration
}

func begin(st *state, calc berth.Calculator, maxPeriod berth.Duration) *txn {
	return &txn{st: st, calc: calc, maxPeriod: maxPeriod}
}

// abort undoes every journaled step, last first.
func (tx *txn) abort() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		tx.undo[i]()
	}
	tx.undo = nil
}

// seriesAdd adds r over iv to s, journaled.
func (tx *txn) seriesAdd(s *rle.Series, iv berth.Interval, r berth.Resource) error {
	if err := s.Add(iv, r); err != nil {
		return err
	}
	tx.undo = append(tx.undo, func() { _ = s.Remove(iv, r) })
	return nil
}

// seriesRemove removes r over iv from s, journaled.
func (tx *txn) seriesRemove(s *rle.Series, iv berth.Interval, r berth.Resource) error {
	if err := s.Remove(iv, r); err != nil {
		return err
	}
	tx.undo = append(tx.undo, func() { _ = s.Add(iv, r) })
	return nil
}

// pattern returns m[p], creating it (journaled).
func (tx *txn) pattern(m map[berth.Duration]*rle.Series, p berth.Duration) *rle.Series {
	if s := m[p]; s != nil {
		return s
	}
	s := rle.New()
	m[p] = s
	tx.undo = append(tx.undo, func() { delete(m, p) })
	return s
}

// dropEmpty deletes m[p] when it holds nothing (journaled).
func (tx *txn) dropEmpty(m map[berth.Duration]*rle.Series, p berth.Duration) {
	if s := m[p]; s != nil && s.IsEmpty() {
		delete(m, p)
		tx.undo = append(tx.undo, func() { m[p] = s })
	}
}

// user returns a user's state, creating it (journaled). The fields the
// txn changes are saved so abort restores them.
func (tx *txn) user(name string) *userState {
	us := tx.st.users[name]
	if us == nil {
		us = &userState{patterns: map[berth.Duration]*rle.Series{}}
		tx.st.users[name] = us
		tx.undo = append(tx.undo, func() { delete(tx.st.users, name) })
	}
	saved := *us
	tx.undo = append(tx.undo, func() {
		us.n, us.byInterval, us.total, us.count = saved.n, saved.byInterval, saved.total, saved.count
	})
	return us
}

// btreeInsert and btreeDelete change a btree, journaled.
func (tx *txn) btreeInsert(t *btree.BTreeG[*Allocation], a *Allocation) {
	t.ReplaceOrInsert(a)
	tx.undo = append(tx.undo, func() { t.Delete(a) })
}

func (tx *txn) btreeDelete(t *btree.BTreeG[*Allocation], a *Allocation) {
	if _, ok := t.Delete(a); ok {
		tx.undo = append(tx.undo, func() { t.ReplaceOrInsert(a) })
	}
}

// setRoot replaces an interval-index root, journaled (the treap is
// persistent, so the old root is still the old index).
func (tx *txn) setRoot(at **tnode, root *tnode) {
	old := *at
	*at = root
	tx.undo = append(tx.undo, func() { *at = old })
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

// add books a (a private copy, series built) into the state; on error the
// caller aborts.
func (tx *txn) add(a *Allocation) error {
	if _, dup := tx.st.get(a.ID); dup {
		return &berth.FieldError{Field: "reservation-id", Value: a.ID, Kind: berth.ErrAlreadyExists,
			Reason: fmt.Sprintf("The specified Reservation with ID %v already exists", a.ID)}
	}
	fail := func(err error) error { return fmt.Errorf("plan: booking %v: %w", a.ID, err) }
	us := tx.user(a.User)
	if p := a.Period(); p > 0 {
		if tx.maxPeriod%p != 0 {
			return berth.InvalidField(fieldRecurrence, p,
				fmt.Sprintf("the reservation periodicity (%d) must be an exact divider of the system maxPeriod (%d)", p, tx.maxPeriod))
		}
		g, ug := tx.pattern(tx.st.patterns, p), tx.pattern(us.patterns, p)
		for step := range a.series.Steps() {
			if err := tx.seriesAdd(g, step.Interval, step.Value); err != nil {
				return fail(err)
			}
			if err := tx.seriesAdd(ug, step.Interval, step.Value); err != nil {
				return fail(err)
			}
		}
		tx.btreeInsert(tx.st.periodic, a)
	} else {
		if us.total == nil {
			us.total = rle.New()
		}
		for step := range a.series.Steps() {
			if err := tx.seriesAdd(tx.st.total, step.Interval, step.Value); err != nil {
				return fail(err)
			}
			if err := tx.seriesAdd(us.total, step.Interval, step.Value); err != nil {
				return fail(err)
			}
		}
		k := ivKey{start: a.Start, end: a.End, id: a.ID}
		tx.setRoot(&tx.st.byInterval, treapInsert(tx.st.byInterval, k, a))
		tx.setRoot(&us.byInterval, treapInsert(us.byInterval, k, a))
	}
	a.active, a.hasActive = tx.activeSpan(a)
	if a.hasActive {
		if us.count == nil {
			us.count = rle.New()
		}
		if err := tx.seriesAdd(us.count, a.active, activeUnit); err != nil {
			return fail(err)
		}
	}
	us.n++
	tx.btreeInsert(tx.st.table, a)
	tx.btreeInsert(tx.st.byEnd, a)
	return nil
}

// remove unbooks the stored reservation a; on error the caller aborts.
func (tx *txn) remove(a *Allocation) error {
	us := tx.user(a.User)
	fail := func(err error) error { return fmt.Errorf("plan: unbooking %v: %w", a.ID, err) }
	if p := a.Period(); p > 0 {
		g, ug := tx.pattern(tx.st.patterns, p), tx.pattern(us.patterns, p)
		for step := range a.series.Steps() {
			if err := tx.seriesRemove(g, step.Interval, step.Value); err != nil {
				return fail(err)
			}
			if err := tx.seriesRemove(ug, step.Interval, step.Value); err != nil {
				return fail(err)
			}
		}
		tx.dropEmpty(tx.st.patterns, p)
		tx.dropEmpty(us.patterns, p)
		tx.btreeDelete(tx.st.periodic, a)
	} else {
		if us.total == nil {
			us.total = rle.New()
		}
		for step := range a.series.Steps() {
			if err := tx.seriesRemove(tx.st.total, step.Interval, step.Value); err != nil {
				return fail(err)
			}
			if err := tx.seriesRemove(us.total, step.Interval, step.Value); err != nil {
				return fail(err)
			}
		}
		k := ivKey{start: a.Start, end: a.End, id: a.ID}
		tx.setRoot(&tx.st.byInterval, treapDelete(tx.st.byInterval, k))
		tx.setRoot(&us.byInterval, treapDelete(us.byInterval, k))
	}
	if a.hasActive {
		if us.count == nil {
			us.count = rle.New()
		}
		if err := tx.seriesRemove(us.count, a.active, activeUnit); err != nil {
			return fail(err)
		}
	}
	us.n--
	tx.btreeDelete(tx.st.table, a)
	tx.btreeDelete(tx.st.byEnd, a)
	if us.n == 0 {
		delete(tx.st.users, a.User)
		tx.undo = append(tx.undo, func() { tx.st.users[a.User] = us })
	}
	return nil
}
