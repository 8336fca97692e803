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
	// own marks the index nodes this state may change in place.
	own *owner
	// table holds every reservation by id.
	table *btree.BTreeG[idEntry]
	// byInterval indexes the non-periodic reservations by [start, end).
	byInterval ivIndex
	// byEnd orders every reservation by (end, id), for archival.
	byEnd *btree.BTreeG[*Allocation]
	// periodic indexes the periodic reservations by period and phase.
	periodic periodicIndex
	// total is the sum of the non-periodic reservations.
	total *rle.Series
	// patterns sums the periodic reservations of each period: the pattern
	// of one period on [0, period).
	patterns map[berth.Duration]*rle.Series
	users    map[string]*userState
}

// userState is one user's share of a state. A user with no reservation
// has none.
type userState struct {
	n          int
	byInterval ivIndex
	periodic   periodicIndex
	total      *rle.Series
	area       areaIndex // total's change tree, for window integrals (integral.go)
	patterns   map[berth.Duration]*rle.Series
	// count is the number of active reservations over time (<n, n>).
	count *rle.Series
}

func newUserState() *userState {
	return &userState{byInterval: newIvIndex(), total: rle.New(), count: rle.New(), patterns: map[berth.Duration]*rle.Series{}}
}

const btreeDegree = 16

// idEntry is a reservation keyed by its id (a small key, so that a lookup
// allocates nothing).
type idEntry struct {
	id ReservationID
	a  *Allocation
}

func lessByID(a, b idEntry) bool { return a.id.Compare(b.id) < 0 }

func lessByEnd(a, b *Allocation) bool {
	if a.End != b.End {
		return a.End < b.End
	}
	return a.ID.Compare(b.ID) < 0
}

func newState(capacity berth.Resource) *state {
	return &state{
		capacity:   capacity,
		own:        new(owner),
		byInterval: newIvIndex(),
		table:      btree.NewG(btreeDegree, lessByID),
		byEnd:      btree.NewG(btreeDegree, lessByEnd),
		total:      rle.New(),
		patterns:   map[berth.Duration]*rle.Series{},
		users:      map[string]*userState{},
	}
}

func (st *state) get(id ReservationID) (*Allocation, bool) {
	e, ok := st.table.Get(idEntry{id: id})
	return e.a, ok
}

// copySeries copies s without touching it (safe on a shared state).
func copySeries(s *rle.Series) *rle.Series {
	return s.Clip(berth.Interval{Start: berth.MinTime, End: berth.MaxTime})
}

// deepCopy returns a state that shares no mutable storage with st. When
// exclusive is set the caller holds st's plan exclusively: the O(1)
// copy-on-write clones are used and both states get fresh owners, so that
// neither changes the index nodes they now share. Otherwise (st may be
// read concurrently) nothing of st is touched and everything is copied in
// full.
func (st *state) deepCopy(exclusive bool) *state {
	cp := func(s *rle.Series) *rle.Series {
		if exclusive {
			return s.Clone()
		}
		return copySeries(s)
	}
	out := &state{capacity: st.capacity, own: new(owner), total: cp(st.total),
		patterns: make(map[berth.Duration]*rle.Series, len(st.patterns)),
		users:    make(map[string]*userState, len(st.users))}
	tree := func(t *tnode) *tnode { return t }
	ivs := func(x *ivIndex) ivIndex { return x.clone() }
	areas := func(x areaIndex) areaIndex { return x }
	if exclusive {
		st.own = new(owner)
		out.table, out.byEnd = st.table.Clone(), st.byEnd.Clone()
	} else {
		tree = func(t *tnode) *tnode { return treapCopy(t, out.own) }
		areas = func(x areaIndex) areaIndex { return areaIndex{root: icopy(x.root, out.own), ext: x.ext} }
		ivs = func(x *ivIndex) ivIndex { return x.copyFor(out.own) }
		out.table, out.byEnd = btree.NewG(btreeDegree, lessByID), btree.NewG(btreeDegree, lessByEnd)
		st.table.Ascend(func(e idEntry) bool { out.table.ReplaceOrInsert(e); return true })
		st.byEnd.Ascend(func(a *Allocation) bool { out.byEnd.ReplaceOrInsert(a); return true })
	}
	out.byInterval = ivs(&st.byInterval)
	out.periodic = st.periodic.copyWith(tree)
	for p, s := range st.patterns {
		out.patterns[p] = cp(s)
	}
	for u, us := range st.users {
		c := &userState{n: us.n, byInterval: ivs(&us.byInterval), periodic: us.periodic.copyWith(tree),
			total: cp(us.total), area: areas(us.area), count: cp(us.count),
			patterns: make(map[berth.Duration]*rle.Series, len(us.patterns))}
		for p, s := range us.patterns {
			c.patterns[p] = cp(s)
		}
		out.users[u] = c
	}
	return out
}

