package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// placeFunc is an agent's Place. The agents differ only in how they place
// a definition; adding, replacing and building the allocation are the same
// for all of them and live here once.
type placeFunc func(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error)

// checkPlan refuses a call without a plan: a *berth.FieldError naming
// "plan", kind berth.ErrInvalidArgument.
func checkPlan(p *plan.Plan) error {
	if p == nil {
		return berth.InvalidField("plan", nil, "must not be nil")
	}
	return nil
}

// deleteReservation is every agent's DeleteReservation: the plan removes
// the reservation; agents keep nothing of it.
func deleteReservation(p *plan.Plan, id plan.ReservationID) error {
	if err := checkPlan(p); err != nil {
		return err
	}
	return p.DeleteReservation(id)
}

// create adds the placement of def to p under id. An interpreter outside
// the enum is refused before placing (plan.CheckInterpreter), so it is an
// invalid argument whatever the plan holds.
func (place placeFunc) create(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	if err := plan.CheckInterpreter(def.Interpreter); err != nil {
		return err
	}
	a, err := place(p, id, user, def)
	if err != nil {
		return err
	}
	return p.AddReservation(a)
}

// update replaces reservation id of p with the placement of def.
func (place placeFunc) update(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	if err := plan.CheckInterpreter(def.Interpreter); err != nil {
		return err
	}
	a, err := place(p, id, user, def)
	if err != nil {
		return err
	}
	return p.UpdateReservation(a)
}

// contractWindow is the span of the allocation YARN's agents add: the
// contract's window, not the placement's.
func contractWindow(def plan.Definition) berth.Interval {
	return berth.Interval{Start: def.Arrival, End: def.Deadline}
}

// allocationOf turns the canonical placement ps of def into the allocation
// of reservation id, spanning window, and says which stage holds what:
// stages[i] is stage i's placement (nil when not placed), recorded in
// canonical form in the allocation's Stages.
func allocationOf(ps []placement, stages [][]placement, id plan.ReservationID, user string, def plan.Definition, window berth.Interval) (*plan.Allocation, error) {
	ivs := make([]plan.IntervalResource, len(ps))
	for i, x := range ps {
		ivs[i] = plan.IntervalResource{Interval: x.iv, Resource: x.r}
	}
	a, err := plan.NewAllocation(id, user, def, window, ivs)
	if err != nil {
		return nil, err
	}
	for i, st := range stages {
		for _, x := range canonical(st) {
			a.Stages = append(a.Stages, plan.StageInterval{Stage: i, Interval: x.iv, Resource: x.r})
		}
	}
	return a, nil
}
