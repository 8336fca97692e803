package preempt

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
)

// IdealOptions are the flags with which a selector computes the ideal
// assignment (YARN's PreemptableResourceCalculator settings).
type IdealOptions struct {
	// IncludeReserved counts reserved resources as demand (pending rather
	// than pending less reserved).
	IncludeReserved bool
	// SkipNaturalTermination asks for the whole excess at once, as the
	// reserved-container selector does.
	SkipNaturalTermination bool
	// AllowBalance lets a leaf's ideal grow past max(used, guaranteed),
	// evening out queues already beyond their guarantee.
	AllowBalance bool
}

// Assignment is one queue's result of an ideal-assignment computation.
type Assignment struct {
	// Ideal is the queue's ideal assignment.
	Ideal berth.Resource
	// ToBePreempted is its excess over the ideal, scaled to the round's
	// budget; ToObtain what a leaf is asked to give this round (dead zone,
	// natural termination, less what earlier selectors took).
	ToBePreempted, ToObtain berth.Resource
	// Preemptable and Untouchable split the queue's usage beyond its
	// guarantee by whether preemption is enabled beneath it.
	Preemptable, Untouchable berth.Resource
}

// tq is the mutable state of one queue on one partition in the fix-point
// (YARN's TempQueuePerPartition fields), with the queue's state there.
type tq struct {
	v                                      *QueueView
	guar, max, used, pending, pendingNoRes berth.Resource
	ideal, toBePreempted                   berth.Resource
	// actual is YARN's actuallyToBePreempted: set by each ideal
	// computation, less what the round chose before it (toObtain); obtain
	// is the selector's working copy (YARN's resToObtainByPartition), which
	// its choices use up.
	actual, obtain         berth.Resource
	untouchable, preemptab berth.Resource
	norm                   []float64
	hasObtain              bool
}

// types are the resource types of the round: memory, vcores, then the
// cluster's extended types.
func roundTypeNames(cluster berth.Resource) []string {
	names := []string{berth.ResourceMemory, berth.ResourceVCores}
	for _, q := range cluster.Extras() {
		names = append(names, q.Name)
	}
	return names
}

func typeValue(r berth.Resource, i int, names []string) int64 {
	switch i {
	case 0:
		return r.Memory
	case 1:
		return r.VCores
	}
	return r.Extra(names[i])
}

func withTypeValue(r berth.Resource, i int, names []string, v int64) berth.Resource {
	switch i {
	case 0:
		r.Memory = v
	case 1:
		r.VCores = v
	default:
		r = r.With(names[i], v)
	}
	return r
}

// mulNormUp is multiplyAndNormalizeUp(r, by[], step 1) per calculator:
// memory only, half up, for the memory calculator; ceil per type for the
// dominant one.
func mulNormUp(calc berth.Calculator, r berth.Resource, by []float64, names []string) berth.Resource {
	if _, ok := calc.(berth.DominantCalculator); !ok {
		return berth.FromMemory(truncToInt64(float64(r.Memory)*by[0] + 0.5))
	}
	out := berth.Resource{}
	for i := range names {
		out = withTypeValue(out, i, names, truncToInt64(math.Ceil(float64(typeValue(r, i, names))*by[i])))
	}
	return out
}

func truncToInt64(v float64) int64 {
	switch {
	case v != v:
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	case v <= math.MinInt64:
		return math.MinInt64
	}
	return int64(v)
}

var noResource berth.Resource

// computeExtras splits, on every partition and bottom up, each queue's
// usage beyond its guarantee into preemptable and untouchable parts.
func (r *ProportionalRound) computeExtras() {
	for p := range r.Cluster.Partitions {
		r.setPart(p)
		r.computeExtrasHere()
	}
	r.setPart(0)
}

