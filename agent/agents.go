package agent

import (
	"errors"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// NewGreedy returns YARN's GreedyReservationAgent: an iterative planner with
// unconstrained stage windows and the greedy-RLE allocator.
func NewGreedy(o Config) (*IterativePlanner, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return newPlanner(Unconstrained{}, GreedyRLE{}, o, newStepBuffers()), nil
}

// NewAlignedPlannerWithGreedy returns YARN's default agent,
// AlignedPlannerWithGreedy: the low-cost aligned planner (stage windows by
// demand), and when it fails the greedy agent.
func NewAlignedPlannerWithGreedy(o Config) (*TryMany, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	bufs := newStepBuffers() // shared: the two never run at once for one call
	aligned := newPlanner(ByDemand{}, LowCostAligned{SmoothnessFactor: o.SmoothnessFactor}, o, bufs)
	greedy := newPlanner(Unconstrained{}, GreedyRLE{}, o, bufs)
	return &TryMany{Agents: []plan.Agent{aligned, greedy}}, nil
}

// TryMany is YARN's TryManyReservationAgents: it tries its agents in order
// and stops at the first that succeeds. When all fail it returns the last
// failure. A failure that is not about planning (an unknown or duplicate
// reservation, a denied or invalid state) stops the search at once, as
// YARN lets non-planning exceptions through. It is safe for concurrent use
// when its agents are.
type TryMany struct {
	Agents []plan.Agent
}

var _ plan.Agent = (*TryMany)(nil)

// CreateReservation tries each agent's CreateReservation in turn.
func (t *TryMany) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return t.try(func(a plan.Agent) error { return a.CreateReservation(p, id, user, def) })
}

// UpdateReservation tries each agent's UpdateReservation in turn.
func (t *TryMany) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return t.try(func(a plan.Agent) error { return a.UpdateReservation(p, id, user, def) })
}

// DeleteReservation removes reservation id from p.
func (t *TryMany) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return deleteReservation(p, id)
}

func (t *TryMany) try(f func(plan.Agent) error) error {
	if len(t.Agents) == 0 {
		return &NoPlacementError{Agent: "TryMany", Stage: -1, Reason: "no agent to try"}
	}
	var last error
	for _, a := range t.Agents {
		err := f(a)
		if err == nil {
			return nil
		}
		if fatal(err) {
			return err
		}
		last = err
	}
	return last
}

// fatal reports errors that are not planning failures.
func fatal(err error) bool {
	for _, k := range []error{berth.ErrNotFound, berth.ErrAlreadyExists, berth.ErrConflict,
		berth.ErrPermissionDenied, berth.ErrInvalidState} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
