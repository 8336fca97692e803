package agent

import (
	"errors"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Portfolio is an agent that is not YARN's, built to accept more of the
// area offered (resource × time) than YARN's agents do, from YARN's own
// parts plus one search of its own. It is deterministic and holds only its
// configuration, so it is safe for concurrent use. Build it with
// [NewPortfolio].
//
// For each definition it tries a short list of planners in turn and keeps
// the first placement found:
//
//   - One stage: YARN's greedy-RLE planner allocating late (from the
//     deadline backwards). Greedy-early packs every request against its
//     arrival, where the requests still to come want room too; late
//     placements leave the fronts of the windows open.
//   - R_ANY: the stages are tried largest area first (any one satisfies the
//     request, and the largest is the most area accepted; memory and vcores
//     count as shares of the plan's capacity), each with the low-cost
//     aligned planner and then the late greedy one before the next smaller
//     stage. YARN tries them in the order written and keeps the first that
//     fits.
//   - Several stages under R_ORDER or R_ORDER_NO_GAP: the low-cost aligned
//     planner (stage windows by demand, the least loaded candidate windows
//     first), the late greedy planner, the early greedy planner, and last a
//     chain search: every stage as one block of all its gangs, each block
//     starting where the previous one ends, at the latest start where all
//     fit (the only shape R_ORDER_NO_GAP allows, and one the greedy
//     planners, placing one stage at a time, often miss).
//   - Several stages under R_ALL: the same, the late greedy planner first
//     (the aligned one first accepts a little more, at twice the time).
//
// Gangs are always counted with every resource type (as the policy checks
// them), so a placement found is one the plan's policy accepts unless a
// quota of the policy refuses it. A definition of several stages (or an
// R_ANY alternative) with a stage that the plan's load steps show has no
// stretch with room for its gangs, in the only part of the window it can
// use, is refused (or skipped) before any planner runs: none could place
// it. Its results on the yardstick's streams are in WORKLOADS.md.
//
// Only [NewPortfolio] makes a usable Portfolio: the zero value has no
// planners and is not one (placing with it panics).
type Portfolio struct {
	single, anyOf, all, ordered []*IterativePlanner
	// opts are the options it was built with, for its snapshot spec.
	opts Config
}

var _ plan.Agent = (*Portfolio)(nil)

// NewPortfolio returns a [Portfolio]. Of o, SmoothnessFactor tunes its
// low-cost aligned planner and ExactScan its greedy scans;
// FavorEarlyAllocation and ComponentwiseFit are set by the portfolio
// itself.
func NewPortfolio(o Config) (*Portfolio, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	late := o
	late.FavorEarlyAllocation, late.ComponentwiseFit = false, true
	early := late
	early.FavorEarlyAllocation = true
	bufs := newStepBuffers()
	greedyLate := newPlanner(Unconstrained{}, GreedyRLE{}, late, bufs)
	greedyEarly := newPlanner(Unconstrained{}, GreedyRLE{}, early, bufs)
	aligned := newPlanner(ByDemand{}, LowCostAligned{SmoothnessFactor: o.SmoothnessFactor}, late, bufs)
	return &Portfolio{
		single:  []*IterativePlanner{greedyLate},
		anyOf:   []*IterativePlanner{aligned, greedyLate},
		all:     []*IterativePlanner{greedyLate, aligned, greedyEarly},
		ordered: []*IterativePlanner{aligned, greedyLate, greedyEarly},
		opts:    o,
	}, nil
}

// CreateReservation places def for user and adds it to p under id.
func (f *Portfolio) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(f.Place).create(p, id, user, def)
}

// UpdateReservation replaces reservation id of p with a new placement of
// def; the old version's resources are available to the new one.
func (f *Portfolio) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(f.Place).update(p, id, user, def)
}

// DeleteReservation removes reservation id from p.
func (f *Portfolio) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return deleteReservation(p, id)
}

// Place computes where def would go in p without changing p: the
// allocation CreateReservation would add.
func (f *Portfolio) Place(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	if err := checkPlan(p); err != nil {
		return nil, err
	}
	ps, stages, err := f.compute(planAdapter{p: p, bufs: f.single[0].bufs}, id, user, def)
	if err != nil {
		return nil, err
	}
	return allocationOf(ps, stages, id, user, def, contractWindow(def))
}

