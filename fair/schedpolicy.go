package fair

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
)

// SchedulingPolicy is a queue's scheduling policy (YARN's SchedulingPolicy),
// reduced to its identity: a name and the calculator it decides with.
// Everything else a policy may change is its own small interface, one per
// extension point, so a policy implements only what it changes and takes
// YARN's default for the rest:
//
//   - [Orderer]: the order children or applications are offered resources
//     in (default: the fair policy's order);
//   - [ShareDivider]: how a fair share is divided among them (default: the
//     fair policy's division, by memory);
//   - [ChildFilter]: which policies its children may have (default: any);
//   - [LeafOnlyPolicy]: whether only leaf queues may use it (default: no);
//   - [Headroomer]: what an application may still get (default: fair share
//     minus usage, capped by what is available, in the calculator's types).
//
// [PolicyKeyer] and [TypeSharer] are optional fast paths of Compare and
// ComputeShares. The built-in fair, FIFO and DRF policies
// ([Policy.SchedulingPolicy]) implement every interface and the scheduler
// reaches them only through these, so a host's policy is a first-class
// citizen: name it in the Go config ([QueueConfig].SchedulingPolicy) or
// register it for allocation files ([ParseOptions.Policies]).
//
// The scheduler calls a policy with its lock held, from the host's calls
// only; a policy must not call back into the scheduler and must be
// deterministic (no clock, no map order). Its arguments are read-only views.
type SchedulingPolicy interface {
	// Name is the policy's name in snapshots, logs and errors.
	Name() string
	// Calculator is the resource calculator the policy decides with
	// (starvation and assignment thresholds of the queue's applications,
	// and the types the default headroom counts).
	Calculator() berth.Calculator
}

// Orderer is the extension point that orders a queue's children (a
// parent) or applications (a leaf) for assignment. Without it a policy
// orders as YARN's fair policy does.
type Orderer interface {
	// Compare orders a before b (negative) when a should be offered
	// resources first. It should be a strict weak order that ends on a
	// unique tie-break (start time, name); if it is not, the scheduler
	// still visits every item exactly once, in the order its sort leaves.
	Compare(env PolicyEnv, a, b SchedulableView) int
}

// ShareDivider is the extension point that divides a queue's fair share
// among its children or applications. Without it a policy divides as
// YARN's fair policy does (memory by weight, min and max share).
type ShareDivider interface {
	// ComputeShares divides total among items: the instantaneous fair
	// share (steady false: inactive queues get nothing) or the steady fair
	// share (steady true: every queue counts). out[i] is zero on entry and
	// becomes items[i]'s whole new share: a policy that computes only some
	// types copies the others from the view (FairShare or
	// SteadyFairShare), as the built-ins do. A result with a negative
	// component is rejected: the shares keep their previous values and
	// [Scheduler.PolicyError] reports a *PolicyError. A policy that
	// divides type by type may offer [TypeSharer] as a faster path.
	ComputeShares(env PolicyEnv, items []SchedulableView, total berth.Resource, steady bool, out []berth.Resource)
}

// ChildFilter is the extension point that restricts a parent's children
// (YARN's isChildPolicyAllowed). Without it any child policy is allowed.
type ChildFilter interface {
	// AllowsChild reports whether a parent with this policy may have a
	// child queue with policy child.
	AllowsChild(child SchedulingPolicy) bool
}

// LeafOnlyPolicy is the extension point of a policy that cannot order
// queues (FIFO). Without it a policy may be used by parents too.
type LeafOnlyPolicy interface {
	// LeafOnly reports that only leaf queues may use the policy.
	LeafOnly() bool
}

// Headroomer is the extension point that computes an application's
// headroom (YARN's getHeadroom). Without it the headroom is the queue's
// fair share minus its usage (never negative), capped by maxAvailable, in
// the types the policy's calculator counts: memory and vcores for a
// [berth.DominantCalculator] (as DRF does), memory for any other (vcores
// pass maxAvailable through, as YARN's fair policy does).
type Headroomer interface {
	// Headroom is what an application of a queue with this policy may
	// still get.
	Headroom(queueFairShare, queueUsage, maxAvailable berth.Resource) berth.Resource
}

