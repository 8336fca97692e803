package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
	"github.com/berthsched/berth/queue"
)

type (
	qtree  = queue.Tree[QueueSettings]
	tqueue = queue.Queue[QueueSettings]
)

// qnode is the scheduler's run-time mirror of one queue of the tree: the
// derived guarantees and limits, the scheduling order of children, and for
// leaves the applications and users. Usage is kept here for the hot path
// and charged to the tree's accounting as well (the tree is what snapshots
// and reconfiguration read).
type qnode struct {
	// What a walk and a commit read at every level come first: the
	// default partition's state (the labelled partitions' are in lp).
	qpart
	leaf   *leafState
	parent *qnode
	pos    int  // index in parent's children: last tie-break
	keyed  bool // kids is kept (more than Scheduler.sortFan children)
	// badKey: q's key in its parent's order is bad (counted in the
	// parent's kidsBad); kept for idle children too, which are no members.
	badKey bool
	// sortChildren's bookkeeping: ordered says order is as the last sort
	// left it; moved counts the children whose usage changed since, each
	// of which has movedSelf set (refreshUsedCap).
	ordered, movedSelf bool
	moved              int
	// kidsBad counts the children only a sort can place (a bad key: NaN
	// usage, or a policy without keys), idle ones included (badKey).
	kidsBad int
	// kids is the scheduling order of the walkable children (those with
	// pending demand), kept by key (walk_order.go).
	kids   *childOrder
	order  []*qnode // scheduling order of the reference walk (sortWalk) and of the fallback
	effMin berth.Resource
	tq     *tqueue

	ent      order.Entry[childKey, *qnode] // q's place in its parent's kids
	children []*qnode                      // tree (configuration, then creation) order
	name     string
	path     string
	kind     queue.Kind
	absMax   float64 // fraction of the cluster
	effMax   berth.Resource

	auto       autoKind       // how the queue was auto-created (autoqueue.go)
	lastSubmit berth.Time     // last submission (or creation), for auto-deletion
	runnable   int            // runnable applications of the subtree (maxapps.go)
	maxAlloc   berth.Resource // effective maximum allocation (limits.go)
	life       lifetimes      // effective application lifetimes (lifetime.go)
	// lp is the queue's state on each labelled partition (partition i at
	// lp[i-1]); nil while the cluster has no labels (partition.go).
	lp []lpart
	// access and defExp are the queue's resolved accessible labels and
	// default label expression ("" none).
	access accessSet
	defExp string
}

// qpart is a queue's state on one partition that a walk and a commit read:
// the default partition's is embedded in qnode, the labelled partitions'
// in lpart.
type qpart struct {
	pending    berth.Resource // outstanding asks of active applications
	used       berth.Resource // allocated plus reserved
	reserved   berth.Resource
	effMaxDown berth.Resource // effMax rounded down to the minimum allocation
	usedCap    float32
	absUsedCap float32
	absCap     float64 // fraction of the partition
}

// on returns q's state on partition p (0 the default).
func (q *qnode) on(p int) *qpart {
	if p == 0 {
		return &q.qpart
	}
	return &q.lp[p-1].qpart
}

func (q *qnode) isLeaf() bool        { return q.leaf != nil }
func (q *qnode) set() *QueueSettings { return &q.tq.Payload }
func (q *qnode) numApps() int        { return q.tq.NumApps() }

// leafState is what only leaf queues carry.
type leafState struct {
	// What a walk and a commit read first.
	sched       *appOrder      // active applications with outstanding asks, in ordering-policy order
	cachedLimit berth.Resource // min(effMaxDown, currentLimit): the headroom limit
	// The cached user limit (userLimit documents the invalidation rule).
	ulValid       bool
	ulGen         uint64
	ulBase        berth.Resource
	ulOneGen      uint64
	ulOne         berth.Resource // ulBase weighted by 1
	usageRatio    float32        // Σ over users of ratio(user.used, cluster), kept incrementally as YARN does
	activeUsed    berth.Resource
	activeWeights float64
	ulf, ulPct    float64

	borrowed   int    // live containers of default-partition asks on labelled nodes
	apps       []*app // every application of the leaf, by submission order
	pendingAct []*app // applications waiting for activation, by submission
	numActive  int
	users      map[string]*user
	amUsed     berth.Resource

	maxApps, maxAppsPerUser int
	maxAMPct                float64

	activeUsers int
	allWeights  float64

	currentLimit berth.Resource // limit handed down by the parent at the last walk

	waiting      []*app        // not runnable (max-parallel-apps), by submission
	priorityACLs []PriorityACL // by maximum priority, highest first (priority.go)
}

