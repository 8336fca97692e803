package capacity

import (
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// QueueInfo is the capacity scheduler's view of one queue in a snapshot,
// beside the tree's configuration and accounting.
type QueueInfo struct {
	// Guaranteed and Maximum are the effective resources (YARN's effective
	// min and max capacity).
	Guaranteed, Maximum berth.Resource
	// UsedCapacity is used relative to the guarantee; AbsoluteUsedCapacity
	// relative to the cluster.
	UsedCapacity, AbsoluteUsedCapacity float32
	// Used (allocated plus reserved), Reserved and Pending (outstanding
	// asks of active applications).
	Used, Reserved, Pending berth.Resource
	// AMUsed and AMLimit (leaves).
	AMUsed, AMLimit berth.Resource
	// ActiveUsers counts users with outstanding asks (leaves).
	ActiveUsers int
	// Priority is the queue's configured priority.
	Priority int
	// Partitions is the queue's state on each labelled partition (the
	// fields above are the default partition's), in the order the
	// labels were first configured; nil without labels.
	Partitions []PartitionInfo
}

// PartitionInfo is a queue's state on one labelled partition (YARN's
// per-partition queue capacities and usage).
type PartitionInfo struct {
	// Label names the partition; Accessible says whether the queue may
	// serve asks for it.
	Label      string
	Accessible bool
	// Guaranteed and Maximum are the effective resources on the partition.
	Guaranteed, Maximum berth.Resource
	// UsedCapacity is used relative to the guarantee there (at least one
	// minimum allocation); AbsoluteUsedCapacity relative to the partition.
	UsedCapacity, AbsoluteUsedCapacity float32
	// Used (allocated plus reserved, borrowed containers included),
	// Reserved and Pending (asks labelled with the partition).
	Used, Reserved, Pending berth.Resource
	// AMUsed and AMLimit (leaves): the AMs on the partition and their limit.
	AMUsed, AMLimit berth.Resource
}

// AppInfo is one application in a snapshot.
type AppInfo struct {
	// ID, Queue (full path) and User of the application.
	ID, Queue, User string
	// Priority is the application priority.
	Priority int32
	// Active is false while the application waits for AM limits.
	Active bool
	// Runnable is false while it waits for a max-parallel-apps slot
	// (it is then not Active either).
	Runnable bool
	// Order is the submission sequence number (FIFO order).
	Order uint64
	// Start is the submission time.
	Start berth.Time
	// Used (allocated), Reserved, Pending (outstanding asks) and the last
	// Headroom computed.
	Used, Reserved, Pending, Headroom berth.Resource
	// AMResource is the AM's resource (zero for unmanaged AMs).
	AMResource berth.Resource
	// Containers counts live containers.
	Containers int
}

// ContainerInfo is a live container in a snapshot.
type ContainerInfo struct {
	Container
	// MarkedForPreemption is set by [Scheduler.MarkForPreemption].
	MarkedForPreemption bool
}

// ReservationInfo is a container reserved on a node (package queue's
// record, shared with package fair).
type ReservationInfo = queue.ReservedContainer

// NodeInfo is a node in a snapshot (package queue's record).
type NodeInfo = queue.NodeInfo

// Snapshot is a deep copy of the scheduler's state at one moment, for the
// preemption policy and for reporting. It is safe to read concurrently and
// does not change afterwards.
type Snapshot struct {
	// Time of the snapshot, from the scheduler's clock.
	Time berth.Time
	// Cluster is the sum of the nodes' capabilities.
	Cluster berth.Resource
	// Queues is the queue tree with QueueInfo as each queue's Extra.
	Queues       *queue.Snapshot[QueueInfo]
	Apps         []AppInfo         // by submission order
	Containers   []ContainerInfo   // by id
	Reservations []ReservationInfo // by id
	Nodes        []NodeInfo        // by id
}

// Snapshot copies the scheduler's state.
func (s *Scheduler) Snapshot() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAccounts() // the tree's accounting is read below
	out := &Snapshot{Time: s.clock.Now(), Cluster: s.cluster}
	out.Queues = queue.SnapshotWith(s.tree, func(tq *tqueue) QueueInfo { return s.queueInfo(s.byTQ[tq]) })
	for _, id := range sortedKeys(s.apps) {
		a := s.apps[id]
		out.Apps = append(out.Apps, s.appInfo(a))
	}
	slices.SortFunc(out.Apps, func(x, y AppInfo) int { return cmpSeq(x.Order, y.Order) })
	out.Containers = s.containersByID()
	for _, r := range s.resvByID {
		out.Reservations = append(out.Reservations, ReservationInfo{ID: r.id, App: r.app.id, Node: r.node.id,
			Queue: r.app.q.path, Resource: r.res, Priority: r.key.Priority(), Time: r.time})
	}
	slices.SortFunc(out.Reservations, func(x, y ReservationInfo) int { return cmpID(x.ID, y.ID) })
	for _, id := range sortedKeys(s.nodes) {
		n := s.nodes[id]
		ni := NodeInfo{ID: n.id, Rack: n.rack, Capability: n.total, Allocated: n.allocated, Label: s.parts[n.part].name}
		if n.reserved != nil {
			ni.Reserved = n.reserved.id
		}
		out.Nodes = append(out.Nodes, ni)
	}
	return out
}

