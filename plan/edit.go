package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/berthsched/berth"
)

// The write side of a plan (YARN's PlanEdit): add, update, delete and
// archive reservations, each an all-or-nothing transaction.

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
func (p *Plan) AddReservation(a *Allocation) error { return p.add(a, true) }

// RecoverReservation adds a without policy validation and keeps its
// acceptance time (YARN's addReservation(res, true), used on recovery).
func (p *Plan) RecoverReservation(a *Allocation) error { return p.add(a, false) }

// add is AddReservation (validate) and RecoverReservation: a copy of a is
// checked outside the lock, then added under it.
func (p *Plan) add(a *Allocation, validate bool) error {
	if err := p.writable(); err != nil {
		return err
	}
	c, err := p.prepare(a)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addLocked(c, validate)
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
	if p.observer != nil {
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
	if p.observer != nil {
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
	if p.observer != nil {
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
	if p.observer != nil {
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
