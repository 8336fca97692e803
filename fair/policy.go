package fair

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/berthsched/berth"
)

// Schedulable is what the policies order and share among: a queue or an
// application as its parent sees it (YARN's Schedulable). The scheduler keeps
// one per queue and per application; tests and callers can build them
// directly to use the policies on their own.
type Schedulable struct {
	// Name breaks the last ties: the queue's full path or the application id.
	Name string
	// Demand is what the schedulable could use: usage plus pending asks
	// (queues: capped at MaxShare).
	Demand berth.Resource
	// Usage is what it holds now.
	Usage berth.Resource
	// MinShare is the guaranteed share (queues: minResources).
	MinShare berth.Resource
	// MaxShare caps the share. Types missing from it count as 0, so an
	// unbounded maximum must list every configured type (see [Unbounded]).
	MaxShare berth.Resource
	// Weight scales the share; YARN keeps weights in single precision, so
	// values parsed from files are rounded through float32.
	Weight float64
	// StartTime orders FIFO and breaks ties (queues: 0).
	StartTime berth.Time
	// Priority orders FIFO before the start time; higher first (queues: 1).
	Priority int32
	// Queue marks a queue: only queues can be inactive.
	Queue bool
	// Active is meaningful for queues: an inactive queue (no runnable
	// application below it) gets a zero instantaneous fair share.
	Active bool
	// FairShare is the instantaneous fair share, written by the policies.
	FairShare berth.Resource
	// SteadyFairShare is the steady fair share (queues only).
	SteadyFairShare berth.Resource
}

// Unbounded returns the largest resource with memory, vcores and every
// given extended type at math.MaxInt64 (YARN's unbounded resource when
// those types are configured).
func Unbounded(types ...string) berth.Resource { return berth.Uniform(math.MaxInt64, types...) }

// Policy is a queue's scheduling policy: how its children (or applications)
// are ordered for assignment and how its fair share is divided among them.
type Policy uint8

const (
	// PolicyFair is YARN's FairSharePolicy: max-min fairness on memory only.
	PolicyFair Policy = iota + 1
	// PolicyFIFO is YARN's FifoPolicy: priority, then start time; leaves only.
	PolicyFIFO
	// PolicyDRF is YARN's DominantResourceFairnessPolicy over every type.
	PolicyDRF
)

// ParsePolicy reads a policy name as YARN's SchedulingPolicy.parse does:
// "fair", "fifo" and "drf" in any case, or the simple or fully qualified
// class name of one of YARN's policies.
func ParsePolicy(s string) (Policy, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "fair":
		return PolicyFair, nil
	case "fifo":
		return PolicyFIFO, nil
	case "drf":
		return PolicyDRF, nil
	}
	const pkg = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."
	switch strings.TrimPrefix(t, pkg) {
	case "FairSharePolicy":
		return PolicyFair, nil
	case "FifoPolicy":
		return PolicyFIFO, nil
	case "DominantResourceFairnessPolicy":
		return PolicyDRF, nil
	}
	return 0, berth.InvalidField("schedulingPolicy", s, s+" SchedulingPolicy class not found!")
}