// queueInfo is q's record in a snapshot.
func (s *Scheduler) queueInfo(q *qnode) QueueInfo {
	qi := QueueInfo{Guaranteed: q.effMin, Maximum: q.effMax, UsedCapacity: q.usedCap, AbsoluteUsedCapacity: q.absUsedCap,
		Used: q.used, Reserved: q.reserved, Pending: q.pending, Priority: q.set().Priority}
	if lf := q.leaf; lf != nil {
		qi.AMUsed, qi.ActiveUsers = lf.amUsed, lf.activeUsers
		qi.AMLimit = s.amLimit(q)
	}
	if q.lp != nil {
		qi.Partitions = make([]PartitionInfo, len(q.lp))
		for i := range q.lp {
			lp := &q.lp[i]
			pi := PartitionInfo{Label: s.parts[i+1].name, Accessible: lp.access, Guaranteed: lp.effMin, Maximum: lp.effMax,
				UsedCapacity: lp.usedCap, AbsoluteUsedCapacity: lp.absUsedCap, Used: lp.used, Reserved: lp.reserved, Pending: lp.pending}
			if q.leaf != nil {
				pi.AMUsed, pi.AMLimit = lp.amUsed, s.amLimitOn(q, i+1)
			}
			qi.Partitions[i] = pi
		}
	}
	return qi
}

// MarkForPreemption flags a container as about to be preempted (YARN's
// MARK_CONTAINER_FOR_PREEMPTION): the application can be told, nothing is
// freed.
func (s *Scheduler) MarkForPreemption(id ContainerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.live.Get(id)
	if !ok {
		return notFound("container.id", id)
	}
	c.preempt = true
	return nil
}

// PreemptContainer kills a container for preemption (YARN's
// MARK_CONTAINER_FOR_KILLABLE without lazy preemption): its resources are
// freed at once and it ends as Preempted. The host stops it on its node.
func (s *Scheduler) PreemptContainer(id ContainerID) (Ended, error) {
	return s.kill(id, Preempted)
}

// KillContainer kills a container administratively; it ends as Killed.
func (s *Scheduler) KillContainer(id ContainerID) (Ended, error) {
	return s.kill(id, Killed)
}

func (s *Scheduler) kill(id ContainerID, st ExitStatus) (Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.live.Get(id)
	if !ok {
		return Ended{}, notFound("container.id", id)
	}
	s.releaseContainer(c)
	if s.obs != nil {
		s.emitEnded(c.c, st)
	}
	return Ended{Container: c.c, Status: st}, nil
}

// KillReservation cancels a container reservation (YARN's
// KILL_RESERVED_CONTAINER).
func (s *Scheduler) KillReservation(id ContainerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.resvByID[id]
	if !ok {
		return notFound("reservation.id", id)
	}
	s.unreserve(r)
	return nil
}

// Check verifies the scheduler's internal invariants: every container and
// reservation is counted once in its node, application, user and queue
// (and the queue tree's accounting agrees), no node is over its
// capability, no queue holds more than its maximum plus one container's
// slack where YARN allows it, and each parent's kept child order holds
// exactly its children with pending demand. It is meant for tests and
// debugging.
func (s *Scheduler) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAccounts() // the tree's accounting is read below
	if s.bug != nil {
		return s.bug
	}
	var pendingAll berth.Resource
	for _, a := range s.apps {
		pendingAll = pendingAll.Add(a.pending)
	}
	if !pendingAll.Equal(s.pendingAll) {
		return fmt.Errorf("the applications' outstanding demand is %v, the books say %v", pendingAll, s.pendingAll)
	}
	sums, err := s.checkSums()
	if err != nil {
		return err
	}
	if err := s.checkNodes(sums); err != nil {
		return err
	}
	byLeaf, err := s.checkApps(sums)
	if err != nil {
		return err
	}
	return s.checkQueues(sums, byLeaf)
}

