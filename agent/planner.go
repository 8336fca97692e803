package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// IterativePlanner is YARN's IterativePlanner: it places the stages of a
// definition one at a time (first to last when allocating left, last to
// first otherwise), each inside the window its [StageInterval] gives, with
// its [StageAllocator], and honours the interpreter:
//
//   - R_ANY: the first stage that fits is the placement; stages that do not
//     fit are skipped.
//   - R_ALL: every stage is placed independently in the whole window.
//   - R_ORDER: each stage after (left) or before (right) what is placed.
//   - R_ORDER_NO_GAP: as R_ORDER, and each stage is one contiguous block
//     touching the previous one.
//
// Stages see what earlier stages of the same definition took. The plan is
// only changed by the final add (create) or update, where the plan's
// sharing policy has the last word.
//
// A planner holds only its configuration (and, when built by a
// constructor, scratch buffers it recycles across placements, which no
// answer depends on): it is safe for concurrent use, also on one plan
// (each placement is validated when it is added).
type IterativePlanner struct {
	// Interval chooses each stage's window; nil means [Unconstrained].
	Interval StageInterval
	// Allocator places each stage; nil means [GreedyRLE].
	Allocator StageAllocator
	// Config tunes the search; see [Config].
	Config Config

	// bufs recycles scratch buffers across placements; the constructors
	// set it, a planner built as a literal allocates instead.
	bufs *stepBuffers
	// labelI, labelA and labelS cache the label of the constructors'
	// interval and allocator names, so that a rejection (most requests in
	// a saturated plan) builds no string.
	labelI, labelA, labelS string
}

// newPlanner returns a planner of the built-in interval and allocator
// with its label cached.
func newPlanner(iv StageInterval, a StageAllocator, o Config, bufs *stepBuffers) *IterativePlanner {
	ip := &IterativePlanner{Interval: iv, Allocator: a, Config: o, bufs: bufs}
	ip.labelI, ip.labelA = iv.Name(), a.Name()
	ip.labelS = "IterativePlanner(" + ip.labelI + ", " + ip.labelA + ")"
	return ip
}

var _ plan.Agent = (*IterativePlanner)(nil)

func (ip *IterativePlanner) interval() StageInterval {
	if ip.Interval == nil {
		return Unconstrained{}
	}
	return ip.Interval
}

func (ip *IterativePlanner) allocator() StageAllocator {
	if ip.Allocator == nil {
		return GreedyRLE{}
	}
	return ip.Allocator
}

func (ip *IterativePlanner) label() string {
	i, a := ip.interval().Name(), ip.allocator().Name()
	if ip.labelS != "" && i == ip.labelI && a == ip.labelA {
		return ip.labelS
	}
	return "IterativePlanner(" + i + ", " + a + ")"
}

// CreateReservation places def for user and adds it to p under id.
func (ip *IterativePlanner) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(ip.place).create(p, id, user, def)
}

// UpdateReservation replaces reservation id of p with a new placement of
// def; the old version's resources are available to the new one.
func (ip *IterativePlanner) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(ip.place).update(p, id, user, def)
}

// DeleteReservation removes reservation id from p.
func (ip *IterativePlanner) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return deleteReservation(p, id)
}

// Place computes where def would go in p without changing p: the
// allocation CreateReservation would add. It is useful to preview a
// placement.
func (ip *IterativePlanner) Place(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	return ip.place(p, id, user, def)
}

func (ip *IterativePlanner) place(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	if err := checkPlan(p); err != nil {
		return nil, err
	}
	ps, stages, err := ip.compute(planAdapter{p: p, bufs: ip.bufs}, id, user, def)
	if err != nil {
		return nil, err
	}
	return allocationOf(ps, stages, id, user, def, contractWindow(def))
}

