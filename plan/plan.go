package plan

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/rle"
)

// Plan is the reservations of one reservable queue over time: YARN's
// InMemoryPlan. It records accepted allocations, answers the queries agents,
// policies and the plan follower need, and applies every change as one
// all-or-nothing step after the sharing policy admitted it.
//
// A Plan is safe for concurrent use: reads share a read lock, changes take
// the write lock. Every change is a journaled transaction undone on
// failure, and storage is copy-on-write, so [Plan.Snapshot] is cheap and a
// rejected change leaves no trace.
//
// Only [New] makes a usable Plan: the zero value is not one (its methods
// panic).
type Plan struct {
	cfg Config
	mu  sync.RWMutex
	st  *state
	// view marks a read-only view handed to a policy during a call: its
	// state may be shared with a plan that is being changed, so it never
	// clones series (clones touch the source).
	view bool
	// vw is the plan's read-only view, made once (st never changes).
	vw *Plan
	// obs is the host's observer (observe.go); nil: none. Snapshots and
	// views never have one.
	obs Observer
	// tx is the transaction of the current change (under the write lock),
	// kept so that its journal buffer is reused.
	tx txn
	// ids tells the System holding the plan what it holds and removed.
	ids idLedger
}

// New returns an empty plan with the given context (see [Config]).
func New(cfg Config) (*Plan, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	return newPlan(cfg, newState(cfg.Capacity)), nil
}

// newPlan returns a plan of st with its read-only view.
func newPlan(cfg Config, st *state) *Plan {
	p := &Plan{cfg: cfg, st: st}
	p.vw = &Plan{cfg: cfg, st: st, view: true}
	p.vw.vw = p.vw
	return p
}

// viewOf returns st as a read-only plan for a policy call.
func (p *Plan) viewOf(st *state) *Plan {
	if p.vw != nil && p.vw.st == st {
		return p.vw
	}
	return &Plan{cfg: p.cfg, st: st, view: true}
}

// ---- context (YARN's PlanContext) ----

// QueueName returns the queue the plan serves.
func (p *Plan) QueueName() string { return p.cfg.Queue }

// Step returns the plan step in ms.
func (p *Plan) Step() berth.Duration { return p.cfg.Step }

// Agent returns the plan's reservation agent (may be nil).
func (p *Plan) Agent() Agent { return p.cfg.Agent }

// Replanner returns the plan's replanner (may be nil).
func (p *Plan) Replanner() Replanner { return p.cfg.Replanner }

// Policy returns the plan's sharing policy (may be nil).
func (p *Plan) Policy() SharingPolicy { return p.cfg.Policy }

// Calculator returns the plan's resource calculator.
func (p *Plan) Calculator() berth.Calculator { return p.cfg.Calculator }

// MinAllocation returns the smallest container size.
func (p *Plan) MinAllocation() berth.Resource { return p.cfg.MinAllocation }

// MaxAllocation returns the largest container size.
func (p *Plan) MaxAllocation() berth.Resource { return p.cfg.MaxAllocation }

// MoveOnExpiry reports whether expired reservations' applications move to
// the default reservation queue (else they are killed).
func (p *Plan) MoveOnExpiry() bool { return p.cfg.MoveOnExpiry }

// MaxPeriodicity returns the largest recurrence; every period divides it.
func (p *Plan) MaxPeriodicity() berth.Duration { return p.cfg.MaxPeriodicity }

// Clock returns the plan's clock.
func (p *Plan) Clock() berth.Clock { return p.cfg.Clock }

// Config returns a copy of the plan's context.
func (p *Plan) Config() Config { return p.cfg }

// ---- read side (YARN's PlanView) ----

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

// AvailableResources returns what user may still reserve over window
// (YARN's getAvailableResourceOverTime): capacity minus every reservation,
// with the reservation oldID (if any, for an update) added back, lowered by
// the sharing policy. For period > 0 it is the pointwise minimum (under the
// calculator) over the instances window + i·period, i < MaxPeriodicity/period,
// expressed over window. The result is defined inside window only.
//
// Errors: an over-committed plan inside window (*rle.NegativeError, kind
// berth.ErrCapacityExceeded), a period that does not divide
// MaxPeriodicity or is shorter than the window (berth.ErrInvalidArgument).
func (p *Plan) AvailableResources(user string, oldID ReservationID, window berth.Interval, period berth.Duration) (*rle.Series, error) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.available(p.st, user, oldID, window, period)
}

