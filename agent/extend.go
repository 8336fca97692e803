package agent

import (
	"errors"
	"fmt"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
)

// Placement is one block of a stage's placement: Resource held over
// Interval. A stage's blocks may overlap in time (gangs side by side).
type Placement struct {
	Interval berth.Interval
	Resource berth.Resource
}

// StageView is the read-only view of one planning run that an
// [IterativePlanner] hands its [StageInterval] and [StageAllocator]: the
// definition being placed, the plan's shape (capacity, step, calculator,
// allocation bounds), what the plan leaves available and loads, and what
// earlier stages of the same definition took. A view is valid only during
// the call it is passed to; it is not safe for concurrent use. A nil or
// zero StageView (not handed out by a planner) views nothing: its getters
// return zero values (the calculator: berth.MemoryCalculator) and the
// methods that build profiles return an error of kind
// berth.ErrInvalidState.
type StageView job

func (v *StageView) job() *job { return (*job)(v) }

// live reports whether v is a planner's view, not a nil or zero one.
func (v *StageView) live() bool { return v != nil && v.view != nil }

// errDeadView is the error of a profile asked of a view that is not a
// planner's.
func errDeadView() error {
	return &berth.FieldError{Field: "StageView", Reason: "not a planner's view (valid only during the planner's call)", Kind: berth.ErrInvalidState}
}

// Reservation returns the id of the reservation being placed (for an
// update, the version whose resources are available to the new one).
func (v *StageView) Reservation() plan.ReservationID {
	if v == nil {
		return plan.ReservationID{}
	}
	return v.id
}

// User returns the user the reservation is placed for.
func (v *StageView) User() string {
	if v == nil {
		return ""
	}
	return v.user
}

// Contract returns the definition's window [arrival, deadline).
func (v *StageView) Contract() berth.Interval {
	if v == nil {
		return berth.Interval{}
	}
	return berth.Interval{Start: v.def.Arrival, End: v.def.Deadline}
}

// Interpreter returns how the definition's stages combine.
func (v *StageView) Interpreter() plan.Interpreter {
	if v == nil {
		return 0
	}
	return v.def.Interpreter
}

// Period returns the definition's recurrence (0: none).
func (v *StageView) Period() berth.Duration {
	if v == nil {
		return 0
	}
	return v.period
}

// NumStages returns how many stages the definition has.
func (v *StageView) NumStages() int {
	if v == nil {
		return 0
	}
	return len(v.def.Stages)
}

// Stage returns stage i of the definition (a zero Stage when i is not in
// [0, NumStages)).
func (v *StageView) Stage(i int) plan.Stage {
	if i < 0 || i >= v.NumStages() {
		return plan.Stage{}
	}
	return v.def.Stages[i]
}

// AllocateLeft reports whether the planner places stages first to last
// and prefers early placements (true) or last to first and late (false).
func (v *StageView) AllocateLeft() bool { return v != nil && v.left }

// Capacity returns the plan's capacity.
func (v *StageView) Capacity() berth.Resource {
	if !v.live() {
		return berth.Resource{}
	}
	return v.view.capacity()
}

// Step returns the plan's time step; placements should be aligned to it.
func (v *StageView) Step() berth.Duration {
	if !v.live() {
		return 0
	}
	return v.view.step()
}

// Calculator returns the plan's resource calculator.
func (v *StageView) Calculator() berth.Calculator {
	if !v.live() {
		return berth.MemoryCalculator{}
	}
	return v.view.calculator()
}

// MinAllocation returns the plan's smallest container.
func (v *StageView) MinAllocation() berth.Resource {
	if !v.live() {
		return berth.Resource{}
	}
	return v.view.minAllocation()
}

// MaxAllocation returns the plan's largest container.
func (v *StageView) MaxAllocation() berth.Resource {
	if !v.live() {
		return berth.Resource{}
	}
	return v.view.maxAllocation()
}

// Placed returns the envelope of the non-zero blocks placed by earlier
// stages of this definition; ok is false when none is placed yet.
func (v *StageView) Placed() (envelope berth.Interval, ok bool) {
	if v == nil {
		return berth.Interval{}, false
	}
	return berth.Interval{Start: v.placedStart, End: v.placedEnd}, v.placed
}

// Taken returns what earlier stages of this definition take at t.
func (v *StageView) Taken(t berth.Time) berth.Resource {
	if v == nil || v.mods == nil {
		return berth.Resource{}
	}
	r, _ := v.mods.at(t)
	return r
}

// Gangs returns how many gangs of stage s fit in avail, at most limit, as
// the planner counts them (the plan's calculator, or componentwise when
// [Config].ComponentwiseFit is set).
func (v *StageView) Gangs(s plan.Stage, avail berth.Resource, limit int64) int64 {
	if !v.live() {
		return 0
	}
	sj := v.job().stageJob(s)
	return sj.fitter.fit(avail, limit)
}