// String returns YARN's policy name: "fair", "FIFO" or "DRF".
func (p Policy) String() string {
	switch p {
	case PolicyFair:
		return "fair"
	case PolicyFIFO:
		return "FIFO"
	case PolicyDRF:
		return "DRF"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// Calculator returns the resource calculator the policy decides with:
// memory only for fair and FIFO, dominant resource for DRF.
func (p Policy) Calculator() berth.Calculator {
	if p == PolicyDRF {
		return berth.DominantCalculator{}
	}
	return berth.MemoryCalculator{}
}

// AllowsChild reports whether a parent with policy p may have a child with
// policy child: a fair parent may not have a DRF child; FIFO is only for
// leaves, which is checked where the queue's depth is known.
func (p Policy) AllowsChild(child Policy) bool {
	return !(p == PolicyFair && child == PolicyDRF)
}

// UsageOverFairShare reports whether usage exceeds the fair share under the
// policy (memory for fair/FIFO, any type for DRF).
func (p Policy) UsageOverFairShare(usage, fairShare berth.Resource) bool {
	if p == PolicyDRF {
		return !usage.FitsIn(fairShare)
	}
	return usage.Memory > fairShare.Memory
}

// Headroom is YARN's per-policy headroom: what is left of the queue's fair
// share (never negative), capped by maxAvailable. Fair and FIFO cap memory
// only and pass the available vcores through.
func (p Policy) Headroom(queueFairShare, queueUsage, maxAvailable berth.Resource) berth.Resource {
	mem := min(maxAvailable.Memory, max(queueFairShare.Memory-queueUsage.Memory, 0))
	if p == PolicyDRF {
		vc := min(maxAvailable.VCores, max(queueFairShare.VCores-queueUsage.VCores, 0))
		return berth.New(mem, vc)
	}
	return berth.New(mem, maxAvailable.VCores)
}

// signum is Java's (int) Math.signum(d): NaN gives 0.
func signum(d float64) int {
	switch {
	case d > 0:
		return 1
	case d < 0:
		return -1
	}
	return 0
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// tieBreak orders by start time, then name (YARN compares names as Java
// strings; Go compares bytes, which agrees except for characters outside the
// Basic Multilingual Plane).
func tieBreak(a, b *Schedulable) int {
	if c := cmpInt64(a.StartTime, b.StartTime); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// Compare orders a before b (negative) when a should be offered resources
// first. cluster is the cluster resource (DRF only); types are the
// configured extended resource types: with none, DRF uses YARN's
// two-type comparator, otherwise the N-type one. A nil schedulable sorts
// after every other.
func (p Policy) Compare(cluster berth.Resource, types []string, a, b *Schedulable) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	switch p {
	case PolicyFIFO:
		return compareFIFO(a, b)
	case PolicyDRF:
		if len(types) == 0 {
			return compareDRF2(cluster, a, b)
		}
		return compareDRFN(cluster, types, a, b)
	}
	return compareFair(a, b)
}

func compareFIFO(a, b *Schedulable) int {
	if c := cmpInt64(int64(b.Priority), int64(a.Priority)); c != 0 {
		return c
	}
	return tieBreak(a, b)
}

// compareFair is YARN's FairShareComparator: demand, then min-share
// neediness, then usage per weight, then start time and name — all on
// memory only.
func compareFair(a, b *Schedulable) int {
	da, db := a.Demand.Memory, b.Demand.Memory
	switch {
	case da == 0 && db > 0:
		return 1
	case db == 0 && da > 0:
		return -1
	}
	ua, ub := a.Usage.Memory, b.Usage.Memory
	ma, mb := min(a.MinShare.Memory, da), min(b.MinShare.Memory, db)
	na, nb := ua < ma, ub < mb
	switch {
	case na && !nb:
		return -1
	case nb && !na:
		return 1
	case na && nb:
		ra := float64(ua) / float64(max(ma, 1))
		rb := float64(ub) / float64(max(mb, 1))
		if c := signum(ra - rb); c != 0 {
			return c
		}
	}
	wa, wb := a.Weight, b.Weight
	var ra, rb float64
	switch {
	case wa > 0 && wb > 0:
		ra, rb = float64(ua)/wa, float64(ub)/wb
	case wa == wb:
		ra, rb = float64(ua), float64(ub)
	default:
		ra, rb = -wa, -wb
	}
	if c := signum(ra - rb); c != 0 {
		return c
	}
	return tieBreak(a, b)
}

// compareDRF2 is YARN's two-type DRF comparator (memory and vcores), with
// the neediness of b computed from b's own usage (YARN 3.3.2 read a's; later
// releases fixed it).
func compareDRF2(cluster berth.Resource, a, b *Schedulable) int {
	sa, da := drfShares2(a, cluster)
	sb, db := drfShares2(b, cluster)
	ua, ub := [2]int64{a.Usage.Memory, a.Usage.VCores}, [2]int64{b.Usage.Memory, b.Usage.VCores}
	ma, mb := [2]int64{a.MinShare.Memory, a.MinShare.VCores}, [2]int64{b.MinShare.Memory, b.MinShare.VCores}
	na, nb := ua[da] < ma[da], ub[db] < mb[db]
	res := 0
	switch {
	case !na && !nb:
		res = signum(sa[da] - sb[db])
		if res == 0 {
			res = signum(sa[1-da] - sb[1-db])
		}
	case na && !nb:
		res = -1
	case nb && !na:
		res = 1
	default:
		ra := [2]float64{float64(ua[0]) / float64(ma[0]), float64(ua[1]) / float64(ma[1])}
		rb := [2]float64{float64(ub[0]) / float64(mb[0]), float64(ub[1]) / float64(mb[1])}
		res = signum(ra[da] - rb[db])
		if res == 0 {
			res = signum(ra[1-da] - rb[1-db])
		}
	}
	if res == 0 {
		res = tieBreak(a, b)
	}
	return res
}

// drfShares2 returns usage/cluster per weight for memory (0) and vcores (1)
// in double precision and the dominant index (vcores only when strictly
// larger).
func drfShares2(s *Schedulable, cluster berth.Resource) ([2]float64, int) {
	m := float64(s.Usage.Memory) / float64(cluster.Memory)
	v := float64(s.Usage.VCores) / float64(cluster.VCores)
	d := 0
	if v > m {
		d = 1
	}
	if w := s.Weight; w != 1 {
		return [2]float64{m / w, v / w}, d
	}
	// x/1 is x exactly (NaN and infinities too): the usual weight spares
	// two divisions.
	return [2]float64{m, v}, d
}

// drfRow is one resource type's ratios in the N-type DRF comparator:
// usage/cluster, that per weight, and usage/minShare, in single precision as
// in YARN.
type drfRow [3]float32

// drfRatios fills one row per type (memory, vcores, then types) and returns
// the dominant index (first largest usage ratio).
func drfRatios(s *Schedulable, cluster berth.Resource, types []string) ([]drfRow, int) {
	rows := make([]drfRow, 2+len(types))
	dom := 0
	w := float32(s.Weight)
	for i := range rows {
		name := typeAt(types, i)
		u := float32(s.Usage.Get(name)) / float32(cluster.Get(name))
		rows[i][0] = u
		if u > rows[dom][0] {
			dom = i
		}
		rows[i][1] = u / w
	}
	return rows, dom
}

// typeAt names the i-th type: memory, vcores, then the extended types.
func typeAt(types []string, i int) string {
	switch i {
	case 0:
		return berth.ResourceMemory
	case 1:
		return berth.ResourceVCores
	}
	return types[i-2]
}

// sortRatios orders rows by usage ratio, largest first, stably (YARN sorts
// object arrays with a stable sort).
func sortRatios(rows []drfRow) {
	sort.SliceStable(rows, func(i, j int) bool { return signum(float64(rows[j][0]-rows[i][0])) < 0 })
}

// compareRatios compares two sorted row sets on one column, row by row.
func compareRatios(a, b []drfRow, col int) int {
	for i := range a {
		if c := signum(float64(a[i][col] - b[i][col])); c != 0 {
			return c
		}
	}
	return 0
}

// compareDRFN is YARN's N-type DRF comparator.
func compareDRFN(cluster berth.Resource, types []string, a, b *Schedulable) int {
	ra, da := drfRatios(a, cluster, types)
	rb, db := drfRatios(b, cluster, types)
	dn, dm := typeAt(types, da), typeAt(types, db)
	na := a.Usage.Get(dn) < a.MinShare.Get(dn)
	nb := b.Usage.Get(dm) < b.MinShare.Get(dm)
	res := 0
	switch {
	case !na && !nb:
		sortRatios(ra)
		sortRatios(rb)
		res = compareRatios(ra, rb, 1)
	case na && !nb:
		res = -1
	case nb && !na:
		res = 1
	default:
		for i := range ra {
			n := typeAt(types, i)
			ra[i][2] = float32(a.Usage.Get(n)) / float32(a.MinShare.Get(n))
			rb[i][2] = float32(b.Usage.Get(n)) / float32(b.MinShare.Get(n))
		}
		sortRatios(ra)
		sortRatios(rb)
		res = compareRatios(ra, rb, 2)
	}
	if res == 0 {
		res = tieBreak(a, b)
	}
	return res
}

// ComputeShares divides total among ss as the policy's instantaneous fair
// share and stores it in each FairShare: fair computes memory only (other
// components keep their value, as in YARN), DRF every type (memory, vcores
// and types), and FIFO gives all of total to the earliest-started
// schedulable and leaves the others untouched. Nil entries are skipped.
func (p Policy) ComputeShares(ss []*Schedulable, total berth.Resource, types []string) {
	p.computeShares(ss, total, types, false, nil)
}

// ComputeSteadyShares is ComputeShares for the steady fair share (every
// queue takes part, active or not); FIFO computes nothing.
func (p Policy) ComputeSteadyShares(ss []*Schedulable, total berth.Resource, types []string) {
	p.computeShares(ss, total, types, true, nil)
}

// shareBuf is reusable scratch space for repeated share computations.
type shareBuf struct {
	out    []int64
	sc     shareScratch
	views  []SchedulableView
	shares []berth.Resource
	vals   []int64 // divideTypes' per-type shares, type after type
}

// computeShares divides total among ss through the built-in policy's
// ShareDivider, as the scheduler does (see divideInto).
func (p Policy) computeShares(ss []*Schedulable, total berth.Resource, types []string, steady bool, buf *shareBuf) {
	if buf == nil {
		buf = &shareBuf{}
	}
	if slices.Contains(ss, nil) {
		ss = slices.DeleteFunc(slices.Clone(ss), func(s *Schedulable) bool { return s == nil })
	}
	views := buf.viewsFor(len(ss))
	for i, s := range ss {
		views[i] = SchedulableView{s}
	}
	b := builtinPolicy{p}
	divideInto(b, b, PolicyEnv{Types: types, scratch: buf}, views, total, steady, buf)
}

// viewsFor returns scratch views of length n.
func (b *shareBuf) viewsFor(n int) []SchedulableView {
	if cap(b.views) < n {
		b.views = make([]SchedulableView, n)
	}
	return b.views[:n]
}

// sharesFor returns scratch shares of length n.
func (b *shareBuf) sharesFor(n int) []berth.Resource {
	if cap(b.shares) < n {
		b.shares = make([]berth.Resource, n)
	}
	return b.shares[:n]
}

// valsFor returns scratch integers of length n.
func (b *shareBuf) valsFor(n int) []int64 {
	if cap(b.vals) < n {
		b.vals = make([]int64, n)
	}
	return b.vals[:n]
}

// current is s's share as it stands: what a built-in leaves of the types
// it does not compute (YARN writes only those it computes).
func current(s *Schedulable, steady bool) berth.Resource {
	if steady {
		return s.SteadyFairShare
	}
	return s.FairShare
}

// shareOf is the share a division installs into.
func shareOf(s *Schedulable, steady bool) *berth.Resource {
	if steady {
		return &s.SteadyFairShare
	}
	return &s.FairShare
}

// shareTypes is how many types the built-in divides per type (see
// TypeSharer.ShareTypes); FIFO hands out whole resources, so it divides
// through computeInto.
func (p Policy) shareTypes(types []string) int {
	switch p {
	case PolicyFIFO:
		return -1
	case PolicyDRF:
		return 2 + len(types)
	}
	return 1
}

// computeInto is ComputeShares writing every out[i] (see
// ShareDivider.ComputeShares): the computed types, and the current
// share for the others.
func (p Policy) computeInto(ss []SchedulableView, total berth.Resource, types []string, steady bool, out []berth.Resource, buf *shareBuf) {
	if len(ss) == 0 {
		return
	}
	if p == PolicyFIFO {
		first := 0
		for i, v := range ss {
			out[i] = current(v.s, steady)
			if v.s.StartTime < ss[first].s.StartTime {
				first = i
			}
		}
		if !steady {
			out[first] = total
		}
		return
	}
	if buf == nil {
		buf = &shareBuf{}
	}
	for i, v := range ss {
		out[i] = current(v.s, steady)
	}
	if cap(buf.out) < len(ss) {
		buf.out = make([]int64, len(ss))
	}
	vals := buf.out[:len(ss)]
	for t := range p.shareTypes(types) {
		name := typeAt(types, t)
		computeType(ss, component(&total, t, name), t, name, steady, vals, buf)
		for i, x := range vals {
			out[i] = setType(out[i], name, x)
		}
	}
}

// component reads the t-th type (0 memory, 1 vcores, then name) without a
// lookup for the built-in types, which dominate the hot path.
func component(r *berth.Resource, t int, name string) int64 {
	switch t {
	case 0:
		return r.Memory
	case 1:
		return r.VCores
	}
	return r.Get(name)
}

// computeType divides total, the t-th type (named name), among ss with
// YARN's ComputeFairShares and writes every out[i]. It reads only the
// scalars it needs, so a division over many items stays a dense pass.
func computeType(ss []SchedulableView, total int64, t int, name string, steady bool, out []int64, buf *shareBuf) {
	sc := &buf.sc
	sc.reset(len(ss))
	var taken int64
	for i, v := range ss {
		s := v.s
		e := ShareEntry{Weight: s.Weight, Min: component(&s.MinShare, t, name), Max: component(&s.MaxShare, t, name), Inactive: s.Queue && !s.Active}
		if x, ok := fixedShare(&e, steady); ok {
			out[i] = x
			taken = satAdd(taken, x)
			continue
		}
		sc.push(i, &e)
	}
	sc.finish(total, taken, out)
}

// setType sets one component without allocating for memory and vcores.
func setType(r berth.Resource, name string, v int64) berth.Resource {
	switch name {
	case berth.ResourceMemory:
		r.Memory = v
		return r
	case berth.ResourceVCores:
		r.VCores = v
		return r
	}
	return r.With(name, v)
}
