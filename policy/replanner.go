package policy

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// SimpleCapacityReplanner repairs a plan that holds more than its capacity
// (after [plan.Plan.SetCapacity] shrank it) by deleting reservations: YARN's
// SimpleCapacityReplanner. Scanning the plan step by step from now, at each
// time the plan is over-committed it deletes the reservations active then,
// most recently accepted first, until the excess is gone. Only
// [now, now + EnforcementWindow) is repaired (and not beyond the end of the
// last non-periodic reservation), as in YARN. Build it with
// [NewSimpleCapacityReplanner]; it holds no mutable state.
type SimpleCapacityReplanner struct {
	cfg ReplannerConfig
}

var _ plan.Replanner = (*SimpleCapacityReplanner)(nil)

// NewSimpleCapacityReplanner returns the replanner for cfg, or the invalid
// field of cfg as a *berth.FieldError.
func NewSimpleCapacityReplanner(cfg ReplannerConfig) (*SimpleCapacityReplanner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &SimpleCapacityReplanner{cfg: cfg}, nil
}

// Config returns the replanner's configuration.
func (r *SimpleCapacityReplanner) Config() ReplannerConfig { return r.cfg }

// Plan repairs p at time now and returns the first error of a deletion.
// New contracts are not supported: a non-empty contracts is an error of
// kind berth.ErrInvalidArgument (YARN throws a RuntimeException).
//
// YARN visits every step of the window; the plan can only change where a
// reservation starts or ends or its allocation changes, and a step that
// deletes nothing leaves the plan as it was, so Berth visits only the first
// step at or after each such time. The decisions are the same.
func (r *SimpleCapacityReplanner) Plan(p *plan.Plan, contracts []plan.Definition, now berth.Time) error {
	if p == nil {
		return berth.InvalidField("plan", nil, "must not be nil")
	}
	if len(contracts) > 0 {
		return berth.InvalidField("contracts", len(contracts), "SimpleCapacityReplanner cannot handle new reservation contracts")
	}
	last, ok := p.LastEnd()
	if !ok {
		return nil
	}
	end := min(last, satAdd(now, r.cfg.EnforcementWindow))
	if now >= end {
		return nil
	}
	step := p.Step()
	if step <= 0 {
		step = plan.DefaultStep
	}
	w := berth.Interval{Start: now, End: end}
	times, ok := r.changeTimes(p, w, step)
	calc, capacity := p.Calculator(), p.Capacity()
	visit := func(t berth.Time) error {
		excess := p.TotalCommitted(t).Sub(capacity)
		if !berth.GreaterThan(calc, capacity, excess, berth.Resource{}) {
			return nil
		}
		active := p.ReservationsAt(t)
		slices.SortFunc(active, replanOrder)
		for _, a := range active {
			if !berth.GreaterThan(calc, capacity, excess, berth.Resource{}) {
				break
			}
			if err := p.DeleteReservation(a.ID); err != nil {
				return err
			}
			excess = excess.Sub(a.ResourcesAt(t))
		}
		return nil
	}
	if !ok {
		// Too many changes to list: YARN's own step loop.
		for t := now; t < end; t = satAdd(t, step) {
			if err := visit(t); err != nil {
				return err
			}
		}
		return nil
	}
	for _, t := range times {
		if err := visit(t); err != nil {
			return err
		}
	}
	return nil
}

// replanOrder is YARN's ReservationAllocation order: later acceptance
// first, then larger sequence number; Berth breaks the remaining ties on
// the larger cluster timestamp (YARN's TreeSet would drop one of the two).
func replanOrder(a, b *plan.Allocation) int {
	switch {
	case a.AcceptedAt != b.AcceptedAt:
		if a.AcceptedAt > b.AcceptedAt {
			return -1
		}
		return 1
	case a.ID.Sequence != b.ID.Sequence:
		if a.ID.Sequence > b.ID.Sequence {
			return -1
		}
		return 1
	case a.ID.ClusterTimestamp != b.ID.ClusterTimestamp:
		if a.ID.ClusterTimestamp > b.ID.ClusterTimestamp {
			return -1
		}
		return 1
	}
	return 0
}

// changeTimes lists, ascending and on the step grid from w.Start, the
// first step at or after every time in w where the set of active
// reservations or their load can change. ok is false when that list would
// be longer than the step loop itself.
func (r *SimpleCapacityReplanner) changeTimes(p *plan.Plan, w berth.Interval, step berth.Duration) ([]berth.Time, bool) {
	limit := w.Len()/step + 1
	var raw []berth.Time
	add := func(t berth.Time) {
		if t >= w.Start && t < w.End {
			raw = append(raw, t)
		}
	}
	add(w.Start)
	for _, a := range allocationsOver(p, w, "") {
		add(a.Start)
		add(a.End)
		if a.IsPeriodic() {
			per := a.Period()
			if w.Len()/per+1 > limit {
				return nil, false
			}
			// Membership and load repeat every period.
			s, err := a.ResourcesOver(w)
			if err != nil {
				return nil, false
			}
			for st := range s.StepsIn(w) {
				add(st.Interval.Start)
				add(st.Interval.End)
			}
			for _, phase := range []berth.Time{a.Start, a.End} {
				k := floorDivTime(w.Start-phase, per)
				for t := phase + k*per; t < w.End; t += per {
					add(t)
				}
			}
			continue
		}
		for _, e := range a.Intervals {
			add(e.Interval.Start)
			add(e.Interval.End)
		}
		if int64(len(raw)) > 4*limit {
			return nil, false
		}
	}
	out := make([]berth.Time, 0, len(raw))
	for _, t := range raw {
		// first grid step at or after t
		k := (t - w.Start + step - 1) / step
		g := w.Start + k*step
		if g < w.End {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

func floorDivTime(t berth.Time, p berth.Duration) int64 {
	q := t / p
	if t%p != 0 && (t < 0) != (p < 0) {
		q--
	}
	return q
}
