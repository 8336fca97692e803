package agent

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/rle"
)

// LeastWaste is an agent that is not YARN's, built to reserve more of the
// area offered (resource × time) than YARN's agents, by looking at what a
// placement leaves behind. It is deterministic and holds only its
// configuration and scratch buffers, so it is safe for concurrent use.
// Build it with [NewLeastWaste].
//
// Free capacity is only worth something if a later request can use it: a
// free band (a stretch of time over which some amount stays free) too
// short for any stage is lost. For a definition of one stage, LeastWaste
// first looks at how much of the window is free. Where at least
// [WasteConfig].Contested of it is (memory and vcores shares averaged),
// it takes YARN's greedy-RLE placement allocating late, as the
// [Portfolio] does. In a contested window it computes a few candidate
// placements instead — the greedy-RLE placement allocating late and
// allocating early, and placements of all the stage's gangs as one block
// flush against a change of the plan's load or an end of the window (the
// latest and the earliest few) — and scores each by the free area it
// strands: over the free capacity left around it, a band of length l
// shorter than [WasteConfig].Gap counts (1 − l/Gap) of its area, and a
// candidate's waste is how much that sum grows (memory and vcores as
// shares of the capacity). It keeps the candidate of least waste (the
// late greedy placement on ties), and declines the request when even that
// one strands more than [WasteConfig].Slack times its own area: in a
// contested plan a better-fitting request is likely to come, and the
// slivers would be lost for good. When the late greedy placement of an
// uncontested window fails, or no candidate of a contested one fits a
// stage of a few gangs, the early greedy and the aligned planners get a
// try, as in the portfolio. A declined request is a [*NoPlacementError]
// like any other rejection, and leaves the plan as it was.
//
// Definitions of several stages go through a [Portfolio] whose R_ALL
// planners try the low-cost aligned one first. The results on the
// yardstick's streams are in the package documentation.
//
// Only [NewLeastWaste] makes a usable LeastWaste: the zero value has no
// planners and is not one (placing with it panics).
type LeastWaste struct {
	opts      Config      // as given, for StateSpec
	wopts     WasteConfig // in force (defaults filled in), for StateSpec
	waste     *IterativePlanner
	fallbacks []*IterativePlanner
	multi     *Portfolio
}

var _ plan.Agent = (*LeastWaste)(nil)

// NewLeastWaste returns a [LeastWaste] configured by cfg.
func NewLeastWaste(cfg LeastWasteConfig) (*LeastWaste, error) {
	o, w := cfg.Config, cfg.Waste
	if w == (WasteConfig{}) {
		w = DefaultWasteConfig()
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	pf, err := NewPortfolio(o)
	if err != nil {
		return nil, err
	}
	late := o
	late.FavorEarlyAllocation, late.ComponentwiseFit = false, true
	greedyLate, aligned, greedyEarly := pf.all[0], pf.all[1], pf.all[2]
	pf.all = []*IterativePlanner{aligned, greedyLate, greedyEarly}

	return &LeastWaste{
		opts:      o,
		wopts:     w,
		waste:     newPlanner(Unconstrained{}, wasteAllocator{opts: w, scorers: &sync.Pool{}}, late, pf.single[0].bufs),
		fallbacks: []*IterativePlanner{greedyEarly, aligned},
		multi:     pf,
	}, nil
}

// CreateReservation places def for user and adds it to p under id.
func (lw *LeastWaste) CreateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(lw.Place).create(p, id, user, def)
}

// UpdateReservation replaces reservation id of p with a new placement of
// def; the old version's resources are available to the new one.
func (lw *LeastWaste) UpdateReservation(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) error {
	return placeFunc(lw.Place).update(p, id, user, def)
}

// DeleteReservation removes reservation id from p.
func (lw *LeastWaste) DeleteReservation(p *plan.Plan, id plan.ReservationID, _ string) error {
	return deleteReservation(p, id)
}

// Place computes where def would go in p without changing p: the
// allocation CreateReservation would add.
func (lw *LeastWaste) Place(p *plan.Plan, id plan.ReservationID, user string, def plan.Definition) (*plan.Allocation, error) {
	if err := checkPlan(p); err != nil {
		return nil, err
	}
	ps, stages, err := lw.compute(planAdapter{p: p, bufs: lw.waste.bufs}, id, user, def)
	if err != nil {
		return nil, err
	}
	return allocationOf(ps, stages, id, user, def, contractWindow(def))
}