// planners are the planners tried in turn on def (R_ANY of several stages
// goes stage by stage through anyOf instead).
func (f *Portfolio) planners(def plan.Definition) []*IterativePlanner {
	switch {
	case len(def.Stages) <= 1:
		return f.single
	case def.Interpreter == plan.RAll:
		return f.all
	default:
		return f.ordered
	}
}

// compute returns the canonical placement of def and each stage's
// placement (indexed as def.Stages, nil for a stage not placed).
func (f *Portfolio) compute(v planView, id plan.ReservationID, user string, def plan.Definition) ([]placement, [][]placement, error) {
	multi := len(def.Stages) > 1
	if multi {
		m := newLoadsMemo(v, id, def)
		defer m.done()
		v = m
	}
	if multi && stagesValid(v, def) && hopeless(v, id, user, def, f.all[0].Config) {
		// Some stage every placement needs has no room: no planner runs.
		return nil, nil, &NoPlacementError{Agent: "Portfolio", Stage: -1, Reason: reasonNoRoom}
	}
	if multi && def.Interpreter == plan.RAny {
		return f.anyStage(v, id, user, def)
	}
	var last error
	for _, ip := range f.planners(def) {
		ps, stages, err := ip.compute(v, id, user, def)
		if err == nil {
			return ps, stages, nil
		}
		if !errors.Is(err, berth.ErrNoPlacement) {
			return nil, nil, err
		}
		last = err
	}
	if multi {
		stages, ok, err := chain(v, id, user, def)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			var all []placement
			per := make([][]placement, len(stages))
			for i, x := range stages {
				per[i] = []placement{x}
				all = append(all, x)
			}
			return canonical(all), per, nil
		}
	}
	return nil, nil, last
}

// stagesValid reports whether every stage of def passes the planners'
// validation (which then report the invalid ones themselves).
func stagesValid(v planView, def plan.Definition) bool {
	for i, s := range def.Stages {
		if validateStage(i, s, v.capacity(), v.maxAllocation(), v.calculator()) != nil {
			return false
		}
	}
	return true
}

// anyStage places the largest stage of an R_ANY definition that any
// planner of the list can place: stage by stage, largest area first, each
// tried with every planner before the next smaller one.
func (f *Portfolio) anyStage(v planView, id plan.ReservationID, user string, def plan.Definition) ([]placement, [][]placement, error) {
	for i, s := range def.Stages {
		if err := validateStage(i, s, v.capacity(), v.maxAllocation(), v.calculator()); err != nil {
			return nil, nil, err
		}
	}
	order := largestFirst(def.Stages, v.step(), v.capacity())
	var last error
	for _, i := range order {
		one := def
		one.Stages = def.Stages[i : i+1]
		if hopeless(v, id, user, one, f.all[0].Config) {
			last = &NoPlacementError{Agent: "Portfolio", Stage: i, Reason: reasonNoRoom}
			continue
		}
		for _, ip := range f.anyOf {
			ps, _, err := ip.compute(v, id, user, one)
			if err == nil {
				stages := make([][]placement, len(def.Stages))
				stages[i] = ps
				return ps, stages, nil
			}
			if !errors.Is(err, berth.ErrNoPlacement) {
				return nil, nil, err
			}
			last = err
		}
	}
	return nil, nil, last
}

// largestFirst returns the indices of stages, largest first by offered
// area, memory and vcores each as a share of the plan's capacity, summed
// (a stage heavy in either counts); ties keep the order written.
func largestFirst(stages []plan.Stage, step berth.Duration, capacity berth.Resource) []int {
	w := shareWeights(capacity)
	order := make([]int, len(stages))
	size := make([]float64, len(stages))
	for i, s := range stages {
		order[i] = i
		a := OfferedArea(plan.Definition{Stages: []plan.Stage{s}}, step)
		size[i] = a.Memory*w[0] + a.VCores*w[1]
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmpFloat(size[y], size[x]) })
	return order
}

// shareWeights turns memory and vcores into shares of the capacity (0 for
// a type the plan has none of).
func shareWeights(c berth.Resource) [2]float64 {
	var w [2]float64
	if c.Memory > 0 {
		w[0] = 1 / float64(c.Memory)
	}
	if c.VCores > 0 {
		w[1] = 1 / float64(c.VCores)
	}
	return w
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