func (r *ProportionalRound) computeExtrasHere() {
	calc, cluster := r.Cluster.Calculator, r.partResource
	for i := len(r.tqs) - 1; i >= 0; i-- {
		t := &r.tqs[i]
		v := t.v
		extra := noResource
		if !berth.LessThan(calc, cluster, t.used, t.guar) {
			extra = berth.ComponentwiseMax(t.used.Sub(t.guar), noResource)
		}
		if v.IsLeaf() {
			if v.DisablePreemption {
				t.untouchable = extra
			} else {
				t.preemptab = extra
			}
			continue
		}
		cp := noResource
		for _, ch := range v.Children {
			cp = cp.Add(r.tqs[ch.idx].preemptab)
		}
		if berth.GreaterOrEqual(calc, cluster, cp, extra) {
			t.untouchable = noResource
		} else {
			t.untouchable = extra.Sub(cp)
		}
		t.preemptab = berth.Min(calc, cluster, cp, extra)
	}
}

// ComputeIdeal runs YARN's ideal-assignment fix-point
// (PreemptableResourceCalculator.computeIdealAllocation) over the whole
// tree of every partition with the given flags, then the amount each leaf
// must give there (calculateResToObtainByPartitionForLeafQueues), less
// what earlier selectors of the round already took. Its results replace the previous computation's
// ([ProportionalRound.Assignment], [ProportionalRound.ToObtain]).
func (r *ProportionalRound) ComputeIdeal(o IdealOptions) {
	r.opts = o
	if len(r.tqs) == 0 { // a round the policy did not build: no queues
		return
	}
	r.underServed = r.underServed[:0]
	clear(r.served)
	for i := range r.all {
		t := &r.all[i]
		t.ideal, t.toBePreempted, t.actual, t.obtain, t.hasObtain = noResource, noResource, noResource, noResource, false
	}
	for p := range r.Cluster.Partitions {
		r.setPart(p)
		root := &r.tqs[0]
		root.ideal = root.guar
		if root.ideal.IsZero() && p == 0 {
			root.ideal = r.partResource
		}
		for _, v := range r.Cluster.Queues { // parents before children
			if !v.IsLeaf() {
				r.distribute(v.Children, r.tqs[v.idx].ideal)
			}
		}
		r.toObtainHere()
	}
	r.setPart(0)
	r.deductSelected()
	r.saveAssignments()
}

// setPart makes partition p the one the fix-point works on: its queues'
// states and its resource, which comparisons are relative to.
func (r *ProportionalRound) setPart(p int) {
	n := len(r.Cluster.Queues)
	r.part, r.partResource = p, r.Cluster.Partitions[p].Resource
	r.tqs, r.assign = r.all[p*n:(p+1)*n:(p+1)*n], r.assignAll[p*n:(p+1)*n:(p+1)*n]
}

// at is queue v's state on partition p.
func (r *ProportionalRound) at(p int, v *QueueView) *tq { return &r.all[p*len(r.Cluster.Queues)+v.idx] }

func (r *ProportionalRound) pend(t *tq) berth.Resource {
	if r.opts.IncludeReserved {
		return t.pending
	}
	return t.pendingNoRes
}

// distribute is computeIdealResourceDistribution for one parent's children.
func (r *ProportionalRound) distribute(children []*QueueView, avail berth.Resource) {
	calc, cluster := r.Cluster.Calculator, r.partResource
	unassigned := avail
	nonZero, zeroG := r.scratchA[:0], r.scratchB[:0]
	for _, ch := range children {
		if berth.GreaterThan(calc, cluster, r.tqs[ch.idx].guar, noResource) {
			nonZero = append(nonZero, &r.tqs[ch.idx])
		} else {
			zeroG = append(zeroG, &r.tqs[ch.idx])
		}
	}
	r.fixpoint(nonZero, &unassigned, false)
	// Queues without a guarantee share only what the others left; when
	// nothing is left their ideal stays zero, as in YARN.
	if len(zeroG) > 0 && berth.GreaterThan(calc, cluster, unassigned, noResource) {
		r.fixpoint(zeroG, &unassigned, true)
	}
	r.scratchA, r.scratchB = nonZero[:0], zeroG[:0]
	need := noResource
	for _, ch := range children {
		t := &r.tqs[ch.idx]
		if berth.GreaterThan(calc, cluster, t.used, t.ideal) {
			need = need.Add(t.used.Sub(t.ideal))
		}
	}
	scaling := 1.0
	if berth.GreaterThan(calc, cluster, need, r.budget) {
		scaling = float64(calc.Divide(cluster, r.budget, need))
	}
	for _, ch := range children {
		t := &r.tqs[ch.idx]
		keep := berth.Max(calc, cluster, berth.Min(calc, cluster, t.used.Add(r.pend(t)), t.guar), t.ideal)
		if berth.GreaterThan(calc, cluster, t.used, keep) {
			t.toBePreempted = t.used.SubNonNegative(keep).Mul(scaling)
		} else {
			t.toBePreempted = noResource
		}
	}
}