// compute returns the canonical placement of def and each stage's.
func (lw *LeastWaste) compute(v planView, id plan.ReservationID, user string, def plan.Definition) ([]placement, [][]placement, error) {
	if len(def.Stages) != 1 {
		return lw.multi.compute(v, id, user, def)
	}
	ps, stages, err := lw.waste.compute(v, id, user, def)
	var np *NoPlacementError
	if err == nil || !errors.As(err, &np) || np.Reason == reasonDeclined || np.Reason == reasonNoRoom {
		return ps, stages, err
	}
	for _, ip := range lw.fallbacks {
		ps, stages, err = ip.compute(v, id, user, def)
		if err == nil || !errors.Is(err, berth.ErrNoPlacement) {
			return ps, stages, err
		}
	}
	return nil, nil, err
}

// reasonNoRoom is the reason of a stage no agent can place: no stretch of
// its window has room for its gangs (see [StageView.AvailableForStage]).
const reasonNoRoom = "no stretch of the window has room for the stage's gangs"

// reasonDeclined is the reason of a request LeastWaste declines.
const reasonDeclined = "every placement strands too much free capacity in a contested window"

// fewGangs is the most gangs for which a contested stage that no
// candidate fits is still tried with the fallbacks.
const fewGangs = 8

// maxBlocks bounds the one-block candidates scored per stage.
const maxBlocks = 12

// wasteAllocator is LeastWaste's stage allocator (see the type).
type wasteAllocator struct {
	opts WasteConfig
	// scorers recycles the scorers' scratch across placements.
	scorers *sync.Pool
}

func (wasteAllocator) Name() string { return "least-waste" }

func (a wasteAllocator) Allocate(v *StageView, index int, s plan.Stage, w berth.Interval) ([]Placement, bool, error) {
	j := v.job()
	if !fitsIn(w.Start, s.Duration, w.End) {
		return nil, false, nil
	}
	sj := j.stageJob(s)
	if !fitsIn(w.Start, sj.duration, w.End) {
		return nil, false, nil
	}
	net, err := windowNet(v, index, s, sj, w)
	if err != nil {
		return nil, false, err
	}
	contiguous := j.def.Interpreter == plan.ROrderNoGap
	capacity := j.view.capacity()
	if freeShare(net, w, shareWeights(capacity)) >= a.opts.Contested {
		// Room to spare: the late greedy placement, as the portfolio's.
		ps, ok := greedyRLE(net, sj, w.Start, w.End, false, j.scan())
		j.view.release(net)
		if !ok || (contiguous && !nonPreemptive(ps)) {
			return nil, false, nil
		}
		return j.exported(ps), true, nil
	}
	j.view.release(net)
	return a.allocateContested(j, index, sj, w, contiguous, capacity)
}

// windowNet is the net availability of the stage window w, with the cheap
// "no stretch has room" answer first: a NoPlacementError when no stretch
// of the window has room for the stage.
func windowNet(v *StageView, index int, s plan.Stage, sj stageJob, w berth.Interval) (*profile, error) {
	j := v.job()
	if cheap, none := j.noRoomCheap(w, sj); cheap {
		// The stretch test read the load steps alone.
		if none {
			return nil, &NoPlacementError{Agent: "LeastWaste", Stage: index, Reason: reasonNoRoom}
		}
		return j.net(w.Start, w.End)
	}
	prof, room, err := v.AvailableForStage(w, s)
	if err != nil {
		return nil, err
	}
	if !room {
		return nil, &NoPlacementError{Agent: "LeastWaste", Stage: index, Reason: reasonNoRoom}
	}
	return prof.p, nil
}