// PolicyKeyer is the optional fast path of an [Orderer]: a sort key
// whose order is the order of Compare. With it the scheduler keeps a large
// set (a parent's children, a leaf's applications) ordered incrementally,
// re-keying an item when its usage, demand, weight or min share changes,
// instead of sorting on every visit. The built-in policies use it. It is
// used only beside the policy's own Compare.
type PolicyKeyer interface {
	// SortKey fills k.Major and k.More for s (k.Start and k.Name are
	// filled by the scheduler with s's start time and name, which break
	// the last ties). Keys order lexicographically: Major, then More
	// element by element (a shorter prefix first), then Start, then Name;
	// that order must equal Compare's for every pair. It returns false
	// when s can only be placed by Compare (its set is then sorted per
	// visit); a key holding NaN is treated the same way.
	SortKey(env PolicyEnv, s SchedulableView, k *SortKey) bool
}

// TypeSharer is the optional fast path of a [ShareDivider] for a policy that
// divides each resource type on its own, as YARN's fair (memory) and DRF
// (every type) policies do. The policy writes one type's shares as plain
// integers and the scheduler installs them into the components divided,
// leaving the others as they are, so a division among many items never
// stages whole resources. The rules of ComputeShares hold: the results
// must be those ComputeShares would give, and a negative share rejects the
// whole division (every share keeps its previous value). The built-in fair
// and DRF policies divide through it. It is used only beside the policy's
// own ComputeShares.
type TypeSharer interface {
	// ShareTypes is how many types ComputeTypeShares divides in this
	// call: the first n of memory, vcores, then env.Types in order (0:
	// none, every share stays as it is). A negative n sends the call
	// through ComputeShares instead (FIFO, which hands out whole
	// resources).
	ShareTypes(env PolicyEnv, steady bool) int
	// ComputeTypeShares sets out[i] to items[i]'s new share of type t
	// (0 memory, 1 vcores, 2+k env.Types[k]), dividing total, the
	// divided resource's component of type t. out holds unspecified
	// values on entry: the policy writes every element.
	ComputeTypeShares(env PolicyEnv, items []SchedulableView, total int64, t int, steady bool, out []int64)
}

// SortKey is a lexicographic sort key (see [PolicyKeyer]).
type SortKey struct {
	// Major are the leading components, compared first.
	Major [6]float64
	// More are further components for policies that need more than six
	// (DRF over many types); the slice may be reused by the policy only if
	// it is not retained: the scheduler keeps the key it is given.
	More []float64
	// Start and Name are the last tie-breaks, set by the scheduler.
	Start berth.Time
	Name  string
	bad   bool
}

// PolicyEnv is what a policy may need beyond the schedulables: the
// cluster's resource (DRF's denominators) and the configured extended
// resource types (in order).
type PolicyEnv struct {
	Cluster berth.Resource
	Types   []string
	scratch *shareBuf // the scheduler's reusable buffers for the built-ins (nil: allocate)
}

// SchedulableView is a read-only view of a queue or application as its
// parent's policy sees it (see [Schedulable] for the fields' meaning).
// The zero view sees an empty Schedulable: its methods return zero
// values.
type SchedulableView struct{ s *Schedulable }

// sched is the viewed schedulable, an empty one for the zero view.
func (v SchedulableView) sched() *Schedulable {
	if v.s == nil {
		return &Schedulable{}
	}
	return v.s
}

// ViewOf returns a read-only view of s, to call a policy outside a
// scheduler (tests, tools).
func ViewOf(s *Schedulable) SchedulableView { return SchedulableView{s} }

// Name is the queue's full path or the application id.
func (v SchedulableView) Name() string { return v.sched().Name }

// Demand is usage plus pending asks (queues: capped at the max share).
func (v SchedulableView) Demand() berth.Resource { return v.sched().Demand }

// Usage is what it holds now.
func (v SchedulableView) Usage() berth.Resource { return v.sched().Usage }

// MinShare is the guaranteed share.
func (v SchedulableView) MinShare() berth.Resource { return v.sched().MinShare }

// MaxShare caps the share.
func (v SchedulableView) MaxShare() berth.Resource { return v.sched().MaxShare }

// Weight scales the share.
func (v SchedulableView) Weight() float64 { return v.sched().Weight }

// StartTime is the submission time (queues: 0).
func (v SchedulableView) StartTime() berth.Time { return v.sched().StartTime }

// Priority is the application priority, higher first (queues: 1).
func (v SchedulableView) Priority() int32 { return v.sched().Priority }

// IsQueue reports a queue (otherwise an application).
func (v SchedulableView) IsQueue() bool { return v.sched().Queue }

// Active is false for a queue with no runnable application below it.
func (v SchedulableView) Active() bool { return v.sched().Active }