// initial is the fix-point's starting assignment of one queue; it reports
// whether the queue still wants more.
func (r *ProportionalRound) initial(t *tq, unassigned *berth.Resource) bool {
	calc, cluster := r.Cluster.Calculator, r.partResource
	if berth.GreaterThan(calc, cluster, t.used, t.guar) {
		t.ideal = berth.ComponentwiseMin(t.guar, t.used).Add(t.untouchable)
	} else {
		t.ideal = t.used
	}
	*unassigned = unassigned.Sub(t.ideal)
	return berth.LessThan(calc, cluster, t.ideal, t.used.Add(r.pend(t)))
}

// underservedCmp orders the most under-served queue first: ideal over
// guarantee, with queue priorities as the scheduler's child ordering.
func (r *ProportionalRound) underservedCmp(a, b *tq) int {
	pa, pb := r.pct(a), r.pct(b)
	return cmpUsage(pa, pb, a.v.RelativePriority, b.v.RelativePriority)
}

func (r *ProportionalRound) pct(t *tq) float64 {
	calc, cluster := r.Cluster.Calculator, r.partResource
	if berth.GreaterThan(calc, cluster, t.guar, noResource) {
		return float64(calc.Divide(cluster, t.ideal, t.guar))
	}
	return math.MaxInt32
}

// cmpUsage is the priority-utilization comparison YARN's preemption shares
// with the scheduler's child ordering.
func cmpUsage(u1, u2 float64, p1, p2 int) int {
	if p1 != p2 && ((u1 < 1 && u2 < 1) || (u1 >= 1 && u2 >= 1)) {
		return compareInts(int64(p2), int64(p1))
	}
	switch {
	case u1 < u2:
		return -1
	case u1 > u2:
		return 1
	}
	return 0
}

// fixpoint is computeFixpointAllocation: offer what is unassigned to the
// most under-served queues, in proportion to their guarantees (or evenly),
// until nobody takes more or nothing is left.
func (r *ProportionalRound) fixpoint(qs []*tq, unassigned *berth.Resource, ignoreGuarantee bool) {
	calc, cluster := r.Cluster.Calculator, r.partResource
	needy := r.needy[:0]
	for _, t := range qs {
		if r.initial(t, unassigned) {
			needy = append(needy, t)
		}
	}
	names := r.names
	for len(needy) > 0 && berth.GreaterThan(calc, cluster, *unassigned, noResource) {
		// Normalized guarantees over every queue still needy.
		sums := r.sums[:0]
		for i := range names {
			var s int64
			for _, t := range needy {
				s += typeValue(t.guar, i, names)
			}
			sums = append(sums, s)
		}
		r.sums = sums
		for _, t := range needy {
			if cap(t.norm) < len(names) {
				t.norm = make([]float64, len(names))
			}
			t.norm = t.norm[:len(names)]
			for i := range names {
				switch {
				case ignoreGuarantee:
					t.norm[i] = float64(float32(1) / float32(len(needy)))
				case sums[i] == 0:
					t.norm[i] = 0
				default:
					t.norm[i] = float64(float32(typeValue(t.guar, i, names)) / float32(sums[i]))
				}
			}
		}
		// The most under-served group; ties keep child order (YARN's
		// depend on hash order).
		slices.SortStableFunc(needy, r.underservedCmp)
		n := 1
		for n < len(needy) && r.underservedCmp(needy[0], needy[n]) == 0 {
			n++
		}
		group := append(r.group[:0], needy[:n]...)
		r.group = group
		needy = append(needy[:0], needy[n:]...)
		snapshot := *unassigned
		for _, t := range group {
			r.markUnderServed(t.v)
			if !calc.AnyMajorAboveZero(*unassigned) {
				break
			}
			offer := berth.ComponentwiseMin(mulNormUp(calc, snapshot, t.norm, names), *unassigned)
			accepted := offer.Sub(r.offer(t, offer))
			if berth.GreaterThan(calc, cluster, accepted, noResource) {
				needy = append(needy, t)
			}
			*unassigned = berth.ComponentwiseMax(unassigned.Sub(accepted), noResource)
		}
	}
	for _, t := range needy {
		r.markUnderServed(t.v)
	}
	r.needy = needy[:0]
}