// allocateContested places a stage in a contested window: of the late
// and early greedy placements and the one-block placements, the one that
// strands the least within Gap of it, if it wastes no more than Slack
// allows.
func (a wasteAllocator) allocateContested(j *job, index int, sj stageJob, w berth.Interval, contiguous bool,
	capacity berth.Resource) ([]Placement, bool, error) {
	// Gap on each side: what a placement strands reaches that far.
	gap := a.opts.Gap
	lo, hi := w.Start, w.End
	if lo > berth.MinTime+gap {
		lo -= gap
	}
	if hi < berth.MaxTime-gap {
		hi += gap
	}
	ext, err := j.net(lo, hi)
	if err != nil {
		return nil, false, err
	}
	defer j.view.release(ext)
	sc := a.scorer(ext, gap, capacity)
	defer a.scorers.Put(sc)

	search := wasteSearch{scorer: sc, contiguous: contiguous, bestWaste: math.Inf(1)}
	for k, left := range [2]bool{false, true} {
		scratch := sc.scratchCopy(ext, k)
		if ps, ok := greedyRLE(scratch, sj, w.Start, w.End, left, j.scan()); ok {
			search.consider(ps)
		}
	}
	need := sj.batch(sj.gangs)
	if need.FitsIn(capacity) {
		starts := sc.flushStarts(w, sj.duration, need)
		if len(starts) > maxBlocks {
			// The latest and the earliest: the search stays cheap.
			starts = append(starts[:maxBlocks/2], starts[len(starts)-maxBlocks/2:]...)
		}
		for _, st := range starts {
			search.consider([]placement{{iv: berth.Interval{Start: st, End: st + sj.duration}, r: need}})
		}
	}
	if search.best == nil {
		if sj.gangs > fewGangs {
			// The late and early greedy placements failed, and every
			// block of all the gangs: the fallbacks rarely find more, at
			// a cost growing with the gangs.
			return nil, false, &NoPlacementError{Agent: "LeastWaste", Stage: index, Reason: reasonNoRoom}
		}
		return nil, false, nil
	}
	if a.opts.Slack >= 0 && search.bestWaste > a.opts.Slack*sc.share(need, sj.duration) {
		return nil, false, &NoPlacementError{Agent: "LeastWaste", Stage: index, Reason: reasonDeclined}
	}
	return j.exported(search.best), true, nil
}

// wasteSearch keeps the least wasteful of one stage's candidate
// placements.
type wasteSearch struct {
	scorer     *wasteScorer
	contiguous bool // the stage's batches must run back to back
	best       []placement
	bestWaste  float64
}

// consider scores ps and keeps it if it wastes less than the best so far
// (the first of equals).
func (s *wasteSearch) consider(ps []placement) {
	if len(ps) == 0 || (s.contiguous && !nonPreemptive(ps)) {
		return
	}
	if waste := s.scorer.waste(ps); waste < s.bestWaste {
		s.best, s.bestWaste = ps, waste
	}
}

// flushStarts returns the starts in [w.Start, w.End − dur] of a block of
// need lasting dur that fits everywhere in ext and starts or ends at a
// breakpoint of ext or an end of w, latest first, without repeats.
func (sc *wasteScorer) flushStarts(w berth.Interval, dur berth.Duration, need berth.Resource) []berth.Time {
	ext := sc.widened
	last := w.End - dur
	// bad[i] counts the segments before i where need does not fit.
	bad := append(sc.bad[:0], make([]int32, len(ext.ts)+1)...)
	sc.bad = bad
	for i, r := range ext.rs {
		bad[i+1] = bad[i]
		if !need.FitsIn(r) {
			bad[i+1]++
		}
	}
	fits := func(s berth.Time) bool {
		i, k := max(ext.floor(s), 0), ext.floor(s+dur-1)
		return k >= i && bad[k+1]-bad[i] == 0
	}
	out := sc.starts[:0]
	defer func() { sc.starts = out[:0] }()
	add := func(s berth.Time) {
		if s < w.Start || s > last || !fits(s) {
			return
		}
		out = append(out, s)
	}
	add(last)
	for i := len(ext.ts) - 1; i >= 0; i-- {
		t := ext.ts[i]
		add(t - dur)
		add(t)
		if i+1 < len(ext.ts) {
			add(ext.ts[i+1] - dur)
		}
	}
	add(w.Start)
	// Latest first, no repeats.
	slices.SortFunc(out, func(a, b berth.Time) int { return cmp.Compare(b, a) })
	return slices.Compact(out)
}