// FairShare is the current instantaneous fair share.
func (v SchedulableView) FairShare() berth.Resource { return v.sched().FairShare }

// SteadyFairShare is the current steady fair share (queues only).
func (v SchedulableView) SteadyFairShare() berth.Resource { return v.sched().SteadyFairShare }

// PolicyError reports a scheduling policy's result the scheduler rejected
// (a negative share). It wraps berth.ErrInvalidArgument.
type PolicyError struct {
	Policy string // the policy's Name
	Queue  string // the queue whose share was being divided
	Item   string // the child or application with the bad share
	Share  berth.Resource
	Reason string
}

// Error names the policy, the queue, the item and the reason.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("fair: policy %s at %s: share %v of %s: %s", e.Policy, e.Queue, e.Share, e.Item, e.Reason)
}

// Unwrap returns berth.ErrInvalidArgument.
func (e *PolicyError) Unwrap() error { return berth.ErrInvalidArgument }

// SchedulingPolicy returns the built-in policy p as a SchedulingPolicy
// (nil for an invalid value).
func (p Policy) SchedulingPolicy() SchedulingPolicy {
	switch p {
	case PolicyFair, PolicyFIFO, PolicyDRF:
		return builtinPolicy{p}
	}
	return nil
}

// builtinPolicy is one of YARN's three policies through the interface.
type builtinPolicy struct{ p Policy }

// The built-ins implement every extension point and both fast paths.
var (
	_ SchedulingPolicy = builtinPolicy{}
	_ Orderer          = builtinPolicy{}
	_ ShareDivider     = builtinPolicy{}
	_ ChildFilter      = builtinPolicy{}
	_ LeafOnlyPolicy   = builtinPolicy{}
	_ Headroomer       = builtinPolicy{}
	_ PolicyKeyer      = builtinPolicy{}
	_ TypeSharer       = builtinPolicy{}
)

// defaultPolicy supplies the Orderer and ShareDivider (and their fast
// paths) of a policy that does not implement them.
var defaultPolicy = builtinPolicy{PolicyFair}

func (b builtinPolicy) Name() string                 { return b.p.String() }
func (b builtinPolicy) Calculator() berth.Calculator { return b.p.Calculator() }
func (b builtinPolicy) LeafOnly() bool               { return b.p == PolicyFIFO }

func (b builtinPolicy) Compare(env PolicyEnv, a, c SchedulableView) int {
	return b.p.Compare(env.Cluster, env.Types, a.s, c.s)
}

// AllowsChild: a fair parent may not have a DRF child (YARN checks the
// class, so a host's dominant-resource policy is allowed).
func (b builtinPolicy) AllowsChild(child SchedulingPolicy) bool {
	if c, ok := child.(builtinPolicy); ok {
		return b.p.AllowsChild(c.p)
	}
	return true
}

func (b builtinPolicy) Headroom(fs, usage, maxAvail berth.Resource) berth.Resource {
	return b.p.Headroom(fs, usage, maxAvail)
}

func (b builtinPolicy) ComputeShares(env PolicyEnv, items []SchedulableView, total berth.Resource, steady bool, out []berth.Resource) {
	b.p.computeInto(items, total, env.Types, steady, out, env.scratch)
}

func (b builtinPolicy) ShareTypes(env PolicyEnv, _ bool) int { return b.p.shareTypes(env.Types) }

func (b builtinPolicy) ComputeTypeShares(env PolicyEnv, items []SchedulableView, total int64, t int, steady bool, out []int64) {
	buf := env.scratch
	if buf == nil {
		buf = &shareBuf{}
	}
	computeType(items, total, t, typeAt(env.Types, t), steady, out, buf)
}

func (b builtinPolicy) SortKey(env PolicyEnv, s SchedulableView, k *SortKey) bool {
	sk := b.p.key(env.Cluster, env.Types, s.s)
	k.Major, k.More = sk.k, sk.xs
	return !sk.bad
}

// setPolicy installs q's policy and looks its extension points and fast
// paths up once, filling the absent ones with the defaults. A fast path
// counts only beside the method it speeds up: a PolicyKeyer without
// Compare would order by a key nothing else agrees with.
func (q *fsQueue) setPolicy(p SchedulingPolicy) {
	q.policy = p
	var ok bool
	if q.order, ok = p.(Orderer); ok {
		q.keyer, _ = p.(PolicyKeyer)
	} else {
		q.order, q.keyer = defaultPolicy, defaultPolicy
	}
	if q.shares, ok = p.(ShareDivider); ok {
		q.sharer, _ = p.(TypeSharer)
	} else {
		q.shares, q.sharer = defaultPolicy, defaultPolicy
	}
	q.room = headroomerOf(p)
}