// user is one user's accounting inside one leaf queue; what the walk and
// the commit read first.
type user struct {
	used       berth.Resource // allocated plus reserved
	ulVal      berth.Resource // weighted user limit, valid while ulGen == the leaf's (userLimit)
	ulGen      uint64
	weight     float64
	ratio      float32
	activeApps int // applications with outstanding asks: the user is active when > 0
	// What the tree's accounting has not been charged yet (deferAccount).
	acctDirty bool
	acct      queue.Delta
	name      string
	amUsed    berth.Resource
	apps      int                          // applications in the leaf
	ref       queue.UserRef[QueueSettings] // u's entries in the shared tree (accountUser)
	waiting   int                          // of apps, those not runnable (maxapps.go)
	lp        []upart                      // usage per labelled partition (partition.go)
}

// syncTree rebuilds the mirror from the tree, reusing the qnode (and so the
// applications and users) of every queue that survived.
func (s *Scheduler) syncTree() {
	old := s.byTQ
	s.byTQ = make(map[*tqueue]*qnode, s.tree.Len())
	s.byPath = make(map[string]*qnode, s.tree.Len())
	views := make(map[*tqueue]labelView, s.tree.Len())
	resolveLabels(s.tree.Root(), nil, views)
	var build func(tq *tqueue, parent *qnode, pos int) *qnode
	build = func(tq *tqueue, parent *qnode, pos int) *qnode {
		q := old[tq]
		if q == nil {
			q = &qnode{tq: tq}
		}
		q.name, q.path, q.parent, q.kind, q.pos = tq.Name(), tq.Path().String(), parent, tq.Kind(), pos
		v := views[tq]
		q.access, q.defExp = v.access, v.defExp
		s.growQueue(q)
		if tq.IsLeaf() {
			if q.leaf == nil {
				q.leaf = &leafState{users: map[string]*user{}, sched: newAppOrder()}
			}
		} else {
			q.leaf = nil
		}
		// The children are re-keyed into a fresh order once their
		// capacities are known (applyCapacities, resortAll).
		q.ent.Value = q
		q.kids, q.kidsBad, q.keyed, q.badKey = newChildOrder(), 0, false, false
		s.byTQ[tq] = q
		s.byPath[q.path] = q
		q.children = q.children[:0]
		for i := 0; i < tq.NumChildren(); i++ {
			q.children = append(q.children, build(tq.Child(i), q, i))
		}
		q.order = slices.Clone(q.children)
		q.ordered = false
		return q
	}
	s.root = build(s.tree.Root(), nil, 0)
}

// applyCapacities derives guarantees, limits and effective resources top
// down from the tree and the cluster resource.
func (s *Scheduler) applyCapacities(q *qnode) {
	cluster, calc := s.cluster, s.calculator
	tq := q.tq
	switch {
	case q.parent == nil:
		q.absCap, q.absMax = 1, 1
		q.effMin, q.effMax = cluster, cluster
	default:
		p := q.parent
		q.absCap, q.absMax = float64(tq.AbsoluteCapacity()), float64(tq.AbsoluteMaxCapacity())
		if c := tq.Capacity(); c.IsAbsolute() {
			q.effMin = s.absoluteMin(q)
			if !cluster.IsZero() {
				q.absCap = float64(calc.Divide(cluster, q.effMin, cluster))
			}
		} else {
			q.effMin = cluster.Mul(q.absCap)
		}
		switch m := tq.MaxCapacity(); {
		case m.IsAbsolute():
			q.effMax = berth.Min(calc, cluster, m.Resource, p.effMax)
		case tq.Capacity().IsAbsolute():
			q.effMax = p.effMax
		default:
			q.effMax = cluster.Mul(q.absMax)
		}
	}
	q.effMaxDown = calc.RoundDown(q.effMax, s.cfg.MinAllocation)
	s.applySettings(q)
	if lf := q.leaf; lf != nil {
		lf.ulValid = false // effMin, the cluster and the settings may have changed
		st := q.set()
		lf.ulf, lf.ulPct = st.UserLimitFactor, st.MinUserLimitPercent
		lf.maxAMPct = st.MaxAMResourcePercent
		if lf.maxAMPct < 0 {
			lf.maxAMPct = s.cfg.MaximumAMResourcePercent
		}
		if q.kind == queue.KindReservation {
			// Reservation queues inherit the plan's limits, computed with
			// YARN's constant 10000 rather than the system limit; they are
			// read from the plan each time, so that a reconfigured plan
			// re-applies them as YARN's reinitialize does.
			p := q.parent
			lf.ulf, lf.ulPct = p.set().UserLimitFactor, p.set().MinUserLimitPercent
			lf.maxApps = p.set().MaxApplications
			if lf.maxApps < 0 {
				lf.maxApps = appsShare(10000, p.absCap)
			}
			lf.maxAppsPerUser = appsPerUser(lf.maxApps, lf.ulPct, lf.ulf)
		} else {
			lf.maxApps = st.MaxApplications
			if lf.maxApps < 0 {
				if s.cfg.GlobalQueueMaxApplications > 0 {
					lf.maxApps = s.cfg.GlobalQueueMaxApplications
				} else {
					lf.maxApps = appsShare(s.cfg.MaximumApplications, q.absCap)
				}
			}
			lf.maxAppsPerUser = min(lf.maxApps, appsPerUser(lf.maxApps, lf.ulPct, lf.ulf))
		}
		for _, u := range sortedUsers(lf) {
			s.setUserWeight(q, u)
		}
	}
	if q.lp != nil {
		s.applyLabelCaps(q)
	}
	s.refreshUsedCap(q)
	for _, c := range q.children {
		s.applyCapacities(c)
	}
}

