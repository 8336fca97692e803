package agent

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// planView is what a planner reads from the plan while it computes a
// placement (see view.go for the adapter over *plan.Plan).
type planView interface {
	capacity() berth.Resource
	step() berth.Duration
	calculator() berth.Calculator
	maxAllocation() berth.Resource
	minAllocation() berth.Resource
	// available is the plan's availability for user over window, the old
	// version of the reservation added back and the sharing policy applied.
	available(user string, old plan.ReservationID, window berth.Interval, period berth.Duration) (*profile, error)
	// availableFor is available, or errNoStretch when need (nil: none)
	// shows that no stretch of window has room for one gang (see
	// stretch.go); it may not test, and then answers as available.
	availableFor(user string, old plan.ReservationID, window berth.Interval, period berth.Duration, need *stretchNeed) (*profile, error)
	// loads is the plan's committed load over window without the old
	// version of the reservation (YARN's planLoads).
	loads(old plan.ReservationID, window berth.Interval) (*profile, error)
	// planLoads is the plan's load as YARN's IterativePlanner hands it to
	// the low-cost allocator, over the definition's window (see
	// yarnPlanLoads); the run hands it back with release.
	planLoads(old plan.ReservationID, contract berth.Interval) (*profile, error)
	// freeAt is the plan's capacity minus what it holds at t, the old
	// version of the reservation added back: an upper bound of available.
	freeAt(old plan.ReservationID, t berth.Time) berth.Resource
	// leastFree is the componentwise minimum of what available would give
	// over the valid window w (capacity minus the plan's peak load there),
	// in O(log n + k) without building a profile; ok is false when it
	// cannot tell cheaply (a period, the old version held, a policy that
	// changes availability, an over-committed plan).
	leastFree(user string, old plan.ReservationID, w berth.Interval, period berth.Duration) (free berth.Resource, ok bool)
	// release hands back a profile of available or loads that the caller
	// no longer uses (nor anything built on its storage), for reuse.
	release(p *profile)
}

// job is the state of one planning run, shared by its stages.
type job struct {
	view   planView
	id     plan.ReservationID
	user   string
	def    plan.Definition
	period berth.Duration
	left   bool
	opts   Config
	// mods is what the stages placed so far take (YARN's planModifications).
	mods *profile
	// planLoads is read lazily: only the low-cost allocator uses it.
	planLoads *profile
	// stretch holds the need of the stage being placed (stretch.go), in
	// the job so that it is not allocated per stage.
	stretch stretchNeed
	// placed is the envelope of the non-zero placements made so far.
	placed                 bool
	placedStart, placedEnd berth.Time
	// out is the scratch the built-in allocators answer in.
	out []Placement
	// lowCost is the low-cost allocator's scratch (lowcost.go).
	lowCost lowCostScratch
}

func (j *job) stageJob(s plan.Stage) stageJob {
	step := j.view.step()
	return stageJob{
		fitter: fitter{calc: j.view.calculator(), cluster: j.view.capacity(),
			gang: s.Capability.MulInt(s.Concurrency), componentwise: j.opts.ComponentwiseFit},
		container: s.Capability, concurrency: s.Concurrency, gangs: s.Containers / s.Concurrency,
		duration: stepRoundUp(s.Duration, step), requestedDuration: s.Duration, step: step,
	}
}

func (j *job) scan() scanOptions { return scanOptions{seeBatches: true, exact: j.opts.ExactScan} }

// net returns the availability over [sa, sd) minus this job's tentative
// allocations.
func (j *job) net(sa, sd berth.Time) (*profile, error) { return j.netFor(sa, sd, nil) }

// netFor is net that may answer errNoStretch when need (nil: none) finds no
// stretch with room for one gang. The test runs on the plan's availability,
// before this job's tentative allocations come off; it is made only while
// there are none, so that it never depends on how a calculator orders
// resources.
func (j *job) netFor(sa, sd berth.Time, need *stretchNeed) (*profile, error) {
	if j.placed {
		need = nil
	}
	p, err := j.view.availableFor(j.user, j.id, berth.Interval{Start: sa, End: sd}, j.period, need)
	if err != nil {
		return nil, err
	}
	subtractProfile(p, j.mods)
	return p, nil
}