func (r *ProportionalRound) markUnderServed(v *QueueView) {
	if r.part != 0 {
		return // the intra-queue selector serves the default partition
	}
	if !r.served[v.idx] {
		r.served[v.idx] = true
		r.underServed = append(r.underServed, v)
	}
}

// offer gives t up to avail and returns what it did not take.
func (r *ProportionalRound) offer(t *tq, avail berth.Resource) berth.Resource {
	calc, cluster := r.Cluster.Calculator, r.partResource
	acc := berth.ComponentwiseMin(berth.ComponentwiseMax(t.max.Sub(t.ideal), noResource),
		berth.Min(calc, cluster, avail, t.used.Add(r.pend(t)).Sub(t.ideal)))
	if !r.opts.AllowBalance && t.v.IsLeaf() {
		acc = berth.Min(calc, cluster, acc, berth.Max(calc, cluster, berth.Max(calc, cluster, t.used, t.guar).Sub(t.ideal), noResource))
	}
	acc = berth.ComponentwiseMin(berth.ComponentwiseMax(acc, noResource), avail)
	t.ideal = t.ideal.Add(acc)
	return avail.Sub(acc)
}

// toObtainHere computes what each leaf must give on the current partition
// this round: nothing inside the dead zone, else a share of its excess.
func (r *ProportionalRound) toObtainHere() {
	calc, cluster := r.Cluster.Calculator, r.partResource
	step := berth.Uniform(1)
	for _, v := range r.Cluster.Leaves {
		t := &r.tqs[v.idx]
		if v.DisablePreemption {
			continue
		}
		if berth.GreaterThan(calc, cluster, t.used, t.guar.Mul(1+r.Config.MaxIgnoredOverCapacity)) {
			a := t.toBePreempted
			if !r.opts.SkipNaturalTermination && berth.GreaterThan(calc, cluster, a, noResource) {
				a = calc.MultiplyAndNormalizeUp(a, r.Config.NaturalTerminationFactor, step)
			}
			t.actual = a
		}
	}
}

// deductSelected takes what the round's earlier selectors already chose
// off what each leaf must give on the chosen container's partition (in
// the order they chose it; YARN walks them in hash order, which matters
// only when sizes differ), then arms each leaf's working amounts.
func (r *ProportionalRound) deductSelected() {
	calc := r.Cluster.Calculator
	for _, s := range r.selected {
		if s.Leaf != nil && s.part >= 0 {
			r.at(s.part, s.Leaf).deduct(calc, r.Cluster.Partitions[s.part].Resource, s.Resource)
		}
	}
	for p, pv := range r.Cluster.Partitions {
		for _, v := range r.Cluster.Leaves {
			t := r.at(p, v)
			t.obtain = t.actual
			t.hasObtain = berth.GreaterThan(calc, pv.Resource, t.actual, noResource)
		}
	}
}

// deduct is YARN's deductActuallyToBePreempted: a container chosen
// earlier in the round is taken off what the leaf must still give only
// while that is greater than the container, so a remainder the size of
// the last container stays and the selector takes one more; the result
// is then clamped at zero under the calculator.
func (t *tq) deduct(calc berth.Calculator, cluster, size berth.Resource) {
	if berth.GreaterThan(calc, cluster, t.actual, size) {
		t.actual = t.actual.Sub(size)
	}
	t.actual = berth.Max(calc, cluster, t.actual, noResource)
}