// wasteScorer measures the free area placements strand in one profile of
// free capacity.
type wasteScorer struct {
	widened        *profile
	gap            berth.Duration
	weight         [2]float64 // memory and vcores as shares of the capacity
	scratch        *profile
	copies         [2]*profile
	starts         []berth.Time
	bad            []int32
	memory, vcores bands
	capacity       berth.Resource
}

type band struct {
	start berth.Time
	h     int64
}

// scorer returns a scorer of ext, recycled when it can be.
func (a wasteAllocator) scorer(ext *profile, gap berth.Duration, capacity berth.Resource) *wasteScorer {
	sc, _ := a.scorers.Get().(*wasteScorer)
	if sc == nil {
		sc = &wasteScorer{scratch: &profile{}, copies: [2]*profile{{}, {}}}
	}
	sc.widened, sc.gap, sc.weight, sc.capacity = ext, gap, shareWeights(capacity), capacity
	return sc
}

// share is the area of r held for d, memory and vcores as shares of the
// capacity.
func (sc *wasteScorer) share(r berth.Resource, d berth.Duration) float64 {
	return (float64(r.Memory)*sc.weight[0] + float64(r.VCores)*sc.weight[1]) * float64(d)
}

// freeShare is the free area of p over w as a share of the capacity's
// (memory and vcores averaged; weight turns each into shares).
func freeShare(p *profile, w berth.Interval, weight [2]float64) float64 {
	var free float64
	for i := max(p.floor(w.Start), 0); i < len(p.ts) && p.ts[i] < w.End; i++ {
		e := p.end
		if i+1 < len(p.ts) {
			e = p.ts[i+1]
		}
		if l := min(e, w.End) - max(p.ts[i], w.Start); l > 0 {
			free += (float64(p.rs[i].Memory)*weight[0] + float64(p.rs[i].VCores)*weight[1]) * float64(l)
		}
	}
	if w.Len() <= 0 {
		return 0
	}
	return free / (2 * float64(w.Len()))
}

// scratchCopy returns a copy of p in the scorer's reusable copy k.
func (sc *wasteScorer) scratchCopy(p *profile, k int) *profile {
	c := sc.copies[k]
	c.ts, c.rs, c.end = append(c.ts[:0], p.ts...), append(c.rs[:0], p.rs...), p.end
	return c
}

// waste is how much the stranded free area grows when ps is taken out of
// ext. Only bands meeting the placement change, and those reaching
// further than gap beyond it are never stranded, so the sums are taken
// over the placement's hull widened by gap on each side.
func (sc *wasteScorer) waste(ps []placement) float64 {
	s, e := ps[0].iv.Start, ps[0].iv.End
	for _, p := range ps[1:] {
		s, e = min(s, p.iv.Start), max(e, p.iv.End)
	}
	lo, hi := max(s-sc.gap, sc.widened.ts[0]), min(e+sc.gap, sc.widened.end)
	if len(ps) == 1 {
		// One block: read the free capacity around it twice, the block
		// taken off on the fly the second time.
		return sc.strandedAround(lo, hi, &ps[0]) - sc.strandedAround(lo, hi, nil)
	}
	return sc.wasteByCopy(ps, lo, hi)
}

// wasteByCopy is waste over [lo, hi) on a copy of ext with ps taken off.
func (sc *wasteScorer) wasteByCopy(ps []placement, lo, hi berth.Time) float64 {
	// The local free capacity, before and after.
	loc := sc.scratch
	loc.ts, loc.rs, loc.end = loc.ts[:0], loc.rs[:0], hi
	for i := max(sc.widened.floor(lo), 0); i < len(sc.widened.ts) && sc.widened.ts[i] < hi; i++ {
		loc.ts = append(loc.ts, max(sc.widened.ts[i], lo))
		loc.rs = append(loc.rs, sc.widened.rs[i])
	}
	before := sc.stranded(loc)
	for _, p := range ps {
		loc.sub(p.iv.Start, p.iv.End, p.r)
	}
	return sc.stranded(loc) - before
}

