package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// StageAllocator places one stage inside its window (YARN's
// StageAllocator). Use [GreedyRLE], [Greedy] or [LowCostAligned].
type StageAllocator interface {
	// allocate returns the stage's placement and records it in j.mods;
	// ok is false (and j.mods unchanged) when the stage does not fit.
	allocate(j *job, index int, s plan.Stage, window berth.Interval) (ps []placement, ok bool, err error)
	name() string
}

// GreedyRLE is YARN's StageAllocatorGreedyRLE, the allocator of
// [NewGreedy]: batch after batch it places as many gangs as fit in the
// earliest (allocating left) or latest candidate window, jumping from
// breakpoint to breakpoint of the availability. Unlike YARN, each batch sees
// the batches placed before it, so a stage never over-books.
type GreedyRLE struct{}

func (GreedyRLE) name() string { return "greedy-RLE" }

func (GreedyRLE) allocate(j *job, _ int, s plan.Stage, w berth.Interval) ([]placement, bool, error) {
	if !fitsIn(w.Start, s.Duration, w.End) {
		return nil, false, nil
	}
	sj := j.stageJob(s)
	// Most stages fit whole in the first candidate window: look at that
	// window alone first. The first batch reads nothing beyond it, so when
	// it places every gang the answer is the one of the full scan.
	probe := berth.Interval{Start: w.Start, End: w.Start + sj.dur}
	worth := j.left && fitsIn(w.Start, sj.dur, w.End) && probe.End < w.End
	if worth && !j.placed && memoryOnly(sj.f) {
		// Under the memory calculator a gang count depends on free memory
		// alone, monotonically, so the probe succeeds exactly when every
		// gang fits in the least free memory over its window: one range
		// maximum of the plan's load answers without reading the window,
		// either way.
		if free, ok := j.view.leastFree(j.user, j.id, probe, j.period); ok {
			if sj.f.fit(free, sj.gangs) >= sj.gangs {
				ps := []placement{{iv: probe, r: sj.batch(sj.gangs)}}
				j.record(ps)
				return ps, true, nil
			}
			worth = false
		}
	}
	if worth {
		// The probe can only succeed if every gang fits at its start; a
		// point query says when it cannot.
		free, _ := j.mods.at(w.Start)
		worth = sj.f.fit(j.view.freeAt(j.id, w.Start).Sub(free), sj.gangs) >= sj.gangs
	}
	if worth {
		head, err := j.net(probe.Start, probe.End)
		if err != nil {
			return nil, false, err
		}
		ps, ok := greedyRLE(head, sj, probe.Start, probe.End, true, scanOptions{})
		j.view.release(head)
		if ok && len(ps) == 1 {
			j.record(ps)
			return ps, true, nil
		}
	}
	// The whole window. Allocating left, a window without a stretch that
	// has room for one gang is answered from the load steps alone
	// (stretch.go): most rejections end there.
	var need *stretchNeed
	if j.left {
		j.stretch = newStretchNeed(sj)
		need = &j.stretch
	}
	net, err := j.netFor(w.Start, w.End, need)
	if err == errNoStretch {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	ps, ok := greedyRLE(net, sj, w.Start, w.End, j.left, j.scan())
	j.view.release(net)
	if !ok {
		return nil, false, nil
	}
	j.record(ps)
	return ps, true, nil
}

// Greedy is YARN's StageAllocatorGreedy: the original step-by-step scan,
// always right to left whatever the planner's direction. Unlike YARN, each
// batch sees the batches placed before it.
type Greedy struct{}

func (Greedy) name() string { return "greedy" }

func (Greedy) allocate(j *job, _ int, s plan.Stage, w berth.Interval) ([]placement, bool, error) {
	net, err := j.net(w.Start, w.End)
	if err != nil {
		return nil, false, err
	}
	ps, ok := greedySteps(net, j.stageJob(s), w.Start, w.End, j.scan())
	if !ok {
		return nil, false, nil
	}
	j.record(ps)
	return ps, true, nil
}

// LowCostAligned is YARN's StageAllocatorLowCostAligned, the first
// allocator of [NewAlignedPlannerWithGreedy]: it cuts the window into
// aligned candidate windows of one duration and gives a few gangs at a time
// to the least loaded one. SmoothnessFactor divides how many gangs one
// candidate may take per round (YARN's default 10; 0 means the default).
type LowCostAligned struct {
	SmoothnessFactor int
}

func (LowCostAligned) name() string { return "low-cost-aligned" }

func (a LowCostAligned) allocate(j *job, _ int, s plan.Stage, w berth.Interval) ([]placement, bool, error) {
	net, err := j.view.available(j.user, j.id, w, j.period)
	if err != nil {
		return nil, false, err
	}
	loads, err := j.loads()
	if err != nil {
		return nil, false, err
	}
	smooth := int64(a.SmoothnessFactor)
	if smooth <= 0 {
		smooth = DefaultSmoothnessFactor
	}
	in := &lowCostInput{loads: loads, mods: j.mods, net: net, capacity: j.view.capacity(),
		calc: j.view.calculator(), smooth: smooth, left: j.left}
	ps, ok := lowCostAligned(in, j.stageJob(s), w.Start, w.End)
	if !ok {
		return nil, false, nil
	}
	// lowCostAligned recorded its placements in j.mods already.
	return ps, true, nil
}

// record adds a stage's placements to the job's tentative load.
func (j *job) record(ps []placement) {
	for _, p := range ps {
		j.mods.add(p.iv.Start, p.iv.End, p.r)
	}
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