// Keys of Check's sums per partition.
type (
	onQ struct {
		q *qnode
		p int
	}
	onU struct {
		u *user
		p int
	}
	onA struct {
		a *app
		p int
	}
)

// checkTotals are the sums per partition Check recomputes from the
// containers and reservations, to compare with what the books keep.
type checkTotals struct {
	nodeAlloc       map[*node]berth.Resource
	appUsed, appRes map[onA]berth.Resource
	userUsed        map[onU]berth.Resource
	qUsed, qRes     map[onQ]berth.Resource
	borrowed        map[*app]int
}

// checkSums adds up the live containers and reservations per node,
// application, user and queue on each partition.
func (s *Scheduler) checkSums() (*checkTotals, error) {
	t := &checkTotals{nodeAlloc: map[*node]berth.Resource{}, appUsed: map[onA]berth.Resource{}, appRes: map[onA]berth.Resource{},
		userUsed: map[onU]berth.Resource{}, qUsed: map[onQ]berth.Resource{}, qRes: map[onQ]berth.Resource{}, borrowed: map[*app]int{}}
	for _, c := range s.live.All() {
		if s.nodes[c.node.id] != c.node || s.apps[c.app.id] != c.app {
			return nil, fmt.Errorf("container %d on a removed node or app", c.c.ID)
		}
		p := c.node.part
		if c.borrowed && p == 0 {
			return nil, fmt.Errorf("container %d borrows the default partition", c.c.ID)
		}
		if c.borrowed {
			t.borrowed[c.app]++
		}
		t.nodeAlloc[c.node] = t.nodeAlloc[c.node].Add(c.c.Resource)
		t.appUsed[onA{c.app, p}] = t.appUsed[onA{c.app, p}].Add(c.c.Resource)
		t.userUsed[onU{c.app.u, p}] = t.userUsed[onU{c.app.u, p}].Add(c.c.Resource)
		for q := c.app.q; q != nil; q = q.parent {
			t.qUsed[onQ{q, p}] = t.qUsed[onQ{q, p}].Add(c.c.Resource)
		}
	}
	for _, r := range s.resvByID {
		if r.node.reserved != r {
			return nil, fmt.Errorf("reservation %d not on its node", r.id)
		}
		p := r.node.part
		t.appRes[onA{r.app, p}] = t.appRes[onA{r.app, p}].Add(r.res)
		t.userUsed[onU{r.app.u, p}] = t.userUsed[onU{r.app.u, p}].Add(r.res)
		for q := r.app.q; q != nil; q = q.parent {
			t.qUsed[onQ{q, p}] = t.qUsed[onQ{q, p}].Add(r.res)
			t.qRes[onQ{q, p}] = t.qRes[onQ{q, p}].Add(r.res)
		}
	}
	return t, nil
}

// checkNodes compares each node's allocation with its containers, and the
// cluster's and partitions' totals with the nodes.
func (s *Scheduler) checkNodes(t *checkTotals) error {
	var total berth.Resource
	partTotal := make([]berth.Resource, len(s.parts))
	for _, id := range sortedKeys(s.nodes) {
		n := s.nodes[id]
		total = total.Add(n.total)
		partTotal[n.part] = partTotal[n.part].Add(n.total)
		if !n.allocated.Equal(t.nodeAlloc[n]) {
			return fmt.Errorf("node %s allocated %v, containers sum to %v", id, n.allocated, t.nodeAlloc[n])
		}
		if !s.calculator.FitsIn(n.allocated, n.total) {
			return fmt.Errorf("node %s over capability: %v > %v", id, n.allocated, n.total)
		}
		if n.reserved != nil && s.resvByID[n.reserved.id] != n.reserved {
			return fmt.Errorf("node %s holds an unknown reservation", id)
		}
	}
	if !total.Equal(s.total) || !partTotal[0].Equal(s.cluster) {
		return fmt.Errorf("cluster %v (default partition %v), nodes sum to %v (%v)", s.total, s.cluster, total, partTotal[0])
	}
	for p := 1; p < len(s.parts); p++ {
		if !partTotal[p].Equal(s.parts[p].total) {
			return fmt.Errorf("partition %s: %v, nodes sum to %v", s.parts[p].name, s.parts[p].total, partTotal[p])
		}
	}
	return nil
}