// strandedAround is stranded over [lo, hi) of ext, less blk if not nil,
// without copying ext.
func (sc *wasteScorer) strandedAround(lo, hi berth.Time, blk *placement) float64 {
	p := sc.widened
	sc.memory.reset(lo, sc.gap)
	sc.vcores.reset(lo, sc.gap)
	feed := func(t berth.Time, r berth.Resource) {
		if blk != nil && t >= blk.iv.Start && t < blk.iv.End {
			r = r.Sub(blk.r)
		}
		sc.memory.step(t, max(r.Memory, 0), false)
		sc.vcores.step(t, max(r.VCores, 0), false)
	}
	for i := max(p.floor(lo), 0); i < len(p.ts) && p.ts[i] < hi; i++ {
		a, b := max(p.ts[i], lo), min(p.end, hi)
		if i+1 < len(p.ts) {
			b = min(p.ts[i+1], hi)
		}
		feed(a, p.rs[i])
		if blk != nil {
			if x := blk.iv.Start; a < x && x < b {
				feed(x, p.rs[i])
			}
			if x := blk.iv.End; a < x && x < b {
				feed(x, p.rs[i])
			}
		}
	}
	sc.memory.step(hi, -1, true)
	sc.vcores.step(hi, -1, true)
	return sc.memory.out*sc.weight[0] + sc.vcores.out*sc.weight[1]
}

// stranded sums, over the free bands of p that end inside its domain on
// both sides, (1 − l/gap) × area for the bands of length l < gap, memory
// and vcores as shares of the capacity.
func (sc *wasteScorer) stranded(p *profile) float64 {
	if p.empty() {
		return 0
	}
	sc.memory.reset(p.ts[0], sc.gap)
	sc.vcores.reset(p.ts[0], sc.gap)
	for i, t := range p.ts {
		sc.memory.step(t, max(p.rs[i].Memory, 0), false)
		sc.vcores.step(t, max(p.rs[i].VCores, 0), false)
	}
	sc.memory.step(p.end, -1, true)
	sc.vcores.step(p.end, -1, true)
	return sc.memory.out*sc.weight[0] + sc.vcores.out*sc.weight[1]
}

// strandedDim is stranded for one resource type (get reads it).
func strandedDim(p *profile, gap berth.Duration, get func(berth.Resource) int64) float64 {
	if p.empty() {
		return 0
	}
	var b bands
	b.reset(p.ts[0], gap)
	for i, t := range p.ts {
		b.step(t, max(get(p.rs[i]), 0), false)
	}
	b.step(p.end, -1, true)
	return b.out
}

// bands sums the stranded area of one resource type as its step function
// is read left to right: the region under it splits into maximal
// horizontal bands, found with a stack of (start, level) as the
// largest-rectangle algorithm does; a band closes when the function drops
// below its level.
type bands struct {
	st  []band
	lo  berth.Time
	gap berth.Duration
	out float64
}

func (b *bands) reset(lo berth.Time, gap berth.Duration) {
	b.st, b.lo, b.gap, b.out = b.st[:0], lo, gap, 0
}

// step reads level h from t on; edge marks the end of the domain, where
// the bands still open reach on and are not stranded.
func (b *bands) step(t berth.Time, h int64, edge bool) {
	st := b.st
	for len(st) > 0 && st[len(st)-1].h > h {
		top := st[len(st)-1]
		st = st[:len(st)-1]
		below := h
		if len(st) > 0 {
			below = max(below, st[len(st)-1].h)
		}
		if l := t - top.start; !edge && top.start > b.lo && l < b.gap {
			b.out += (1 - float64(l)/float64(b.gap)) * float64(top.h-below) * float64(l)
		}
		if len(st) == 0 || st[len(st)-1].h < h {
			st = append(st, band{top.start, h})
		}
	}
	if len(st) == 0 || st[len(st)-1].h < h {
		st = append(st, band{t, h})
	}
	b.st = st
}

