package capacity

import (
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// AppOrderingPolicy orders a leaf queue's applications (YARN's
// OrderingPolicy): the walk offers a node to them in this order, and the
// preemption and user-limit views read the same order. The built-in fifo
// and fair ([AppOrdering.Policy]) implement it and the scheduler reaches
// them only through it. A host's policy is set in Go
// ([QueueSettings].AppOrderingPolicy) or registered under the name an
// ordering-policy key uses ([XMLOptions].AppOrderings).
//
// Calls come with the scheduler's lock held; a policy must not call back
// into the scheduler and must be deterministic.
type AppOrderingPolicy interface {
	// Name is YARN's spelling of the policy ("fifo", "fair", or the
	// host's registered name).
	Name() string
	// Compare orders a before b (negative) when a should be offered
	// resources first. The scheduler breaks its ties by submission order.
	// Without an [AppKeyer] the leaf is re-sorted with Compare whenever an
	// application's key may have moved (O(n log n) per change); an order
	// that is not a strict weak order then only permutes the visit, every
	// application is still visited once.
	Compare(a, b AppView) int
}

// AppKeyer is the optional fast path of an AppOrderingPolicy: a sort key
// whose order is the order of Compare, so the leaf keeps its applications
// ordered incrementally (O(log n) per change). The built-ins use it.
type AppKeyer interface {
	// AppSortKey returns a's key; keys order lexicographically on Major,
	// then by submission order. It returns false when it cannot key a:
	// such an application (and one whose key holds NaN) is placed after
	// every keyed one, in submission order — a documented fallback, never
	// a corrupted order.
	AppSortKey(a AppView) (AppSortKey, bool)
	// UsageInKey reports that the key reads the application's usage or
	// pending demand, so it must be recomputed when they change (fair);
	// false keys only on submission-time values (fifo).
	UsageInKey() bool
}

// AppSortKey is a lexicographic application key (see [AppKeyer]).
type AppSortKey struct {
	Major [3]float64
}

// AppView is a read-only view of an application for ordering policies.
// The zero view sees no application: its methods return zero values.
type AppView struct{ a *app }

// app is the viewed application, an empty one for the zero view.
func (v AppView) app() *app {
	if v.a == nil {
		return &app{}
	}
	return v.a
}

// ID is the application id.
func (v AppView) ID() string { return v.app().id }

// User is the submitting user.
func (v AppView) User() string { return v.app().userName }

// Priority is the application priority (higher first under fifo).
func (v AppView) Priority() int32 { return v.app().priority }

// StartTime is when the application was submitted, on the host's clock.
func (v AppView) StartTime() berth.Time { return v.app().start }

// Submission is the application's submission sequence number (unique,
// increasing): the scheduler's last tie-break.
func (v AppView) Submission() uint64 { return v.app().seq }

// Used is what the application holds (allocated, without reservations).
func (v AppView) Used() berth.Resource { return v.app().used }

// Pending is what its outstanding asks add up to.
func (v AppView) Pending() berth.Resource { return v.app().pending }

// Policy returns the built-in ordering o as an AppOrderingPolicy; fair
// divides usage by log2 of demand when sizeBasedWeight is set (YARN's
// ordering-policy.fair.enable-size-based-weight).
func (o AppOrdering) Policy(sizeBasedWeight bool) AppOrderingPolicy {
	switch {
	case o == OrderFair && sizeBasedWeight:
		return fairAppsSized
	case o == OrderFair:
		return fairApps
	}
	return fifoApps
}

// builtinApps is fifo or fair through the interface.
type builtinApps struct {
	ord        AppOrdering
	sizeWeight bool
}

// The built-ins as interface values (immutable), so resolving a leaf's
// policy never allocates.
var (
	fifoApps      AppOrderingPolicy = builtinApps{ord: OrderFIFO}
	fairApps      AppOrderingPolicy = builtinApps{ord: OrderFair}
	fairAppsSized AppOrderingPolicy = builtinApps{ord: OrderFair, sizeWeight: true}
)

func (b builtinApps) Name() string     { return b.ord.String() }
func (b builtinApps) UsageInKey() bool { return b.ord == OrderFair }

func (b builtinApps) Compare(x, y AppView) int {
	if b.ord == OrderFair {
		return cmpFair(x.a, y.a, b.sizeWeight)
	}
	switch {
	case fifoBefore(x.a, y.a):
		return -1
	case fifoBefore(y.a, x.a):
		return 1
	}
	return 0
}

func (b builtinApps) AppSortKey(v AppView) (AppSortKey, bool) {
	return AppSortKey{Major: appKeyOf(b.ord, b.sizeWeight, v.a).k}, true
}

// appOrdering is a leaf's effective application ordering.
func appOrdering(st *QueueSettings) AppOrderingPolicy {
	if st.AppOrderingPolicy != nil {
		return st.AppOrderingPolicy
	}
	return st.AppOrdering.Policy(st.FairSizeBasedWeight)
}

// appKeyMoves reports whether a's key must be recomputed when its usage or
// pending demand changes.
func appKeyMoves(q *qnode) bool {
	kp, ok := appOrdering(q.set()).(AppKeyer)
	return !ok || kp.UsageInKey()
}

// leafAppKey is a's key in q's order under q's policy. Without a keyer the
// leaf is re-ranked: every other application is re-keyed with its rank in
// a sort by Compare, and a's rank is returned (ranks are plain numbers, so
// the order's comparison stays a strict weak order whatever Compare does).
func leafAppKey(q *qnode, a *app) appKey {
	pol := appOrdering(q.set())
	kp, ok := pol.(AppKeyer)
	if !ok {
		return rerankLeaf(q, a, pol)
	}
	sk, ok := kp.AppSortKey(AppView{a})
	if !ok || math.IsNaN(sk.Major[0]) || math.IsNaN(sk.Major[1]) || math.IsNaN(sk.Major[2]) {
		return appKey{k: [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, seq: a.seq}
	}
	return appKey{k: sk.Major, seq: a.seq}
}

func rerankLeaf(q *qnode, a *app, pol AppOrderingPolicy) appKey {
	lf := q.leaf
	apps := make([]*app, 0, lf.sched.Len()+1)
	lf.sched.Ascend(func(x *app) bool {
		if x != a {
			apps = append(apps, x)
		}
		return true
	})
	apps = append(apps, a)
	slices.SortFunc(apps, func(x, y *app) int { return cmpSeq(x.seq, y.seq) })
	slices.SortStableFunc(apps, func(x, y *app) int { return pol.Compare(AppView{x}, AppView{y}) })
	var mine appKey
	for i, x := range apps {
		k := appKey{k: [3]float64{float64(i)}, seq: x.seq}
		if x == a {
			mine = k
			continue
		}
		lf.sched.Rekey(&x.sent, k)
	}
	return mine
}

// leafAppLess is the order Check expects of q's applications: for the
// built-ins, their comparator (a self-check of their keys); for a host's
// policy, the kept keys — whether its keys agree with its Compare is the
// host's contract, and either way the kept order stays consistent.
func leafAppLess(q *qnode) func(a, b *app) bool {
	if b, ok := appOrdering(q.set()).(builtinApps); ok {
		return appBefore(b.ord, b.sizeWeight)
	}
	return func(a, b *app) bool { ka, kb := a.sent.Key(), b.sent.Key(); return cmpAppKey(&ka, &kb) < 0 }
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

// ChildOrderingPolicy orders a parent queue's children (YARN's
// QueueOrderingPolicy): the walk offers a node to them in this order. The
// built-in utilization and priority-utilization ([ChildOrdering.Policy])
// implement it. A host's policy is set in Go
// ([QueueSettings].ChildOrderingPolicy) or registered under the name an
// ordering-policy key uses ([XMLOptions].ChildOrderings).
type ChildOrderingPolicy interface {
	// Name is YARN's spelling ("utilization", "priority-utilization") or
	// the host's registered name.
	Name() string
	// Compare orders a before b (negative). The scheduler breaks ties by
	// configuration position. Without a [ChildKeyer] the children are
	// re-sorted with Compare on every visit (an insertion sort that
	// terminates whatever Compare answers).
	Compare(a, b QueueView) int
}

// ChildKeyer is the optional fast path of a ChildOrderingPolicy: a key
// whose lexicographic order (then position) is Compare's, so a parent with
// many children keeps them ordered incrementally. A refused key or one
// holding NaN sends the parent back to the per-visit sort.
type ChildKeyer interface {
	// ChildSortKey returns q's key and whether it could key q.
	ChildSortKey(q QueueView) (ChildSortKey, bool)
}

// ChildSortKey is a lexicographic child key (see [ChildKeyer]).
type ChildSortKey struct {
	Major [5]float64
}

// QueueView is a read-only view of a child queue for ordering policies.
// The zero view sees no queue: its methods return zero values.
type QueueView struct{ q *qnode }

// node is the viewed queue, an empty one for the zero view.
func (v QueueView) node() *qnode {
	if v.q == nil {
		return &qnode{tq: &tqueue{}}
	}
	return v.q
}

// Path is the queue's full path.
func (v QueueView) Path() string { return v.node().path }

// Priority is the queue's configured priority among its siblings.
func (v QueueView) Priority() int { return v.node().set().Priority }

// UsedCapacity is its usage relative to its guarantee (1: at guarantee).
func (v QueueView) UsedCapacity() float32 { return v.node().usedCap }

// AbsoluteUsedCapacity is its usage as a fraction of the cluster.
func (v QueueView) AbsoluteUsedCapacity() float32 { return v.node().absUsedCap }

// AbsoluteCapacity is its guarantee as a fraction of the cluster.
func (v QueueView) AbsoluteCapacity() float64 { return v.node().absCap }

// Used is what it holds (allocated plus reserved).
func (v QueueView) Used() berth.Resource { return v.node().used }

// Position is its index among its siblings in configuration order.
func (v QueueView) Position() int { return v.node().pos }

// Policy returns the built-in child ordering o as a ChildOrderingPolicy.
func (o ChildOrdering) Policy() ChildOrderingPolicy {
	if o == OrderPriorityUtilization {
		return prioKids
	}
	return utilKids
}

type builtinKids struct{ prio bool }

var (
	utilKids ChildOrderingPolicy = builtinKids{}
	prioKids ChildOrderingPolicy = builtinKids{prio: true}
)

func (b builtinKids) Name() string {
	if b.prio {
		return OrderPriorityUtilization.String()
	}
	return OrderUtilization.String()
}

func (b builtinKids) Compare(x, y QueueView) int { return cmpChildren(x.q, y.q, b.prio) }

func (b builtinKids) ChildSortKey(v QueueView) (ChildSortKey, bool) {
	ck := childKeyOf(v.q, b.prio)
	return ChildSortKey{Major: ck.k}, !ck.bad
}

// childOrdering is a parent's effective child ordering.
func childOrdering(st *QueueSettings) ChildOrderingPolicy {
	if st.ChildOrderingPolicy != nil {
		return st.ChildOrderingPolicy
	}
	return st.ChildOrdering.Policy()
}

// parentChildKey is q's key in its parent p's order under p's policy.
func parentChildKey(p, q *qnode) childKey {
	kp, ok := childOrdering(p.set()).(ChildKeyer)
	if !ok {
		return childKey{pos: q.pos, bad: true}
	}
	ck, ok := kp.ChildSortKey(QueueView{q})
	if !ok || hasNaN(ck.Major[:]) {
		return childKey{pos: q.pos, bad: true}
	}
	return childKey{k: ck.Major, pos: q.pos}
}

// cmpKids is p's child comparison through its policy, position last.
func cmpKids(p *qnode) func(a, b *qnode) int {
	pol := childOrdering(p.set())
	return func(a, b *qnode) int {
		if c := pol.Compare(QueueView{a}, QueueView{b}); c != 0 {
			return c
		}
		return a.pos - b.pos
	}
}

// cmpKidsBuiltin is cmpKids for the built-in child orderings.
func cmpKidsBuiltin(a, b *qnode, prio bool) int {
	if c := cmpChildren(a, b, prio); c != 0 {
		return c
	}
	return a.pos - b.pos
}

// Registries for XML names.
type (
	// AppOrderings maps ordering-policy names of leaves to a host's
	// policies (see [XMLOptions]).
	AppOrderings = queue.Registry[AppOrderingPolicy]
	// ChildOrderings maps ordering-policy names of parents to a host's
	// policies.
	ChildOrderings = queue.Registry[ChildOrderingPolicy]
)