// Available returns what the plan leaves the user over w (the sharing
// policy applied, the reservation's old version added back) minus what
// earlier stages of this definition take. The profile is the caller's:
// it may edit it with [Profile.Sub] and should hand it back with
// [StageView.Release].
func (v *StageView) Available(w berth.Interval) (Profile, error) {
	if !v.live() {
		return Profile{}, errDeadView()
	}
	p, err := v.job().net(w.Start, w.End)
	return Profile{p}, err
}

// PlanAvailable is [StageView.Available] before earlier stages of this
// definition come off (subtract [StageView.Taken] to get Available).
func (v *StageView) PlanAvailable(w berth.Interval) (Profile, error) {
	if !v.live() {
		return Profile{}, errDeadView()
	}
	p, err := v.view.available(v.user, v.id, w, v.period)
	return Profile{p}, err
}

// AvailableForStage is [StageView.Available] with a cheap early answer:
// room is false when no stretch of w as long as stage s (rounded up to the
// step) has room for one gang at every instant, or when the stretches with
// room cannot hold all its gangs for their duration, so that no placement
// running each gang uninterrupted for its duration exists; the profile is
// then empty. The test runs on the plan's load steps before any profile is
// built, and only while no earlier stage is placed and the answer is exact
// (no period, no policy that changes availability); otherwise room is true
// and the profile is the one of Available.
func (v *StageView) AvailableForStage(w berth.Interval, s plan.Stage) (p Profile, room bool, err error) {
	if !v.live() {
		return Profile{}, false, errDeadView()
	}
	j := v.job()
	j.stretch = newStretchNeed(j.stageJob(s))
	net, err := j.netFor(w.Start, w.End, &j.stretch)
	if err == errNoStretch {
		return Profile{}, false, nil
	}
	return Profile{net}, err == nil, err
}

// PlanLeastFree returns capacity minus the plan's peak load over w, before
// earlier stages of this definition, in logarithmic time without reading w
// step by step: a lower bound of what Available gives anywhere in w. ok is
// false when it cannot tell cheaply (a period, the old version held, a
// policy that changes availability, an over-committed plan).
func (v *StageView) PlanLeastFree(w berth.Interval) (free berth.Resource, ok bool) {
	if !v.live() {
		return berth.Resource{}, false
	}
	return v.view.leastFree(v.user, v.id, w, v.period)
}

// FreeAt returns capacity minus what the plan and earlier stages of this
// definition hold at t (the old version added back): an upper bound of
// what Available gives at t.
func (v *StageView) FreeAt(t berth.Time) berth.Resource {
	if !v.live() {
		return berth.Resource{}
	}
	return v.view.freeAt(v.id, t).Sub(v.Taken(t))
}

// Load returns the plan's committed load over w without the
// reservation's old version. Hand it back with [StageView.Release].
func (v *StageView) Load(w berth.Interval) (Profile, error) {
	if !v.live() {
		return Profile{}, errDeadView()
	}
	p, err := v.view.loads(v.id, w)
	return Profile{p}, err
}

// PlanLoads returns the plan's load over the contract as YARN's
// IterativePlanner hands it to its allocators (read once per run; the
// view owns it: do not edit or release it).
func (v *StageView) PlanLoads() (Profile, error) {
	if !v.live() {
		return Profile{}, errDeadView()
	}
	p, err := v.job().loads()
	return Profile{p}, err
}

// Release hands back a profile from Available or Load that the caller no
// longer uses, for reuse by later placements.
func (v *StageView) Release(p Profile) {
	if p.p != nil && v.live() {
		v.view.release(p.p)
	}
}

// Profile is a step function of resources over a window [Start, End): a
// read view of availability or load.
type Profile struct{ p *profile }

// Window returns the profile's domain.
func (p Profile) Window() berth.Interval {
	if p.p == nil || len(p.p.ts) == 0 {
		if p.p == nil {
			return berth.Interval{}
		}
		return berth.Interval{Start: p.p.end, End: p.p.end}
	}
	return berth.Interval{Start: p.p.ts[0], End: p.p.end}
}

// Len returns how many steps the profile has.
func (p Profile) Len() int {
	if p.p == nil {
		return 0
	}
	return len(p.p.ts)
}

// Step returns step i (0 ≤ i < Len), in time order; zero values for
// another i.
func (p Profile) Step(i int) (berth.Interval, berth.Resource) {
	if i < 0 || i >= p.Len() {
		return berth.Interval{}, berth.Resource{}
	}
	end := p.p.end
	if i+1 < len(p.p.ts) {
		end = p.p.ts[i+1]
	}
	return berth.Interval{Start: p.p.ts[i], End: end}, p.p.rs[i]
}

// At returns the value at t; zero outside the window.
func (p Profile) At(t berth.Time) berth.Resource {
	if p.p == nil {
		return berth.Resource{}
	}
	r, _ := p.p.at(t)
	return r
}

// Sub subtracts r over w ∩ window (e.g. a block the caller places while
// it builds a stage). Only profiles the caller owns may be edited.
func (p Profile) Sub(w berth.Interval, r berth.Resource) {
	if p.p == nil || p.p.empty() {
		return
	}
	s, e := max(w.Start, p.p.ts[0]), min(w.End, p.p.end)
	if s < e {
		p.p.sub(s, e, r)
	}
}