// leafOnly reports whether p may be used by leaf queues only.
func leafOnly(p SchedulingPolicy) bool {
	l, ok := p.(LeafOnlyPolicy)
	return ok && l.LeafOnly()
}

// allowsChild reports whether a parent with policy parent may have a
// child with policy child.
func allowsChild(parent, child SchedulingPolicy) bool {
	f, ok := parent.(ChildFilter)
	return !ok || f.AllowsChild(child)
}

// headroomerOf is p's Headroomer, or the default one: YARN's fair policy
// for a calculator that counts memory only, DRF's for a dominant one.
func headroomerOf(p SchedulingPolicy) Headroomer {
	if h, ok := p.(Headroomer); ok {
		return h
	}
	switch p.Calculator().(type) {
	case berth.DominantCalculator, *berth.DominantCalculator:
		return builtinPolicy{PolicyDRF}
	}
	return builtinPolicy{PolicyFair}
}

// policyKey computes the scheduler's key of s under kp, or marks it bad
// (sorted per visit) without one.
// scratch is the caller's reusable SortKey: a local one would escape
// through the interface call and cost an allocation per key.
// npre is namePrefix(s.Name), which the owner keeps; the key is written
// to *out.
func policyKey(kp PolicyKeyer, env PolicyEnv, s *Schedulable, npre uint64, scratch *SortKey, out *sortKey) {
	if bp, ok := kp.(builtinPolicy); ok {
		// The built-ins' keys directly, in their own layouts (keyPrefix):
		// what SortKey returns, without the round trip through SortKey.
		bp.p.keyInto(env.Cluster, env.Types, s, out)
		if !out.bad && !hasNaN(out.k[:]) && !hasNaN(out.xs) {
			out.fam = bp.p.keyFamily(env.Types)
			out.npre, out.npreSet = npre, true
			return
		}
		*out = sortKey{start: s.StartTime, name: s.Name, bad: true}
		return
	}
	*out = policyKeyOf(kp, env, s, npre, scratch)
}