// appsShare is YARN's (int)(apps × absoluteCapacity), evaluated in float32
// as Java does (int × float is a float): in float64 a 70% queue would get
// 6999 of 10000 applications instead of 7000.
func appsShare(apps int, absCap float64) int {
	return int(float32(apps) * float32(absCap))
}

// appsPerUser is YARN's (int)(maxApps × (userLimit / 100f) × factor), in
// float32 and in Java's order.
// user-limit-factor -1 lets a user have all of them (YARN 3.4; YARN's
// plan queues still multiply by -1 and admit nobody, which Berth does
// not follow).
func appsPerUser(maxApps int, ulPct, ulf float64) int {
	if ulf == -1 {
		return maxApps
	}
	return int(float32(maxApps) * (float32(ulPct) / 100) * float32(ulf))
}

// absoluteMin is an absolute queue's effective guarantee: its configured
// minimum, scaled down per type when its siblings' minimums together exceed
// the parent's guarantee.
func (s *Scheduler) absoluteMin(q *qnode) berth.Resource {
	p := q.parent
	min := q.tq.Capacity().Resource
	var sum berth.Resource
	for _, c := range p.children {
		if cc := c.tq.Capacity(); cc.IsAbsolute() {
			sum = sum.Add(cc.Resource)
		}
	}
	return scaleAbsolute(min, sum, p.effMin)
}

// scaleAbsolute scales an absolute minimum down per type when the
// siblings' minimums (sum) exceed what the parent is guaranteed (pm).
func scaleAbsolute(min, sum, pm berth.Resource) berth.Resource {
	scale := func(v, total, avail int64) int64 {
		if total > avail && total > 0 {
			return int64(float64(v) * float64(float32(avail)/float32(total)))
		}
		return v
	}
	out := berth.New(scale(min.Memory, sum.Memory, pm.Memory), scale(min.VCores, sum.VCores, pm.VCores))
	for _, e := range min.Extras() { // extended types count as much as memory and vcores
		out = out.With(e.Name, scale(e.Value, sum.Extra(e.Name), pm.Extra(e.Name)))
	}
	return out
}

// refreshLimits recomputes the limit each leaf would be handed by its
// parent (YARN's updateClusterResource pass) for AM limits and headroom.
func (s *Scheduler) refreshLimits(q *qnode, limit berth.Resource) {
	if q.leaf != nil {
		q.leaf.currentLimit = limit
		q.leaf.cachedLimit = berth.Min(s.calculator, s.cluster, q.effMaxDown, limit)
		return
	}
	for _, c := range q.children {
		s.refreshLimits(c, s.childLimit(q, c, limit, 0))
	}
}

// childLimit is YARN's getResourceLimitsOfChild: what the parent can still
// give plus what the child holds, capped by the child's maximum, on
// partition part.
func (s *Scheduler) childLimit(p, c *qnode, parentLimit berth.Resource, part int) berth.Resource {
	pp, cp := p.on(part), c.on(part)
	l := parentLimit.Sub(pp.used).Add(cp.used)
	l = s.rmin(l, cp.effMaxDown)
	return s.roundDown(l, s.cfg.MinAllocation)
}