// compute is YARN's computeJobAllocation: the canonical placement of def,
// and the placement of each stage (nil for a stage not placed).
func (ip *IterativePlanner) compute(pv planView, id plan.ReservationID, user string, def plan.Definition) ([]placement, [][]placement, error) {
	if len(def.Stages) == 0 {
		return nil, nil, berth.InvalidField("reservation-definition.reservation-requests", 0, "No resources have been specified to reserve")
	}
	j := ip.bufs.job()
	defer ip.bufs.putJob(j)
	j.view, j.id, j.user, j.def, j.period = pv, id, user, def, def.Period
	j.left, j.opts = ip.Config.allocateLeft(), ip.Config
	alloc, ival := ip.allocator(), ip.interval()
	v := (*StageView)(j)
	var all []placement
	n := len(def.Stages)
	stages := make([][]placement, n)
	for k := 0; k < n; k++ {
		i := k
		if !j.left {
			i = n - 1 - k
		}
		s := def.Stages[i]
		if err := validateStage(i, s, pv.capacity(), pv.maxAllocation(), pv.calculator()); err != nil {
			return nil, nil, err
		}
		w := ival.Window(v, i)
		blocks, ok, err := alloc.Allocate(v, i, s, w)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			if def.Interpreter == plan.RAny {
				continue
			}
			return nil, nil, &NoPlacementError{Agent: ip.label(), Stage: i, Reason: "The request cannot be satisfied"}
		}
		// The stages' blocks share all's storage (read-only once added).
		start := len(all)
		if all, err = j.checkStage(all, alloc.Name(), i, s, w, blocks); err != nil {
			return nil, nil, err
		}
		cur := all[start:len(all):len(all)]
		if def.Interpreter == plan.ROrderNoGap && !j.orderNoGap(cur) {
			return nil, nil, &NoPlacementError{Agent: ip.label(), Stage: i, Reason: "The allocation found does not respect ORDER_NO_GAP"}
		}
		if err := j.recordChecked(alloc.Name(), i, cur); err != nil {
			return nil, nil, err
		}
		stages[i] = cur
		j.extend(cur)
		if def.Interpreter == plan.RAny {
			break
		}
	}
	if !j.placed {
		return nil, nil, &NoPlacementError{Agent: ip.label(), Stage: -1, Reason: "The request cannot be satisfied"}
	}
	return canonical(all), stages, nil
}

// extend widens the envelope of what is placed with cur.
func (j *job) extend(cur []placement) {
	for _, p := range cur {
		if p.r.IsZero() || !p.iv.Valid() {
			continue
		}
		if !j.placed {
			j.placed, j.placedStart, j.placedEnd = true, p.iv.Start, p.iv.End
			continue
		}
		j.placedStart = min(j.placedStart, p.iv.Start)
		j.placedEnd = max(j.placedEnd, p.iv.End)
	}
}

// orderNoGap is YARN's validateOrderNoGap: the stage touches what is
// placed (no gap) and is one contiguous block.
func (j *job) orderNoGap(cur []placement) bool {
	if j.placed && len(cur) > 0 {
		if j.left {
			start := cur[0].iv.Start
			for _, p := range cur {
				start = min(start, p.iv.Start)
			}
			if j.placedEnd < start {
				return false
			}
		} else {
			end := cur[0].iv.End
			for _, p := range cur {
				end = max(end, p.iv.End)
			}
			if end < j.placedStart {
				return false
			}
		}
	}
	return nonPreemptive(cur)
}

// nonPreemptive is YARN's isNonPreemptiveAllocation: toggling the end points
// of the non-zero intervals leaves exactly two.
func nonPreemptive(cur []placement) bool {
	open := map[berth.Time]bool{}
	for _, p := range cur {
		if p.r.IsZero() {
			continue
		}
		for _, t := range [2]berth.Time{p.iv.Start, p.iv.End} {
			if open[t] {
				delete(open, t)
			} else {
				open[t] = true
			}
		}
	}
	return len(open) == 2
}
