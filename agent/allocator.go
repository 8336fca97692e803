package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// StageAllocator places one stage inside its window (YARN's
// StageAllocator, a constructor argument of its IterativePlanner). The
// built-ins are [GreedyRLE], [Greedy] and [LowCostAligned]; a user's type
// plugs in the same way, through [IterativePlanner].Allocator.
//
// Contract: Allocate places stage index (s is v.Stage(index)) inside
// window. It reads the plan only through v and changes nothing; the
// planner records the answer. ok false (and no error) means the stage does
// not fit. With ok true the blocks must lie inside window, be non-empty,
// each a whole positive number of gangs (s.Capability × s.Concurrency ×
// n), hold exactly the stage's demand in gang-time (the sum of gangs ×
// block length equals s.Containers / s.Concurrency × s.Duration rounded up
// to the plan's step; so adjacent blocks may merge), and, with
// earlier stages, stay within the plan's capacity; blocks may overlap in
// time. An answer that breaks these rules fails the placement with a
// [*ContractError] (the run and the plan unchanged). The returned slice
// may be the allocator's scratch: the planner copies it before the next
// call. err is for failures reading the plan (returned as they are).
// Allocate may be called concurrently for different runs if the
// allocator's own state allows it (the built-ins have none).
type StageAllocator interface {
	// Name identifies the allocator in errors; it should be a constant.
	Name() string
	// Allocate returns the stage's blocks; see the type's contract.
	Allocate(v *StageView, index int, s plan.Stage, window berth.Interval) (blocks []Placement, ok bool, err error)
}

// GreedyRLE is YARN's StageAllocatorGreedyRLE, the allocator of
// [NewGreedy]: batch after batch it places as many gangs as fit in the
// earliest (allocating left) or latest candidate window, jumping from
// breakpoint to breakpoint of the availability. Unlike YARN, each batch sees
// the batches placed before it, so a stage never over-books.
type GreedyRLE struct{}

// Name returns "greedy-RLE".
func (GreedyRLE) Name() string { return "greedy-RLE" }

// Allocate places the stage as YARN's greedy-RLE does.
func (GreedyRLE) Allocate(v *StageView, _ int, s plan.Stage, w berth.Interval) ([]Placement, bool, error) {
	if !v.live() {
		return nil, false, errDeadView()
	}
	j := v.job()
	if !fitsIn(w.Start, s.Duration, w.End) {
		return nil, false, nil
	}
	sj := j.stageJob(s)
	// Most stages fit whole in the first candidate window: look at that
	// window alone first. The first batch reads nothing beyond it, so when
	// it places every gang the answer is the one of the full scan.
	probe := berth.Interval{Start: w.Start, End: w.Start + sj.duration}
	worth := j.left && fitsIn(w.Start, sj.duration, w.End) && probe.End < w.End
	if worth && !j.placed && memoryOnly(sj.fitter) {
		// Under the memory calculator a gang count depends on free memory
		// alone, monotonically, so the probe succeeds exactly when every
		// gang fits in the least free memory over its window: one range
		// maximum of the plan's load answers without reading the window,
		// either way.
		if free, ok := v.PlanLeastFree(probe); ok {
			if sj.fitter.fit(free, sj.gangs) >= sj.gangs {
				return append(j.out[:0], Placement{Interval: probe, Resource: sj.batch(sj.gangs)}), true, nil
			}
			worth = false
		}
	}
	if worth {
		// The probe can only succeed if every gang fits at its start; a
		// point query says when it cannot.
		worth = sj.fitter.fit(v.FreeAt(w.Start), sj.gangs) >= sj.gangs
	}
	if worth {
		head, err := v.Available(probe)
		if err != nil {
			return nil, false, err
		}
		ps, ok := greedyRLE(head.p, sj, probe.Start, probe.End, true, scanOptions{})
		v.Release(head)
		if ok && len(ps) == 1 {
			return j.exported(ps), true, nil
		}
	}
	// The whole window. Allocating left, a window without a stretch that
	// has room for one gang is answered from the load steps alone
	// (stretch.go): most rejections end there.
	var net Profile
	var err error
	room := true
	if j.left {
		net, room, err = v.AvailableForStage(w, s)
	} else {
		net, err = v.Available(w)
	}
	if err != nil || !room {
		return nil, false, err
	}
	ps, ok := greedyRLE(net.p, sj, w.Start, w.End, j.left, j.scan())
	v.Release(net)
	if !ok {
		return nil, false, nil
	}
	return j.exported(ps), true, nil
}