// ErrContract is wrapped by every [ContractError]: a [StageAllocator]
// answered outside its contract.
var ErrContract = errors.New("agent: stage allocator broke its contract")

// ContractError reports a [StageAllocator] answer the planner refuses: a
// block outside the window, empty, negative, not a whole number of gangs, a total other than
// the stage's demand in gang-time, or blocks that together with earlier stages exceed
// the plan's capacity. The plan and the run are left unchanged.
type ContractError struct {
	// Component is the Name of the allocator.
	Component string
	// Stage is the index of the stage being placed.
	Stage int
	// Block is the offending block (zero for a window error).
	Block Placement
	// Reason says which rule was broken.
	Reason string
}

// Error describes the broken rule.
func (e *ContractError) Error() string {
	return fmt.Sprintf("agent: %s: stage %d: %s (block %v of %v)", e.Component, e.Stage, e.Reason, e.Block.Interval, e.Block.Resource)
}

// Unwrap returns ErrContract.
func (e *ContractError) Unwrap() error { return ErrContract }

// gangMultiple returns n with r = gang × n, n ≥ 1.
func gangMultiple(r, gang berth.Resource) (int64, bool) {
	var n int64
	switch {
	case gang.Memory > 0:
		n = r.Memory / gang.Memory
	case gang.VCores > 0:
		n = r.VCores / gang.VCores
	default:
		for _, name := range berth.TypeNames(gang) {
			if g := gang.Extra(name); g > 0 {
				n = r.Extra(name) / g
				break
			}
		}
	}
	return n, n >= 1 && r.Equal(gang.MulInt(n))
}

// checkStage validates an allocator's answer for stage i in window w and
// appends it to dst; it records nothing.
func (j *job) checkStage(dst []placement, name string, i int, s plan.Stage, w berth.Interval, ps []Placement) ([]placement, error) {
	gang := s.Capability.MulInt(s.Concurrency)
	// The demand in gang-time: gangs × duration rounded up to the step.
	// Blocks are counted the same way, so that an allocator may merge
	// adjacent blocks of equal amount (as YARN's low-cost one does).
	want := s.Containers / s.Concurrency
	dur := stepRoundUp(s.Duration, j.view.step())
	if dur > 0 && want > math.MaxInt64/dur {
		return nil, &ContractError{Component: name, Stage: i, Reason: "the stage's demand overflows int64"}
	}
	want *= dur
	var total int64
	for _, b := range ps {
		bad := func(reason string) error {
			return &ContractError{Component: name, Stage: i, Block: b, Reason: reason}
		}
		switch {
		case !b.Interval.Valid():
			return nil, bad("empty or inverted interval")
		case b.Interval.Start < w.Start || b.Interval.End > w.End:
			return nil, bad(fmt.Sprintf("block outside the window %v", w))
		case b.Resource.AnyNegative():
			return nil, bad("negative resource")
		}
		n, ok := gangMultiple(b.Resource, gang)
		if !ok {
			return nil, bad(fmt.Sprintf("not a whole number of gangs of %v", gang))
		}
		l := b.Interval.Len()
		if n > (want-total)/l {
			return nil, bad(fmt.Sprintf("more than the stage's demand of %d gang-time", want))
		}
		total += n * l
		dst = append(dst, placement{iv: b.Interval, r: b.Resource})
	}
	if total != want {
		return nil, &ContractError{Component: name, Stage: i,
			Reason: fmt.Sprintf("%d gang-time placed, the stage needs %d", total, want)}
	}
	return dst, nil
}

// record adds a checked stage to the run's tentative load, unless the
// blocks together with earlier stages exceed the plan's capacity (as the
// calculator compares): a tentative load beyond it would mislead every
// later stage. On error nothing is recorded.
func (j *job) recordChecked(name string, i int, ps []placement) error {
	lo, hi := berth.MaxTime, berth.MinTime
	for _, b := range ps {
		j.mods.add(b.iv.Start, b.iv.End, b.r)
		lo, hi = min(lo, b.iv.Start), max(hi, b.iv.End)
	}
	capacity, calc := j.view.capacity(), j.view.calculator()
	for k := max(j.mods.floor(lo), 0); k < len(j.mods.ts) && j.mods.ts[k] < hi; k++ {
		if !calc.FitsIn(j.mods.rs[k], capacity) {
			at := max(j.mods.ts[k], lo)
			for _, b := range ps {
				j.mods.sub(b.iv.Start, b.iv.End, b.r)
			}
			return &ContractError{Component: name, Stage: i, Block: Placement{Interval: berth.Interval{Start: at, End: at + 1}},
				Reason: fmt.Sprintf("with earlier stages the blocks exceed the capacity %v", capacity)}
		}
	}
	return nil
}

// exported converts internal placements into the scratch slice of the
// run (reused across stages: the planner copies what it keeps).
func (j *job) exported(ps []placement) []Placement {
	out := j.out[:0]
	for _, p := range ps {
		out = append(out, Placement{Interval: p.iv, Resource: p.r})
	}
	j.out = out
	return out
}