// subtractProfile subtracts b from a over a's domain.
func subtractProfile(a, b *profile) {
	if a.empty() {
		return
	}
	lo := max(b.floor(a.ts[0]), 0)
	for i := lo; i < len(b.ts); i++ {
		s := b.ts[i]
		if s >= a.end {
			break
		}
		e := b.end
		if i+1 < len(b.ts) {
			e = b.ts[i+1]
		}
		if !b.rs[i].IsZero() {
			a.sub(max(s, a.ts[0]), e, b.rs[i])
		}
	}
}

// StageInterval chooses the window in which a stage may be placed (YARN's
// StageExecutionInterval, a constructor argument of its IterativePlanner).
// The built-ins are [Unconstrained] and [ByDemand]; a user's type plugs in
// through [IterativePlanner].Interval.
//
// Contract: Window returns the window of stage index, read from v (the
// stages placed so far are in [StageView.Placed] and [StageView.Taken]).
// An empty or inverted window means the stage cannot be placed. A window
// may reach a little beyond the contract (YARN's by-demand rounding does);
// the allocator's blocks must lie inside it, and the plan validates the
// final allocation when it is added.
type StageInterval interface {
	// Name identifies the interval in errors; it should be a constant.
	Name() string
	// Window returns the stage's window; see the type's contract.
	Window(v *StageView, index int) berth.Interval
}

// Unconstrained gives every stage the whole window [arrival, deadline) of
// the definition, except that under R_ORDER and R_ORDER_NO_GAP a stage
// starts after everything placed so far (allocating left) or ends before it
// (allocating right). YARN's StageExecutionIntervalUnconstrained.
type Unconstrained struct{}

// Name returns "unconstrained".
func (Unconstrained) Name() string { return "unconstrained" }

// Window returns the contract, after (or before) what is placed when the
// stages are ordered.
func (Unconstrained) Window(v *StageView, _ int) berth.Interval {
	if !v.live() {
		return v.Contract()
	}
	j := v.job()
	a, d := j.def.Arrival, j.def.Deadline
	if ordered(j.def.Interpreter) && j.placed {
		if j.left {
			a = j.placedEnd
		} else {
			d = j.placedStart
		}
	}
	return berth.Interval{Start: a, End: d}
}

func ordered(k plan.Interpreter) bool { return k == plan.ROrder || k == plan.ROrderNoGap }

// ByDemand is Unconstrained for R_ANY and R_ALL. Under R_ORDER and
// R_ORDER_NO_GAP it guarantees every stage not yet placed its duration and
// shares the rest of the window between them in proportion to their demand
// (duration × memory × containers): the current stage may end no later
// than (allocating left) its share allows. YARN's
// StageExecutionIntervalByDemand, used by [NewAlignedPlannerWithGreedy].
type ByDemand struct{}

// Name returns "by-demand".
func (ByDemand) Name() string { return "by-demand" }

// Window returns the stage's share of the window by demand.
func (ByDemand) Window(v *StageView, index int) berth.Interval {
	if !v.live() {
		return v.Contract()
	}
	j := v.job()
	iv := Unconstrained{}.Window(v, index)
	if !ordered(j.def.Interpreter) {
		return iv
	}
	step := j.view.step()
	var totalWeight float64
	var totalDuration int64
	stages := j.def.Stages
	// From the far end towards the current stage, inclusive.
	if j.left {
		for i := len(stages) - 1; i >= index; i-- {
			totalWeight += weight(stages[i])
			totalDuration += stepRoundUp(stages[i].Duration, step)
		}
	} else {
		for i := 0; i <= index; i++ {
			totalWeight += weight(stages[i])
			totalDuration += stepRoundUp(stages[i].Duration, step)
		}
	}
	cur := stages[index]
	ratio := weight(cur) / totalWeight
	remainder := iv.Len() - totalDuration
	dur := stepRoundUp(cur.Duration, step)
	if j.left {
		end := javaDoubleToLong(float64(iv.Start+dur) + float64(remainder)*ratio)
		return berth.Interval{Start: iv.Start, End: stepRoundDown(end, step)}
	}
	start := javaDoubleToLong(float64(iv.End-dur) - float64(remainder)*ratio)
	return berth.Interval{Start: stepRoundUp(start, step), End: iv.End}
}

// weight is YARN's calcWeight: duration × memory × containers in 64-bit
// integer arithmetic (wrapping as Java's long does), then as a double.
func weight(s plan.Stage) float64 {
	return float64(s.Duration * s.Capability.Memory * s.Containers)
}