// Greedy is YARN's StageAllocatorGreedy: the original step-by-step scan,
// always right to left whatever the planner's direction. Unlike YARN, each
// batch sees the batches placed before it.
type Greedy struct{}

// Name returns "greedy".
func (Greedy) Name() string { return "greedy" }

// Allocate places the stage as YARN's step greedy does.
func (Greedy) Allocate(v *StageView, _ int, s plan.Stage, w berth.Interval) ([]Placement, bool, error) {
	j := v.job()
	net, err := v.Available(w)
	if err != nil {
		return nil, false, err
	}
	ps, ok := greedySteps(net.p, j.stageJob(s), w.Start, w.End, j.scan())
	if !ok {
		return nil, false, nil
	}
	return j.exported(ps), true, nil
}

// LowCostAligned is YARN's StageAllocatorLowCostAligned, the first
// allocator of [NewAlignedPlannerWithGreedy]: it cuts the window into
// aligned candidate windows of one duration and gives a few gangs at a time
// to the least loaded one. SmoothnessFactor divides how many gangs one
// candidate may take per round (YARN's default 10; 0 means the default).
type LowCostAligned struct {
	SmoothnessFactor int
}

// Name returns "low-cost-aligned".
func (LowCostAligned) Name() string { return "low-cost-aligned" }

// Allocate places the stage as YARN's low-cost aligned allocator does.
func (a LowCostAligned) Allocate(v *StageView, _ int, s plan.Stage, w berth.Interval) ([]Placement, bool, error) {
	if !v.live() {
		return nil, false, errDeadView()
	}
	j := v.job()
	// The plan's availability without earlier stages: the allocator
	// subtracts them itself, step by step, as YARN's does. It only reads
	// it, inside w.
	net, shared := j.planFreeShared(w)
	if !shared {
		netp, err := v.PlanAvailable(w)
		if err != nil {
			return nil, false, err
		}
		net = netp.p
		// The answer is built from j.mods, never from net: hand it back.
		defer v.Release(netp)
	}
	loads, err := v.PlanLoads()
	if err != nil {
		return nil, false, err
	}
	smooth := int64(a.SmoothnessFactor)
	if smooth <= 0 {
		smooth = DefaultSmoothnessFactor
	}
	in := &lowCostInput{loads: loads.p, mods: j.mods, net: net, capacity: j.view.capacity(),
		calc: j.view.calculator(), smooth: smooth, left: j.left, scratch: &j.lowCost}
	// lowCostAligned leaves j.mods as it is: the planner records what it
	// accepts.
	ps, ok := lowCostAligned(in, j.stageJob(s), w.Start, w.End)
	if !ok {
		return nil, false, nil
	}
	return j.exported(ps), true, nil
}

// loads returns the plan's load as YARN's planner reads it for the job
// (yarnPlanLoads), read once.
func (j *job) loads() (*profile, error) {
	if j.planLoads == nil {
		p, err := j.view.planLoads(j.id, berth.Interval{Start: j.def.Arrival, End: j.def.Deadline})
		if err != nil {
			return nil, err
		}
		j.planLoads = p
	}
	return j.planLoads, nil
}

// memoryOnly reports whether f counts gangs by memory alone (the memory
// calculator, not componentwise): a non-decreasing function of the free
// memory, since float32 conversion, division by the gang's memory,
// rounding and flooring all preserve order.
func memoryOnly(f fitter) bool {
	_, ok := f.calc.(berth.MemoryCalculator)
	return ok && !f.componentwise
}