// undoKind names the inverse of one journaled step.
type undoKind uint8

const (
	undoSeriesAdd      undoKind = iota // resource was added over interval to series
	undoSeriesRemove                   // resource was removed over interval from series
	undoTableInsert                    // allocation was inserted into the table
	undoTableDelete                    // allocation was deleted from the table
	undoBtreeInsert                    // allocation was inserted into tree
	undoBtreeDelete                    // allocation was deleted from tree
	undoIndexInsert                    // allocation was inserted into *index
	undoIndexDelete                    // allocation was deleted from *index
	undoPeriodicInsert                 // allocation was inserted into *periodic
	undoPeriodicDelete                 // allocation was deleted from *periodic
	undoPatternNew                     // patterns[period] was created
	undoPatternDrop                    // patterns[period] (= series) was deleted
	undoUserNew                        // users[allocation.User] was created
	undoUserDrop                       // users[allocation.User] (= user) was deleted
	undoUserCount                      // user.n was raised by count
	undoArea                           // allocation's steps were added count times to *areas
)

// undo is one journaled step: what is needed to invert it. A typed record
// (not a closure) so that a transaction allocates nothing to journal.
type undo struct {
	kind       undoKind
	count      int
	period     berth.Duration
	interval   berth.Interval
	resource   berth.Resource
	series     *rle.Series
	allocation *Allocation
	tree       *btree.BTreeG[*Allocation]
	index      *ivIndex
	periodic   *periodicIndex
	patterns   map[berth.Duration]*rle.Series
	user       *userState
	areas      *areaIndex
}

// txn changes a state in place and journals the inverse of every step,
// so that abort restores the state exactly (series are canonical, so
// adding back what was removed gives the same function, and the treap's
// shape depends on its keys only). The caller holds the plan exclusively.
// Storage shared with a snapshot is copy-on-write (rle series, btrees, the
// treap's foreign nodes), so changing it in place never reaches the
// snapshot.
type txn struct {
	st        *state
	undo      []undo
	calc      berth.Calculator
	maxPeriod berth.Duration
}

// begin starts a transaction on p's state, reusing p's journal buffer.
// The caller holds p's write lock.
func (p *Plan) begin(st *state) *txn {
	tx := &p.transaction
	tx.st, tx.calc, tx.maxPeriod, tx.undo = st, p.cfg.Calculator, p.cfg.MaxPeriodicity, tx.undo[:0]
	return tx
}

// commit ends the transaction, dropping the journal (and the pointers it
// holds).
func (tx *txn) commit() {
	if cap(tx.undo) > maxKeptJournal {
		tx.undo = nil // a large archival: do not keep its buffer for ever
		return
	}
	clear(tx.undo)
	tx.undo = tx.undo[:0]
}

// maxKeptJournal bounds the journal buffer a plan keeps between changes
// (an add or an update journals a few dozen steps).
const maxKeptJournal = 1024

// abort undoes every journaled step, last first.
func (tx *txn) abort() {
	for i := len(tx.undo) - 1; i >= 0; i-- {
		u := &tx.undo[i]
		switch u.kind {
		case undoSeriesAdd:
			_ = u.series.Remove(u.interval, u.resource)
		case undoSeriesRemove:
			_ = u.series.Add(u.interval, u.resource)
		case undoTableInsert:
			tx.st.table.Delete(idEntry{id: u.allocation.ID})
		case undoTableDelete:
			tx.st.table.ReplaceOrInsert(idEntry{id: u.allocation.ID, a: u.allocation})
		case undoBtreeInsert:
			u.tree.Delete(u.allocation)
		case undoBtreeDelete:
			u.tree.ReplaceOrInsert(u.allocation)
		case undoIndexInsert:
			u.index.delete(u.allocation, tx.st.own)
		case undoIndexDelete:
			u.index.insert(u.allocation, tx.st.own)
		case undoPeriodicInsert:
			u.periodic.delete(u.allocation, tx.st.own)
		case undoPeriodicDelete:
			u.periodic.insert(u.allocation, tx.st.own)
		case undoPatternNew:
			delete(u.patterns, u.period)
		case undoPatternDrop:
			u.patterns[u.period] = u.series
		case undoUserNew:
			delete(tx.st.users, u.allocation.User)
		case undoUserDrop:
			tx.st.users[u.allocation.User] = u.user
		case undoUserCount:
			u.user.n -= u.count
		case undoArea:
			u.areas.change(u.allocation.steps, -int64(u.count), tx.st.own)
		}
	}
	tx.commit()
}