func (s *Scheduler) refreshUsedCap(q *qnode) {
	if s.cluster.IsZero() {
		q.usedCap, q.absUsedCap = 0, 0
	} else {
		q.usedCap = s.divide(q.used, s.rmax(q.effMin, s.cfg.MinAllocation))
		q.absUsedCap = s.divide(q.used, s.cluster)
	}
	if p := q.parent; p != nil && !q.movedSelf {
		q.movedSelf = true
		p.moved++
	}
	s.rekeyChild(q)
}

// charge adds delta to the usage of user u in leaf q (to its reservations
// too when res), up the mirror and in the tree's accounting.
func (s *Scheduler) charge(q *qnode, u *user, delta berth.Resource, res bool) {
	s.chargeMirror(q, u, delta, res)
	d := queue.Delta{Used: delta}
	if res {
		d.Reserved = delta
	}
	s.accountUser(q, u, d)
}

// chargeMirror is charge without the tree's accounting.
func (s *Scheduler) chargeMirror(q *qnode, u *user, delta berth.Resource, res bool) {
	s.userUsage(q, u, delta)
	for n := q; n != nil; n = n.parent {
		n.used = n.used.Add(delta)
		if res {
			n.reserved = n.reserved.Add(delta)
		}
		s.refreshUsedCap(n)
	}
}

// addPending adds delta to the outstanding demand of leaf q for u. A
// queue whose demand becomes zero or non-zero leaves or joins its parent's
// order (rekeyChild).
func (s *Scheduler) addPending(q *qnode, u *user, delta berth.Resource) {
	for n := q; n != nil; n = n.parent {
		was := n.pending.IsZero()
		n.pending = n.pending.Add(delta)
		if n.pending.IsZero() != was {
			s.rekeyChild(n)
		}
	}
	s.accountUser(q, u, queue.Delta{Pending: delta})
}

// accountUser charges d, a change for u, a user of leaf q, to the tree's
// accounting: resource amounts are deferred (deferAccount); a change of
// application counts first charges what was deferred, then itself.
func (s *Scheduler) accountUser(q *qnode, u *user, d queue.Delta) {
	if d.PendingApps == 0 && d.ActiveApps == 0 && !s.eagerAcct {
		s.deferAccount(q, u, d)
		return
	}
	s.flushAccounts()
	s.updateTree(q, u, d)
}

// updateTree charges the tree through u's UserRef (the tree skips its
// per-level user lookups); an error there means the mirror and the tree
// disagree, which is a bug: it is kept for Check to report.
func (s *Scheduler) updateTree(q *qnode, u *user, d queue.Delta) {
	if err := q.tq.UpdateRef(&u.ref, u.name, d); err != nil && s.bug == nil {
		s.bug = fmt.Errorf("capacity: queue accounting of %s: %w", q.path, err)
	}
}

// cmpChildren is YARN's PriorityUtilizationQueueOrderingPolicy comparator
// for the default partition: negative when a goes first.
func cmpChildren(a, b *qnode, respectPriority bool) int {
	return cmpOnPart(a, b, &a.qpart, &b.qpart, respectPriority)
}

// cmpOnPart is cmpChildren on the partition of pa and pb, a's and b's
// capacities and usage there: the queues with a guarantee first, then by
// used capacity (absolute without a guarantee), priority, absolute
// capacity, and position.
func cmpOnPart(a, b *qnode, pa, pb *qpart, respectPriority bool) int {
	aPos, bPos := pa.absCap > 0, pb.absCap > 0
	if aPos != bPos {
		if aPos {
			return -1
		}
		return 1
	}
	ua, ub := pa.usedCap, pb.usedCap
	if !aPos {
		ua, ub = pa.absUsedCap, pb.absUsedCap
	}
	prioA, prioB := 0, 0
	if respectPriority {
		prioA, prioB = a.set().Priority, b.set().Priority
	}
	if c := cmpUtilization(ua, ub, prioA, prioB); c != 0 {
		return c
	}
	if pa.absCap != pb.absCap {
		if pa.absCap > pb.absCap {
			return -1
		}
		return 1
	}
	return a.pos - b.pos
}

// cmpUtilization orders by used capacity, letting priority win while both
// queues are on the same side of their guarantee.
func cmpUtilization(u1, u2 float32, p1, p2 int) int {
	if p1 != p2 && ((u1 < 1 && u2 < 1) || (u1 >= 1 && u2 >= 1)) {
		return p2 - p1
	}
	switch {
	case u1 < u2:
		return -1
	case u1 > u2:
		return 1
	}
	return 0
}

