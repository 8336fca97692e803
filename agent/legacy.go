package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// LegacyGreedy is the greedy agent of YARN 2.x (GreedyReservationAgent of
// the parent package, before the planning package existed). It places stages last to first; each stage
// right to left, batch by batch: over the window [deadline − duration,
// deadline) it checks every step, places as many gangs as fit at all of
// them, and moves the deadline to the most constraining step. Under R_ORDER
// a stage must end before the next one starts; under R_ORDER_NO_GAP the gap
// may not exceed one step. The reservation starts at the aligned arrival
// (YARN 2.x pads the allocation with zero up to it) and ends with the last
// block.
//
// Its availability is the plan's capacity minus what the plan holds (the
// old version of the reservation added back); the sharing policy only has
// its say when the plan adds the result. Berth walks the availability from
// breakpoint to breakpoint instead of every step, with the same result. It
// is safe for concurrent use.
type LegacyGreedy struct {
	// ComponentwiseFit: see [Config.ComponentwiseFit].
	ComponentwiseFit bool
}

var _ plan.Agent = (*LegacyGreedy)(nil)

// CreateReservation places def for user and adds it to p under id.
func (g *LegacyGreedy) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(g.Place).create(p, id, user, def)
}

// UpdateReservation replaces reservation id with a new placement of def.
func (g *LegacyGreedy) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(g.Place).update(p, id, user, def)
}

// DeleteReservation removes reservation id from p.
func (g *LegacyGreedy) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return deleteReservation(p, id)
}

// Place computes the allocation CreateReservation would add, without
// changing p.
func (g *LegacyGreedy) Place(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	if err := checkPlan(p); err != nil {
		return nil, err
	}
	ps, stages, window, err := g.compute(newView(p), id, def)
	if err != nil {
		return nil, err
	}
	return allocationOf(ps, stages, id, user, def, window)
}

const legacyName = "LegacyGreedy"

// javaAlignUp and javaAlignDown are the 2.x agent's own roundings (Java's
// remainder, which differs from stepRoundUp for negative times).
func javaAlignUp(t, step int64) int64 {
	if step > 0 && t%step != 0 {
		if t > berth.MaxTime-2*step {
			return berth.MaxTime // would overflow: nothing fits
		}
		return t + (step - t%step)
	}
	return t
}

func javaAlignDown(t, step int64) int64 {
	if step <= 0 {
		return t
	}
	return t - t%step
}

func (g *LegacyGreedy) compute(v planView, id plan.ReservationID, def plan.Definition) ([]placement, [][]placement, berth.Interval, error) {
	step := v.step()
	earliest := javaAlignUp(def.Arrival, step)
	// Java's remainder rounds a negative deadline up, past itself; Berth
	// never places after the deadline.
	deadline := min(javaAlignDown(def.Deadline, step), def.Deadline)
	if len(def.Stages) == 0 {
		return nil, nil, berth.Interval{}, berth.InvalidField("reservation-definition.reservation-requests", 0, "No resources have been specified to reserve")
	}
	noPlacement := func(stage int) error {
		return &NoPlacementError{Agent: legacyName, Stage: stage, Reason: "The GreedyAgent couldn't find a valid allocation for your request"}
	}
	if earliest >= deadline {
		return nil, nil, berth.Interval{}, noPlacement(-1)
	}
	// net(t) = capacity + old(t) − committed(t) − what this job took.
	loads, err := v.loads(id, berth.Interval{Start: earliest, End: deadline})
	if err != nil {
		return nil, nil, berth.Interval{}, err
	}
	net := newFlat(earliest, deadline, v.capacity())
	subtractProfile(net, loads)
	curDeadline, oldDeadline := deadline, int64(-1)
	var all []placement
	stages := make([][]placement, len(def.Stages))
	kind := def.Interpreter
	for i := len(def.Stages) - 1; i >= 0; i-- {
		s := def.Stages[i]
		if err := validateStage(i, s, v.capacity(), v.maxAllocation(), v.calculator()); err != nil {
			return nil, nil, berth.Interval{}, err
		}
		j := stageJob{
			fitter:    fitter{calc: v.calculator(), cluster: v.capacity(), gang: s.Capability.MulInt(s.Concurrency), componentwise: g.ComponentwiseFit},
			container: s.Capability, concurrency: s.Concurrency, gangs: s.Containers / s.Concurrency,
			duration: stepRoundUp(s.Duration, step), requestedDuration: s.Duration, step: step,
		}
		cur, ok := greedySteps(net, j, earliest, curDeadline, scanOptions{seeBatches: true})
		if !ok {
			for _, p := range cur { // the 2.x agent rolls its batches back
				net.add(p.iv.Start, p.iv.End, p.r)
			}
			if kind != plan.RAny {
				return nil, nil, berth.Interval{}, noPlacement(i)
			}
			continue
		}
		stages[i] = cur
		all = append(all, cur...)
		if kind == plan.RAny {
			break
		}
		if ordered(kind) {
			first, last := cur[0].iv.Start, cur[0].iv.End
			for _, p := range cur {
				first, last = min(first, p.iv.Start), max(last, p.iv.End)
			}
			curDeadline = first
			if kind == plan.ROrderNoGap && oldDeadline > 0 && oldDeadline-last > step {
				return nil, nil, berth.Interval{}, noPlacement(i)
			}
			oldDeadline = curDeadline
		}
	}
	if len(all) == 0 {
		return nil, nil, berth.Interval{}, noPlacement(-1)
	}
	first, last := all[0].iv.Start, all[0].iv.End
	for _, p := range all {
		first, last = min(first, p.iv.Start), max(last, p.iv.End)
	}
	out := canonical(all)
	if first > earliest {
		// YARN 2.x pads the reservation with zero from the aligned arrival.
		out = append([]placement{{iv: berth.Interval{Start: earliest, End: first}}}, out...)
	}
	return out, stages, berth.Interval{Start: earliest, End: last}, nil
}