func (tx *txn) log(u undo) { tx.undo = append(tx.undo, u) }

// seriesAdd adds r over iv to s, journaled.
func (tx *txn) seriesAdd(s *rle.Series, iv berth.Interval, r berth.Resource) error {
	if err := s.Add(iv, r); err != nil {
		return err
	}
	tx.log(undo{kind: undoSeriesAdd, series: s, interval: iv, resource: r})
	return nil
}

// seriesRemove removes r over iv from s, journaled.
func (tx *txn) seriesRemove(s *rle.Series, iv berth.Interval, r berth.Resource) error {
	if err := s.Remove(iv, r); err != nil {
		return err
	}
	tx.log(undo{kind: undoSeriesRemove, series: s, interval: iv, resource: r})
	return nil
}

// areaChange adds (sign 1) or removes (sign −1) a's steps to x, journaled.
func (tx *txn) areaChange(x *areaIndex, a *Allocation, sign int) {
	x.change(a.steps, int64(sign), tx.st.own)
	tx.log(undo{kind: undoArea, areas: x, allocation: a, count: sign})
}

// pattern returns m[p], creating it (journaled).
func (tx *txn) pattern(m map[berth.Duration]*rle.Series, p berth.Duration) *rle.Series {
	if s := m[p]; s != nil {
		return s
	}
	s := rle.New()
	m[p] = s
	tx.log(undo{kind: undoPatternNew, patterns: m, period: p})
	return s
}

// dropEmpty deletes m[p] when it holds nothing (journaled).
func (tx *txn) dropEmpty(m map[berth.Duration]*rle.Series, p berth.Duration) {
	if s := m[p]; s != nil && s.IsEmpty() {
		delete(m, p)
		tx.log(undo{kind: undoPatternDrop, patterns: m, period: p, series: s})
	}
}

// user returns a's user's state, creating it (journaled).
func (tx *txn) user(a *Allocation) *userState {
	us := tx.st.users[a.User]
	if us == nil {
		us = newUserState()
		tx.st.users[a.User] = us
		tx.log(undo{kind: undoUserNew, allocation: a})
	}
	return us
}

// count changes us.n by n, journaled.
func (tx *txn) count(us *userState, n int) {
	us.n += n
	tx.log(undo{kind: undoUserCount, user: us, count: n})
}

// tableInsert and tableDelete change the table, journaled.
func (tx *txn) tableInsert(a *Allocation) {
	tx.st.table.ReplaceOrInsert(idEntry{id: a.ID, a: a})
	tx.log(undo{kind: undoTableInsert, allocation: a})
}

func (tx *txn) tableDelete(a *Allocation) {
	if _, ok := tx.st.table.Delete(idEntry{id: a.ID}); ok {
		tx.log(undo{kind: undoTableDelete, allocation: a})
	}
}

// btreeInsert and btreeDelete change a btree, journaled.
func (tx *txn) btreeInsert(t *btree.BTreeG[*Allocation], a *Allocation) {
	t.ReplaceOrInsert(a)
	tx.log(undo{kind: undoBtreeInsert, tree: t, allocation: a})
}

func (tx *txn) btreeDelete(t *btree.BTreeG[*Allocation], a *Allocation) {
	if _, ok := t.Delete(a); ok {
		tx.log(undo{kind: undoBtreeDelete, tree: t, allocation: a})
	}
}

func keyOf(a *Allocation) ivKey { return ivKey{start: a.Start, end: a.End, id: a.ID} }

// indexInsert and indexDelete change an interval index, journaled.
func (tx *txn) indexInsert(x *ivIndex, a *Allocation) {
	x.insert(a, tx.st.own)
	tx.log(undo{kind: undoIndexInsert, index: x, allocation: a})
}

func (tx *txn) indexDelete(x *ivIndex, a *Allocation) {
	if x.delete(a, tx.st.own) {
		tx.log(undo{kind: undoIndexDelete, index: x, allocation: a})
	}
}

// periodicInsert and periodicDelete change a periodic index, journaled.
func (tx *txn) periodicInsert(x *periodicIndex, a *Allocation) {
	x.insert(a, tx.st.own)
	tx.log(undo{kind: undoPeriodicInsert, periodic: x, allocation: a})
}