// sortChildren restores q.order. The order changes little between visits
// (one child's usage moved), so a stable insertion sort is linear in the
// common case. priority-utilization's comparator is not transitive, so it
// re-sorts from configuration order, as YARN does on every walk. With
// shortcut (all but the tests' reference), a utilization parent whose
// children hold no NaN and of which at most one changed since the last
// sort only moves that one (moveChanged).
func sortChildren(q *qnode, shortcut bool) {
	pol := childOrdering(q.set())
	o := q.order
	b, builtin := pol.(builtinKids)
	if !builtin || b.prio {
		copy(o, q.children) // only utilization is known to be transitive
	}
	if shortcut && builtin && !b.prio && q.ordered && q.moved <= 1 && !nanKids(o) {
		// utilization is a strict total order (pos breaks every tie) on
		// children without NaN, so the sorted order is unique and, with
		// at most one child changed since the last sort, found by moving
		// that child alone: what the insertion sort below would give.
		if q.moved == 1 {
			moveChanged(o)
		}
		q.moved = 0
		return
	}
	defer resetMoved(q)
	if builtin {
		// The built-ins' comparator directly: this runs at every parent
		// on every walk.
		for i := 1; i < len(o); i++ {
			x := o[i]
			j := i
			for j > 0 && cmpKidsBuiltin(x, o[j-1], b.prio) < 0 {
				o[j] = o[j-1]
				j--
			}
			o[j] = x
		}
		return
	}
	cmp := cmpKids(q)
	for i := 1; i < len(o); i++ {
		x := o[i]
		j := i
		for j > 0 && cmp(x, o[j-1]) < 0 {
			o[j] = o[j-1]
			j--
		}
		o[j] = x
	}
}

// resetMoved records that q.order was just sorted.
func resetMoved(q *qnode) {
	for _, c := range q.children {
		c.movedSelf = false
	}
	// A sort among NaN keys is no order to move one child in later: the
	// next sort is a full one.
	q.moved, q.ordered = 0, !nanKids(q.order)
}

// nanKids reports whether a child's key holds a NaN, which makes the
// comparison no order: such parents keep to the insertion sort.
func nanKids(o []*qnode) bool {
	for _, c := range o {
		if c.usedCap != c.usedCap || c.absUsedCap != c.absUsedCap || c.absCap != c.absCap {
			return true
		}
	}
	return false
}

// moveChanged puts the one child of sorted o flagged movedSelf in its
// place by utilization, with a binary search among the others.
func moveChanged(o []*qnode) {
	i := slices.IndexFunc(o, func(c *qnode) bool { return c.movedSelf })
	if i < 0 {
		return
	}
	x := o[i]
	x.movedSelf = false
	rest := slices.Delete(o, i, i+1) // o[:len(o)-1], still sorted
	j, _ := slices.BinarySearchFunc(rest, x, func(c, x *qnode) int { return cmpKidsBuiltin(c, x, false) })
	copy(o[j+1:], o[j:len(o)-1])
	o[j] = x
}

func sortedUsers(lf *leafState) []*user {
	out := make([]*user, 0, len(lf.users))
	for _, n := range sortedKeys(lf.users) {
		out = append(out, lf.users[n])
	}
	return out
}

// dirtyAcct is a user of leaf q with changes the tree has not been
// charged yet.
type dirtyAcct struct {
	q *qnode
	u *user
}

// deferAccount records a change of u's used, pending or reserved
// resources for the tree's accounting without charging it yet. The
// scheduler decides from its own mirror (qnode, user); the tree's
// accounting is read only by the tree's own checks and by Snapshot, Check,
// Reconfigure and RemoveReservationQueue, which charge what was
// deferred first (flushAccounts), as does any change of application
// counts. Between two such moments the changes of a user are summed, so a
// user given many containers costs one tree update instead of one per
// container and level.
func (s *Scheduler) deferAccount(q *qnode, u *user, d queue.Delta) {
	if !u.acctDirty {
		u.acctDirty = true
		s.acctDirty = append(s.acctDirty, dirtyAcct{q: q, u: u})
	}
	u.acct.Used = u.acct.Used.Add(d.Used)
	u.acct.Pending = u.acct.Pending.Add(d.Pending)
	u.acct.Reserved = u.acct.Reserved.Add(d.Reserved)
}

// flushAccounts charges the tree with every deferred change, users in the
// order of their first deferred change.
func (s *Scheduler) flushAccounts() {
	if len(s.acctDirty) == 0 {
		return
	}
	for i, e := range s.acctDirty {
		u := e.u
		d := u.acct
		u.acct, u.acctDirty = queue.Delta{}, false
		s.acctDirty[i] = dirtyAcct{}
		if !d.IsZero() {
			s.updateTree(e.q, u, d)
		}
	}
	s.acctDirty = s.acctDirty[:0]
}