func (p *Plan) available(st *state, user string, oldID ReservationID, window berth.Interval, period berth.Duration) (*rle.Series, error) {
	if period < 0 {
		return nil, berth.InvalidField("period", period, "must not be negative")
	}
	if period == 0 || window.Start >= window.End {
		// An empty or reversed window answers the same for every
		// instance: no need to count them (up to a day's worth of
		// milliseconds) first.
		return p.availableOnce(st, user, oldID, window)
	}
	maxP := p.cfg.MaxPeriodicity
	if maxP%period != 0 {
		return nil, berth.InvalidField("period", period,
			fmt.Sprintf("The reservation periodicity (%d) must be an exact divider of the system maxPeriod (%d)", period, maxP))
	}
	if period < window.Len() {
		return nil, berth.InvalidField("window", window,
			fmt.Sprintf("Invalid input: (end - start) = (%d - %d) = %d > period = %d", window.End, window.Start, window.Len(), period))
	}
	// YARN takes the instances i = 0 … MaxPeriodicity/period − 1. The
	// periodic part of the plan repeats every MaxPeriodicity, so that covers
	// it; but non-periodic reservations before the window (or beyond one
	// MaxPeriodicity) would meet the request's earlier or later occurrences
	// unchecked and the plan could over-commit. Berth adds the instances
	// that meet a non-periodic reservation.
	instances, err := periodicInstances(st.total, window, period, maxP)
	if err != nil {
		return nil, err
	}
	out, err := p.availableOnce(st, user, oldID, window)
	if err != nil {
		return nil, err
	}
	for _, i := range instances {
		if i == 0 {
			continue
		}
		d := i * period
		shifted := berth.Interval{Start: window.Start + d, End: window.End + d}
		if d/period != i || satAddDur(window.Start, d) != shifted.Start || satAddDur(window.End, d) != shifted.End {
			return nil, berth.InvalidField("window", window,
				fmt.Sprintf("instance %d of the %d ms period lies beyond the range of time", i, period))
		}
		snap, err := p.availableOnce(st, user, oldID, shifted)
		if err != nil {
			return nil, err
		}
		if p.cfg.ExactPeriodicMin {
			if out, err = componentwiseMin(out, snap.Shift(-d), window); err != nil {
				return nil, err
			}
			continue
		}
		if out, err = rle.Merge(p.cfg.Calculator, st.capacity, out, snap.Shift(-d), rle.OpMin, window); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p *Plan) availableOnce(st *state, user string, oldID ReservationID, window berth.Interval) (*rle.Series, error) {
	if window.Start > window.End {
		return nil, berth.InvalidField("window", window, "start must not be after end")
	}
	if window.Start == window.End {
		// YARN's merges give {start: null}: nothing is available.
		return rle.Undefined(), nil
	}
	net, err := physicalAvailable(st, oldID, window)
	if err != nil {
		return nil, err
	}
	if p.cfg.Policy == nil {
		return net, nil
	}
	return p.cfg.Policy.Available(net, p.viewOf(st), user, oldID, window)
}

// physicalAvailable is capacity minus the plan's load over the valid
// window, the reservation oldID (if any) added back, undefined outside
// window: YARN's merges (subtract-test-non-negative of the non-periodic
// load, then of the periodic one, then add), in one walk of the steps.
// Over-commit inside window is an *rle.NegativeError at the first time the
// non-periodic load, else the whole load, exceeds the capacity, as YARN's
// successive merges report it.
func physicalAvailable(st *state, oldID ReservationID, window berth.Interval) (*rle.Series, error) {
	capacity := st.capacity
	if len(st.patterns) > 0 {
		for s := range st.total.StepsIn(window) {
			if !s.Value.FitsIn(capacity) {
				return nil, &rle.NegativeError{Time: s.Interval.Start, Value: capacity.Sub(s.Value)}
			}
		}
	}
	steps, err := loadSteps(nil, st.total, st.patterns, window)
	if err != nil {
		return nil, err
	}
	for i, s := range steps {
		if !s.Value.FitsIn(capacity) {
			return nil, &rle.NegativeError{Time: s.Interval.Start, Value: capacity.Sub(s.Value)}
		}
		steps[i].Value = capacity.Sub(s.Value)
	}
	if old, ok := st.get(oldID); ok && !oldID.IsZero() {
		if steps, err = addBack(steps, old, window); err != nil {
			return nil, err
		}
	}
	return seriesOver(steps, window, func(r berth.Resource) berth.Resource { return r })
}

// addBack adds old's resources over window to steps (covering window).
func addBack(steps []rle.Step, old *Allocation, window berth.Interval) ([]rle.Step, error) {
	back, err := old.ResourcesOver(window)
	if err != nil {
		return nil, err
	}
	out := make([]rle.Step, 0, len(steps)+4)
	emit := func(iv berth.Interval, r berth.Resource) {
		if n := len(out); n > 0 && out[n-1].Value.Equal(r) {
			out[n-1].Interval.End = iv.End
			return
		}
		out = append(out, rle.Step{Interval: iv, Value: r})
	}
	for _, s := range steps {
		for b := range back.StepsIn(s.Interval) {
			if sumOverflows(s.Value, b.Value) {
				return nil, berth.InvalidField("operand", b.Interval.Start, "add overflows int64 at this time")
			}
			emit(b.Interval, s.Value.Add(b.Value))
		}
	}
	return out, nil
}

// componentwiseMin is the pointwise, componentwise minimum of a and b over
// window, undefined elsewhere; where only one is defined it is taken, as
// rle.Merge does.
func componentwiseMin(a, b *rle.Series, window berth.Interval) (*rle.Series, error) {
	var times []berth.Time
	for _, s := range []*rle.Series{a, b} {
		for st := range s.StepsIn(window) {
			times = append(times, st.Interval.Start, st.Interval.End)
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	bps := make([]rle.Breakpoint, 0, len(times)+1)
	for _, t := range times {
		if t >= window.End {
			break
		}
		va, da := a.Lookup(t)
		vb, db := b.Lookup(t)
		p := rle.Breakpoint{Time: t}
		switch {
		case da && db:
			p.Value = berth.ComponentwiseMin(va, vb)
		case da:
			p.Value = va
		case db:
			p.Value = vb
		default:
			p.Undefined = true
		}
		bps = append(bps, p)
	}
	bps = append(bps, rle.Breakpoint{Time: window.End, Undefined: true})
	return rle.FromBreakpoints(bps...)
}

// periodicInstances lists, in order, the instances i whose windows
// window + i·period a periodic request must be checked on: YARN's
// 0 … maxP/period − 1 (the periodic part of the plan repeats every maxP),
// plus those meeting a non-zero step of the non-periodic load outside
// [window.Start, window.Start + maxP). The cost is in the steps of that
// load outside the base range, not in time.
func periodicInstances(total *rle.Series, window berth.Interval, period, maxP berth.Duration) ([]int64, error) {
	if maxP/period > maxUnrolledPeriods { // YARN's instances alone are too many
		return nil, berth.InvalidField("period", period,
			fmt.Sprintf("the request meets more than %d instances of its %d ms period", maxUnrolledPeriods, period))
	}
	type span struct{ lo, hi int64 } // inclusive
	spans := []span{{0, maxP/period - 1}}
	base := berth.Interval{Start: window.Start, End: window.Start + maxP}
	var tooFar error
	visit := func(iv berth.Interval) {
		if !iv.Valid() {
			return
		}
		for st := range total.StepsIn(iv) {
			if st.Value.IsZero() {
				continue
			}
			// window + i·period meets [a, b) iff floor((a−e)/p) < i < ceil((b−s)/p).
			da, ok1 := subChecked(st.Interval.Start, window.End)
			db, ok2 := subChecked(st.Interval.End, window.Start)
			if !ok1 || !ok2 {
				// The occurrence meeting this step is further than int64
				// can offset: refuse rather than skip it.
				tooFar = berth.InvalidField("window", window,
					fmt.Sprintf("a reservation at %d is too far from the request for its %d ms period", st.Interval.Start, period))
				return
			}
			lo, hi := floorDiv(da, period)+1, ceilDiv(db, period)-1
			if lo <= hi {
				spans = append(spans, span{lo, hi})
			}
		}
	}
	if es, ok := total.EarliestStart(); ok {
		visit(berth.Interval{Start: es, End: base.Start})
	}
	if le, ok := total.LatestEnd(); ok {
		visit(berth.Interval{Start: base.End, End: le})
	}
	if tooFar != nil {
		return nil, tooFar
	}
	slices.SortFunc(spans, func(a, b span) int { return cmpInt(a.lo, b.lo) })
	var out []int64
	next := int64(math.MinInt64)
	for _, sp := range spans {
		for i := max(sp.lo, next); i <= sp.hi; i++ {
			if len(out) >= maxUnrolledPeriods {
				return nil, berth.InvalidField("period", period,
					fmt.Sprintf("the request meets more than %d instances of its %d ms period", maxUnrolledPeriods, period))
			}
			out = append(out, i)
		}
		next = max(next, sp.hi+1)
	}
	return out, nil
}

// ceilDiv is ⌈t / p⌉ for p > 0.
func ceilDiv(t berth.Time, p berth.Duration) int64 {
	q := t / p
	if t%p != 0 && t > 0 {
		q++
	}
	return q
}

// subChecked is a − b and whether it fits in int64.
func subChecked(a, b int64) (int64, bool) {
	d := a - b
	return d, (b >= 0 && d <= a) || (b < 0 && d > a)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// constant is capacity over window, undefined elsewhere.
func constant(window berth.Interval, r berth.Resource) (*rle.Series, error) {
	return rle.FromBreakpoints(rle.Breakpoint{Time: window.Start, Value: r}, rle.Breakpoint{Time: window.End, Undefined: true})
}

// ---- write side (YARN's PlanEdit) ----

// prepare checks a and returns the plan's private copy, series rebuilt from
// the intervals (so later changes to a cannot reach the plan).
func (p *Plan) prepare(a *Allocation) (*Allocation, error) {
	if a == nil {
		return nil, berth.InvalidField("allocation", nil, "must not be nil")
	}
	if a.ID.IsZero() {
		return nil, berth.InvalidField("reservation-id", a.ID, "must be set")
	}
	if a.User == "" {
		return nil, berth.InvalidField("user", a.User,
			fmt.Sprintf("The specified Reservation with ID %v is not mapped to any user", a.ID))
	}
	if a.Start > a.End {
		return nil, berth.InvalidField("allocation.end", a.End, fmt.Sprintf("must not precede start %d", a.Start))
	}
	c := *a
	c.Definition = a.Definition.Clone()
	c.Queue = p.cfg.Queue
	c.active, c.hasActive = berth.Interval{}, false
	c.Stages = slices.Clone(a.Stages)
	if a.builtFromCurrent() {
		// The series and the frozen intervals are never changed after
		// build, so the plan's copy can share them.
		c.Intervals = a.frozen
	} else {
		c.Intervals = slices.Clone(a.Intervals)
		if err := c.build(); err != nil {
			return nil, err
		}
	}
	if err := c.checkStages(); err != nil {
		return nil, err
	}
	return &c, nil
}

// ErrReadOnlyView is returned (wrapped, kind berth.ErrInvalidState) by the
// write methods of the view a policy receives.
var ErrReadOnlyView = errors.New("plan: a policy's view is read-only")

func (p *Plan) writable() error {
	if p.view {
		return &berth.FieldError{Field: "plan", Value: p.cfg.Queue, Kind: berth.ErrInvalidState,
			Reason: "cannot change a policy's view of the plan", Err: ErrReadOnlyView}
	}
	return nil
}

// AddReservation validates a with the sharing policy, stamps its acceptance
// time from the clock and adds a copy to the plan (YARN's
// addReservation(res, false)). The stored copy is returned by the read
// methods; a itself is not changed.
//
// Errors: berth.ErrAlreadyExists for a known id, berth.ErrInvalidArgument
// for a malformed allocation, the policy's error (berth.ErrCapacityExceeded)
// for a rejection. On error the plan is unchanged.
func (p *Plan) AddReservation(a *Allocation) error {
	if err := p.writable(); err != nil {
		return err
	}
	c, err := p.prepare(a)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addLocked(c, true)
}

// RecoverReservation adds a without policy validation and keeps its
// acceptance time (YARN's addReservation(res, true), used on recovery).
func (p *Plan) RecoverReservation(a *Allocation) error {
	if err := p.writable(); err != nil {
		return err
	}
	c, err := p.prepare(a)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addLocked(c, false)
}

func (p *Plan) addLocked(c *Allocation, validate bool) error {
	if _, dup := p.st.get(c.ID); dup {
		return &berth.FieldError{Field: "reservation-id", Value: c.ID, Kind: berth.ErrAlreadyExists,
			Reason: fmt.Sprintf("The specified Reservation with ID %v already exists", c.ID)}
	}
	if validate {
		if err := p.validate(p.st, c); err != nil {
			return err
		}
		c.AcceptedAt = p.cfg.Clock.Now()
	}
	tx := p.begin(p.st)
	if err := tx.add(c); err != nil {
		tx.abort()
		return err
	}
	p.ids.added(c.ID)
	if p.obs != nil {
		p.emit(ReservationAccepted, c)
	}
	return nil
}

func (p *Plan) validate(st *state, c *Allocation) error {
	if p.cfg.Policy == nil {
		return nil
	}
	return p.cfg.Policy.Validate(p.viewOf(st), c)
}

// UpdateReservation replaces the reservation a.ID with a, as one
// transaction: the old version is removed, a is validated by the policy
// against the plan without the old version, stamped and added. If anything
// fails the plan keeps the old version exactly as it was (same acceptance
// time); YARN re-adds it with a new one.
//
// Errors: berth.ErrNotFound for an unknown id, else as AddReservation.
func (p *Plan) UpdateReservation(a *Allocation) error {
	if err := p.writable(); err != nil {
		return err
	}
	c, err := p.prepare(a)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old, ok := p.st.get(c.ID)
	if !ok {
		return notInPlan(c.ID)
	}
	tx := p.begin(p.st)
	if err := tx.remove(old); err != nil {
		tx.abort()
		return err
	}
	if err := p.validate(tx.st, c); err != nil {
		tx.abort()
		return err
	}
	c.AcceptedAt = p.cfg.Clock.Now()
	if err := tx.add(c); err != nil {
		tx.abort()
		return err
	}
	if p.obs != nil {
		p.emit(ReservationUpdated, c)
	}
	return nil
}

func notInPlan(id ReservationID) error {
	return &berth.FieldError{Field: "reservation-id", Value: id, Kind: berth.ErrNotFound,
		Reason: fmt.Sprintf("The specified Reservation with ID %v does not exist in the plan", id)}
}

// DeleteReservation removes the reservation id (YARN's deleteReservation).
// An unknown id is berth.ErrNotFound.
func (p *Plan) DeleteReservation(id ReservationID) error {
	if err := p.writable(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old, ok := p.st.get(id)
	if !ok {
		return notInPlan(id)
	}
	tx := p.begin(p.st)
	if err := tx.remove(old); err != nil {
		tx.abort()
		return err
	}
	p.ids.removed(id)
	if p.obs != nil {
		p.emit(ReservationDeleted, old)
	}
	return nil
}

// ArchiveCompleted removes the reservations that ended at or before
// now − the policy's valid window (YARN's archiveCompletedReservations) and
// returns their ids in (end, id) order. It costs O((1 + k) log n).
func (p *Plan) ArchiveCompleted(now berth.Time) ([]ReservationID, error) {
	if err := p.writable(); err != nil {
		return nil, err
	}
	var window berth.Duration
	if p.cfg.Policy != nil {
		window = p.cfg.Policy.ValidWindow()
	}
	archival := satSub(now, window) // saturated either way, a negative window included
	p.mu.Lock()
	defer p.mu.Unlock()
	var done []*Allocation
	p.st.byEnd.Ascend(func(a *Allocation) bool {
		if a.End > archival {
			return false
		}
		done = append(done, a)
		return true
	})
	if len(done) == 0 {
		return nil, nil
	}
	tx := p.begin(p.st)
	ids := make([]ReservationID, len(done))
	for i, a := range done {
		if err := tx.remove(a); err != nil {
			tx.abort()
			return nil, err
		}
		ids[i] = a.ID
	}
	p.ids.removed(ids...)
	if p.obs != nil {
		for _, a := range done {
			p.emit(ReservationExpired, a)
		}
	}
	return ids, nil
}

// SetCapacity changes the plan's total capacity (YARN's setTotalCapacity).
// Nothing is re-validated: a shrunk plan may be over-committed until the
// replanner repairs it. A negative resource is berth.ErrInvalidArgument.
func (p *Plan) SetCapacity(r berth.Resource) error {
	if err := p.writable(); err != nil {
		return err
	}
	if r.AnyNegative() {
		return berth.InvalidField("plan.capacity", r, "must not be negative")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.st.capacity = r
	return nil
}

// Snapshot returns an independent copy of the plan with the same context:
// changes to either never reach the other. Agents use it to plan
// speculatively. It is cheap: storage is shared copy-on-write, the cost is
// in the number of users and periods, not of reservations or time steps.
func (p *Plan) Snapshot() *Plan {
	if p.view {
		return newPlan(p.cfg, p.st.deepCopy(false))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return newPlan(p.cfg, p.st.deepCopy(true))
}

// Equal reports whether two plans hold the same reservations (by
// [Allocation.Equal]) and the same capacity. It reads both under their
// read locks; comparing a plan with itself is true, with nil false.
func (p *Plan) Equal(o *Plan) bool {
	if p == o {
		return true
	}
	if p == nil || o == nil {
		return false
	}
	a, b := p.All(), o.All()
	return p.Capacity().Equal(o.Capacity()) && slices.EqualFunc(a, b, (*Allocation).Equal)
}

// String summarises the plan for logs, as YARN's toString: queue, capacity,
// step and the number of reservations.
func (p *Plan) String() string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return fmt.Sprintf("In-memory Plan: Parent Queue: %s Total Capacity: %v Step: %d Reservations: %d",
		p.cfg.Queue, p.st.capacity, p.cfg.Step, p.st.table.Len())
}

// idLedger tells a [System] holding the plan which ids the plan holds and
// which it removed, whoever added or removed them (the system, or the plan
// follower and the replanner calling the plan directly). Its lock is a
// leaf: nothing else is locked while it is held, so the plan (under its
// own lock) and the system (under its own) can both take it, and the
// system reads what the plan holds without waiting on a change in
// progress (a policy may take its time validating one).
type idLedger struct {
	mu      sync.Mutex
	tracked bool
	held    map[ReservationID]struct{}
	gone    []ReservationID // removed since the system last took them
}

// track starts keeping the ledger (a system took the plan), with the ids
// the plan holds. The caller holds the plan's lock, so no change is missed.
func (g *idLedger) track(ids []ReservationID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tracked = true
	g.held = make(map[ReservationID]struct{}, len(ids))
	for _, id := range ids {
		g.held[id] = struct{}{}
	}
}

// added records an id the plan took.
func (g *idLedger) added(id ReservationID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tracked {
		g.held[id] = struct{}{}
	}
}

// removed records ids the plan dropped.
func (g *idLedger) removed(ids ...ReservationID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tracked {
		for _, id := range ids {
			delete(g.held, id)
		}
		g.gone = append(g.gone, ids...)
	}
}

// holds reports whether the plan holds id now.
func (g *idLedger) holds(id ReservationID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.held[id]
	return ok
}

// take returns and clears the ids removed since the last call.
func (g *idLedger) take() []ReservationID {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := g.gone
	g.gone = nil
	return ids
}

// trackIDs starts p's ledger with the ids p holds.
func (p *Plan) trackIDs() {
	p.mu.RLock()
	defer p.mu.RUnlock()
	ids := make([]ReservationID, 0, p.st.table.Len())
	p.st.table.Ascend(func(e idEntry) bool {
		ids = append(ids, e.id)
		return true
	})
	p.ids.track(ids)
}