func (tx *txn) periodicDelete(x *periodicIndex, a *Allocation) {
	if x.delete(a, tx.st.own) {
		tx.log(undo{kind: undoPeriodicDelete, periodic: x, allocation: a})
	}
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

// book adds (remove false) or removes the steps of a to s and, when us is
// given, to us too, journaled.
func (tx *txn) book(a *Allocation, s, us *rle.Series, remove bool) error {
	op := tx.seriesAdd
	if remove {
		op = tx.seriesRemove
	}
	for _, st := range a.steps {
		if st.Value.IsZero() {
			continue
		}
		if err := op(s, st.Interval, st.Value); err != nil {
			return err
		}
		if err := op(us, st.Interval, st.Value); err != nil {
			return err
		}
	}
	return nil
}

// add books a (a private copy, series built) into the state, its active
// span computed now; on error the caller aborts.
func (tx *txn) add(a *Allocation) error {
	active, ok := tx.activeSpan(a)
	return tx.insert(a, active, ok)
}

// restore books a restored allocation with the active span it was
// accepted with (computed against the capacity of that time, which may
// have changed since); on error the caller aborts.
func (tx *txn) restore(a *Allocation, active berth.Interval, hasActive bool) error {
	return tx.insert(a, active, hasActive)
}

// insert books a with the given active span: every index and aggregate
// of the state, for add and restore alike.
func (tx *txn) insert(a *Allocation, active berth.Interval, hasActive bool) error {
	if _, dup := tx.st.get(a.ID); dup {
		return &berth.FieldError{Field: "reservation-id", Value: a.ID, Kind: berth.ErrAlreadyExists,
			Reason: fmt.Sprintf("The specified Reservation with ID %v already exists", a.ID)}
	}
	p := a.Period()
	if p > 0 && tx.maxPeriod%p != 0 {
		return berth.InvalidField(fieldRecurrence, p,
			fmt.Sprintf("the reservation periodicity (%d) must be an exact divider of the system maxPeriod (%d)", p, tx.maxPeriod))
	}
	fail := func(err error) error { return berth.Wrap(err, "plan: booking", a.ID) }
	us := tx.user(a)
	if p > 0 {
		if err := tx.book(a, tx.pattern(tx.st.patterns, p), tx.pattern(us.patterns, p), false); err != nil {
			return fail(err)
		}
		// An allocation holding nothing leaves no empty pattern behind.
		tx.dropEmpty(tx.st.patterns, p)
		tx.dropEmpty(us.patterns, p)
		tx.periodicInsert(&tx.st.periodic, a)
		tx.periodicInsert(&us.periodic, a)
	} else {
		if err := tx.book(a, tx.st.total, us.total, false); err != nil {
			return fail(err)
		}
		tx.areaChange(&us.area, a, 1)
		tx.indexInsert(&tx.st.byInterval, a)
		tx.indexInsert(&us.byInterval, a)
	}
	a.active, a.hasActive = active, hasActive
	if a.hasActive {
		if err := tx.seriesAdd(us.count, a.active, activeUnit); err != nil {
			return fail(err)
		}
	}
	tx.count(us, 1)
	tx.tableInsert(a)
	tx.btreeInsert(tx.st.byEnd, a)
	return nil
}

// remove unbooks the stored reservation a; on error the caller aborts.
func (tx *txn) remove(a *Allocation) error {
	us := tx.user(a)
	fail := func(err error) error { return berth.Wrap(err, "plan: unbooking", a.ID) }
	if p := a.Period(); p > 0 {
		if err := tx.book(a, tx.pattern(tx.st.patterns, p), tx.pattern(us.patterns, p), true); err != nil {
			return fail(err)
		}
		tx.dropEmpty(tx.st.patterns, p)
		tx.dropEmpty(us.patterns, p)
		tx.periodicDelete(&tx.st.periodic, a)
		tx.periodicDelete(&us.periodic, a)
	} else {
		if err := tx.book(a, tx.st.total, us.total, true); err != nil {
			return fail(err)
		}
		tx.areaChange(&us.area, a, -1)
		tx.indexDelete(&tx.st.byInterval, a)
		tx.indexDelete(&us.byInterval, a)
	}
	if a.hasActive {
		if err := tx.seriesRemove(us.count, a.active, activeUnit); err != nil {
			return fail(err)
		}
	}
	tx.count(us, -1)
	tx.tableDelete(a)
	tx.btreeDelete(tx.st.byEnd, a)
	if us.n == 0 {
		delete(tx.st.users, a.User)
		tx.log(undo{kind: undoUserDrop, allocation: a, user: us})
	}
	return nil
}