// checkApps compares each application's usage per partition with its
// containers, and returns the applications of each leaf by id (sorted
// once for all leaves).
func (s *Scheduler) checkApps(t *checkTotals) (map[*qnode][]*app, error) {
	byLeaf := map[*qnode][]*app{}
	for _, id := range sortedKeys(s.apps) {
		a := s.apps[id]
		byLeaf[a.q] = append(byLeaf[a.q], a)
		var used, res berth.Resource
		for p := range s.parts {
			u, r := t.appUsed[onA{a, p}], t.appRes[onA{a, p}]
			used, res = used.Add(u), res.Add(r)
			if p > 0 && (!a.lp[p-1].used.Equal(u) || !a.lp[p-1].reserved.Equal(r)) {
				return nil, fmt.Errorf("app %s on %s used %v reserved %v, containers say %v %v", id, s.parts[p].name,
					a.lp[p-1].used, a.lp[p-1].reserved, u, r)
			}
		}
		if !a.used.Equal(used) || !a.reserved.Equal(res) {
			return nil, fmt.Errorf("app %s used %v reserved %v, containers say %v %v", id, a.used, a.reserved, used, res)
		}
		if a.borrowed != t.borrowed[a] {
			return nil, fmt.Errorf("app %s borrows %d containers, holds %d", id, a.borrowed, t.borrowed[a])
		}
		if a.q.leaf.users[a.userName] != a.u {
			return nil, fmt.Errorf("app %s has a stale user", id)
		}
	}
	if err := s.checkParallel(); err != nil {
		return nil, err
	}
	return byLeaf, nil
}

// checkQueues compares each queue's usage per partition with its
// containers and with the queue tree's accounting, then checks each leaf
// and each parent's members.
func (s *Scheduler) checkQueues(t *checkTotals, byLeaf map[*qnode][]*app) error {
	for _, path := range sortedKeys(s.byPath) {
		q := s.byPath[path]
		var used, res, pend berth.Resource
		for p := range s.parts {
			qp := q.on(p)
			if !qp.used.Equal(t.qUsed[onQ{q, p}]) || !qp.reserved.Equal(t.qRes[onQ{q, p}]) {
				return fmt.Errorf("queue %s on partition %q used %v reserved %v, containers say %v %v", path, s.parts[p].name,
					qp.used, qp.reserved, t.qUsed[onQ{q, p}], t.qRes[onQ{q, p}])
			}
			used, res, pend = used.Add(qp.used), res.Add(qp.reserved), pend.Add(qp.pending)
		}
		if !q.tq.Used().Equal(used) || !q.tq.Reserved().Equal(res) || !q.tq.Pending().Equal(pend) {
			return fmt.Errorf("queue %s: tree accounting %v/%v/%v, scheduler %v/%v/%v", path,
				q.tq.Used(), q.tq.Reserved(), q.tq.Pending(), used, res, pend)
		}
		if q.leaf != nil {
			if err := s.checkLeaf(q, byLeaf[q], t); err != nil {
				return err
			}
		} else if err := s.checkMembers(q); err != nil {
			return err
		}
	}
	return nil
}

// checkLeaf recomputes a leaf's incremental aggregates from its
// applications (all the applications whose queue is q, by id) and users.
func (s *Scheduler) checkLeaf(q *qnode, mine []*app, t *checkTotals) error {
	lf, path := q.leaf, q.path
	np := len(s.parts)
	pending, amUsed := make([]berth.Resource, np), make([]berth.Resource, np)
	numActive, borrowed := 0, 0
	apps := map[*user]int{}
	withPending := map[*user]int{}
	for _, a := range mine {
		id := a.id
		apps[a.u]++
		borrowed += a.borrowed
		if a.hasPending() {
			withPending[a.u]++
		}
		if a.state == appActive {
			numActive++
			for p := range s.parts {
				pending[p] = pending[p].Add(a.pendingOn(p))
			}
			amUsed[a.amPart] = amUsed[a.amPart].Add(a.amRes)
			if a.inSched != a.hasPending() {
				return fmt.Errorf("app %s: schedulable %v with pending %v", id, a.inSched, a.pending)
			}
		} else if a.inSched {
			return fmt.Errorf("app %s schedulable while waiting for activation", id)
		}
	}
	switch {
	case len(lf.apps) != q.numApps() || !slices.IsSortedFunc(lf.apps, bySeq):
		return fmt.Errorf("leaf %s lists %d applications (sorted %v), holds %d", path, len(lf.apps), slices.IsSortedFunc(lf.apps, bySeq), q.numApps())
	case borrowed != lf.borrowed:
		return fmt.Errorf("leaf %s borrows %d containers, its applications %d", path, lf.borrowed, borrowed)
	case numActive != lf.numActive:
		return fmt.Errorf("leaf %s active %d, apps say %d", path, lf.numActive, numActive)
	}
	for _, a := range lf.apps {
		if a.q != q || s.apps[a.id] != a {
			return fmt.Errorf("leaf %s lists application %s of another queue", path, a.id)
		}
	}
	activeUsed, err := s.checkUsers(q, t, apps, withPending)
	if err != nil {
		return err
	}
	if err := s.checkLeafParts(q, pending, amUsed, activeUsed); err != nil {
		return err
	}
	return checkLeafOrder(q)
}