// hopeless reports whether some stage of def that every placement needs
// has, on its own, no stretch with room for its gangs in the only part of
// the window it can use (R_ALL: the window; R_ORDER and R_ORDER_NO_GAP:
// the window less the other stages' durations before and after it), or,
// for R_ANY, whether no stage has. Then no placement exists, and the
// planners need not run. It tests only what it can read cheaply from the
// plan's load steps (see [StageView.AvailableForStage]), answering false
// otherwise.
func hopeless(v planView, id plan.ReservationID, user string, def plan.Definition, opts Config) bool {
	m, memo := v.(*loadsMemo)
	pa, ok := v.(planAdapter)
	if memo {
		// The portfolio's view of one decision: the plan under it, its
		// load steps read once.
		pa, ok = m.planView.(planAdapter)
	}
	if !ok || def.Period != 0 || len(def.Stages) == 0 {
		return false
	}
	p := pa.p
	// The memo, when it answers for id, checked the policy and the old
	// version as below.
	memo = memo && m.answers(id)
	if !memo && !physicalFor(p, id) {
		return false
	}
	_ = user
	step, capacity, calc := p.Step(), v.capacity(), p.Calculator()
	var total uint64
	for _, s := range def.Stages {
		if s.Duration <= 0 || s.Concurrency <= 0 || s.Containers <= 0 {
			return false
		}
		total += uint64(stepRoundUp(s.Duration, step))
	}
	ordered := def.Interpreter == plan.ROrder || def.Interpreter == plan.ROrderNoGap
	// An over-committed plan makes the planners answer
	// berth.ErrCapacityExceeded where they read it (YARN's availability
	// computation throws); the arithmetic below would answer ErrNoPlacement
	// instead. They read the contract, and an ordered request longer than
	// its window from its deadline less its stages back.
	read := berth.Interval{Start: def.Arrival, End: def.Deadline}
	if ordered && total > uint64(def.Deadline-def.Arrival) {
		if total > uint64(def.Deadline-berth.MinTime) {
			return false
		}
		read.Start = def.Deadline - berth.Time(total)
	}
	if read.End < berth.MaxTime {
		read.End++
	}
	if memo && read.Start == def.Arrival {
		if m.overCommitted() {
			return false
		}
	} else if pk, err := p.PeakLoad(read); err != nil || !pk.FitsIn(capacity) {
		return false
	}
	var before uint64
	for _, s := range def.Stages {
		d := uint64(stepRoundUp(s.Duration, step))
		w := berth.Interval{Start: def.Arrival, End: def.Deadline}
		if ordered {
			if total > uint64(w.End-w.Start) {
				return true
			}
			w = berth.Interval{Start: w.Start + berth.Time(before), End: w.End - berth.Time(total-before-d)}
		}
		before += d
		sj := stageJob{
			fitter: fitter{calc: calc, cluster: capacity, gang: s.Capability.MulInt(s.Concurrency),
				componentwise: opts.ComponentwiseFit},
			container: s.Capability, concurrency: s.Concurrency, gangs: s.Containers / s.Concurrency,
			duration: stepRoundUp(s.Duration, step), requestedDuration: s.Duration, step: step,
		}
		need := newStretchNeed(sj)
		none := !w.Valid() || uint64(w.End-w.Start) < uint64(sj.duration)
		if !none {
			var ok bool
			if memo {
				none, ok = m.noRoom(id, w, &need)
			}
			if !ok {
				none = noRoom(p, pa.bufs, w, &need)
			}
		}
		switch {
		case def.Interpreter == plan.RAny && !none:
			return false
		case def.Interpreter != plan.RAny && none:
			return true
		}
	}
	return def.Interpreter == plan.RAny
}

// noRoom is the stretch test of loadProfile alone: no profile is built.
func noRoom(p *plan.Plan, bufs *stepBuffers, w berth.Interval, need *stretchNeed) bool {
	buf := bufs.get()
	defer bufs.put(buf)
	steps, err := p.AppendLoadSteps((*buf)[:0], w, "")
	if err != nil {
		return false
	}
	*buf = steps
	if len(steps) == 0 {
		steps = []rle.Step{{Interval: w}}
	}
	return noStretch(steps, p.Capacity(), need, w)
}

// noRoomCheap runs the stretch test of [StageView.AvailableForStage] for
// sj over w on the plan's load steps alone, without building a profile.
// cheap is false when that test does not apply (a period, an earlier
// stage placed, the old version held, a policy that changes availability);
// otherwise none reports that no stretch has room.
func (j *job) noRoomCheap(w berth.Interval, sj stageJob) (cheap, none bool) {
	pa, ok := j.view.(planAdapter)
	if !ok || j.placed || j.period != 0 || !w.Valid() {
		return false, false
	}
	p := pa.p
	if !physicalFor(p, j.id) {
		return false, false
	}
	need := newStretchNeed(sj)
	return true, noRoom(p, pa.bufs, w, &need)
}