func policyKeyOf(kp PolicyKeyer, env PolicyEnv, s *Schedulable, npre uint64, scratch *SortKey) sortKey {
	k := sortKey{start: s.StartTime, name: s.Name, npre: npre, npreSet: true}
	if kp == nil {
		k.bad = true
		return k
	}
	*scratch = SortKey{Start: s.StartTime, Name: s.Name}
	sk := scratch
	if !kp.SortKey(env, SchedulableView{s}, sk) || hasNaN(sk.Major[:]) || hasNaN(sk.More) {
		k.bad = true
		return k
	}
	k.k, k.xs = sk.Major, sk.More
	return k
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

// policyOf is a queue's effective policy from its settings: the Go
// config's SchedulingPolicy, or the built-in Policy.
func (st QueueSettings) policyOf() SchedulingPolicy {
	if st.SchedulingPolicy != nil {
		return st.SchedulingPolicy
	}
	if p := st.Policy.SchedulingPolicy(); p != nil {
		return p
	}
	return builtinPolicy{PolicyFair}
}

// env is what the policies see of the cluster.
func (s *Scheduler) env() PolicyEnv {
	return PolicyEnv{Cluster: s.cluster, Types: s.cfg.ResourceTypes, scratch: &s.shareBuf}
}

// divide runs q's policy on ss (q's children or runnable applications) and
// installs the shares, unless the policy returned a negative component:
// then every share of ss keeps its previous value (all or nothing) and the
// first such rejection is kept for PolicyError.
func (s *Scheduler) divide(q *fsQueue, ss []*Schedulable, total berth.Resource, steady bool) {
	if len(ss) == 0 {
		return
	}
	views := s.shareBuf.viewsFor(len(ss))
	for i, x := range ss {
		views[i] = SchedulableView{x}
	}
	bad, share := divideInto(q.shares, q.sharer, s.env(), views, total, steady, &s.shareBuf)
	if bad < 0 {
		return
	}
	if s.polErr == nil {
		s.polErr = &PolicyError{Policy: q.policy.Name(), Queue: q.path, Item: ss[bad].Name, Share: share,
			Reason: "negative share; the previous shares were kept"}
	}
	if s.cfg.Logger != nil {
		s.cfg.Logger.Warn("fair: scheduling policy returned a negative share; keeping the previous shares",
			"policy", q.policy.Name(), "queue", q.path, "item", ss[bad].Name)
	}
}

// divideInto runs pol (ts: its TypeSharer, or nil) on items and installs
// the shares (FairShare, or SteadyFairShare when steady), unless one has a
// negative component: then nothing changes and it returns the first such
// item's index and rejected share. It returns -1 when the shares were
// installed.
func divideInto(pol ShareDivider, ts TypeSharer, env PolicyEnv, items []SchedulableView, total berth.Resource, steady bool, buf *shareBuf) (int, berth.Resource) {
	if len(items) == 0 {
		return -1, berth.Resource{}
	}
	if ts != nil {
		if n := ts.ShareTypes(env, steady); n >= 0 {
			return divideTypes(ts, env, items, total, steady, min(n, 2+len(env.Types)), buf)
		}
	}
	out := buf.sharesFor(len(items))
	clear(out)
	pol.ComputeShares(env, items, total, steady, out)
	for i, r := range out {
		if r.AnyNegative() {
			return i, r
		}
	}
	for i, v := range items {
		*shareOf(v.s, steady) = out[i]
	}
	clear(out) // drop the references to extended types
	return -1, berth.Resource{}
}

// divideTypes is divideInto through a TypeSharer dividing n types. The
// types after memory are checked before anything is written; memory is
// checked while it is installed, each old value kept in place of the new
// one, so the common case makes one pass over the items and a rejection
// (rare) rolls back from what it kept.
func divideTypes(ts TypeSharer, env PolicyEnv, items []SchedulableView, total berth.Resource, steady bool, n int, buf *shareBuf) (int, berth.Resource) {
	if n == 0 {
		return -1, berth.Resource{}
	}
	m := len(items)
	vals := buf.valsFor(n * m)
	for t := range n {
		ts.ComputeTypeShares(env, items, component(&total, t, typeAt(env.Types, t)), t, steady, vals[t*m:(t+1)*m])
	}
	rejected := func(i int) (int, berth.Resource) {
		r := current(items[i].s, steady)
		for t := range n {
			r = setType(r, typeAt(env.Types, t), vals[t*m+i])
		}
		return i, r
	}
	for t := 1; t < n; t++ {
		for i, x := range vals[t*m : (t+1)*m] {
			if x < 0 {
				return rejected(i)
			}
		}
	}
	if i := installMemory(items, vals[:m], steady); i >= 0 {
		return rejected(i)
	}
	for t := 1; t < n; t++ {
		name := typeAt(env.Types, t)
		for i, v := range items {
			dst := shareOf(v.s, steady)
			x := vals[t*m+i]
			if t == 1 {
				dst.VCores = x
			} else {
				*dst = dst.With(name, x)
			}
		}
	}
	return -1, berth.Resource{}
}

// installMemory installs mem[i] as items[i]'s memory share, keeping the
// old value in mem[i]; at the first negative value it restores the ones it
// installed and returns that index (-1 when all were installed). The
// loops are split on steady so the pass stays a plain store per item.
func installMemory(items []SchedulableView, mem []int64, steady bool) int {
	mem = mem[:len(items)]
	if steady {
		for i, v := range items {
			x := mem[i]
			if x < 0 {
				for j := range i {
					items[j].s.SteadyFairShare.Memory = mem[j]
				}
				return i
			}
			mem[i], v.s.SteadyFairShare.Memory = v.s.SteadyFairShare.Memory, x
		}
		return -1
	}
	for i, v := range items {
		x := mem[i]
		if x < 0 {
			for j := range i {
				items[j].s.FairShare.Memory = mem[j]
			}
			return i
		}
		mem[i], v.s.FairShare.Memory = v.s.FairShare.Memory, x
	}
	return -1
}

// PolicyError returns the first result of a scheduling policy the
// scheduler rejected (a *PolicyError), or nil. A rejected division keeps
// the previous shares, so the scheduler's state stays consistent; the
// error tells the host its policy misbehaved.
func (s *Scheduler) PolicyError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polErr
}

// builtinOf is p's built-in Policy, or 0 for a host's policy.
func builtinOf(p SchedulingPolicy) Policy {
	if b, ok := p.(builtinPolicy); ok {
		return b.p
	}
	return 0
}