// checkUsers compares a leaf's users with their containers and
// applications, and the leaf's user counters and weights with its users;
// it returns what the active users use on each partition.
func (s *Scheduler) checkUsers(q *qnode, t *checkTotals, apps, withPending map[*user]int) ([]berth.Resource, error) {
	lf, path := q.leaf, q.path
	activeUsed := make([]berth.Resource, len(s.parts))
	activeUsers := 0
	var allW, activeW float64
	for _, un := range sortedKeys(lf.users) {
		u := lf.users[un]
		for p := range s.parts {
			if want := t.userUsed[onU{u, p}]; !u.usedOn(p).Equal(want) {
				return nil, fmt.Errorf("user %s in %s used %v on partition %q, containers say %v", un, path, u.usedOn(p), s.parts[p].name, want)
			}
		}
		if u.apps != apps[u] || u.activeApps != withPending[u] {
			return nil, fmt.Errorf("user %s in %s: %d apps (%d with asks), counted %d (%d)", un, path, apps[u], withPending[u], u.apps, u.activeApps)
		}
		allW += u.weight
		if u.activeApps > 0 {
			activeUsers++
			activeW += u.weight
			for p := range s.parts {
				activeUsed[p] = activeUsed[p].Add(u.usedOn(p))
			}
		}
	}
	switch {
	case activeUsers != lf.activeUsers:
		return nil, fmt.Errorf("leaf %s active users %d, users say %d", path, lf.activeUsers, activeUsers)
	case math.Abs(allW-lf.allWeights) > 1e-9 || math.Abs(activeW-lf.activeWeights) > 1e-9:
		return nil, fmt.Errorf("leaf %s weights %v/%v, users say %v/%v", path, lf.allWeights, lf.activeWeights, allW, activeW)
	}
	return activeUsed, nil
}

// checkLeafParts compares a leaf's pending demand, AM usage and active
// users' usage on each partition with its applications' and users' sums.
func (s *Scheduler) checkLeafParts(q *qnode, pending, amUsed, activeUsed []berth.Resource) error {
	lf, path := q.leaf, q.path
	for p := range s.parts {
		qPend, qAM, qActive := q.pending, lf.amUsed, lf.activeUsed
		if p > 0 {
			qPend, qAM, qActive = q.lp[p-1].pending, q.lp[p-1].amUsed, q.lp[p-1].activeUsed
		}
		name := s.parts[p].name
		switch {
		case !pending[p].Equal(qPend):
			return fmt.Errorf("leaf %s pending %v on partition %q, apps say %v", path, qPend, name, pending[p])
		case !amUsed[p].Equal(qAM):
			return fmt.Errorf("leaf %s AM used %v on partition %q, apps say %v", path, qAM, name, amUsed[p])
		case !activeUsed[p].Equal(qActive):
			return fmt.Errorf("leaf %s active users use %v on partition %q, users say %v", path, qActive, name, activeUsed[p])
		}
	}
	return nil
}

// checkLeafOrder checks that a leaf's schedulable applications are in its
// ordering policy's order.
func checkLeafOrder(q *qnode) error {
	less := leafAppLess(q)
	var prev *app
	i, bad := 0, -1
	q.leaf.sched.Ascend(func(a *app) bool {
		if prev != nil && less(a, prev) {
			bad = i
			return false
		}
		prev = a
		i++
		return true
	})
	if bad >= 0 {
		return fmt.Errorf("leaf %s applications out of order at %d", q.path, bad)
	}
	return nil
}

// containersByID copies the live containers in id order.
func (s *Scheduler) containersByID() []ContainerInfo {
	out := make([]ContainerInfo, 0, s.live.Len())
	s.live.Ascend(func(c *container) {
		out = append(out, ContainerInfo{Container: c.c, MarkedForPreemption: c.preempt})
	})
	return out
}
