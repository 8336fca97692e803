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
	out.Queues = queue.SnapshotWith(s.tree, func(tq *tqueue) QueueInfo {
		q := s.byTQ[tq]
		qi := QueueInfo{Guaranteed: q.effMin, Maximum: q.effMax, UsedCapacity: q.usedCap, AbsoluteUsedCapacity: q.absUsedCap,
			Used: q.used, Reserved: q.reserved, Pending: q.pending, Priority: tq.Payload.Priority}
		if lf := q.leaf; lf != nil {
			qi.AMUsed, qi.ActiveUsers = lf.amUsed, lf.activeUsers
			qi.AMLimit = s.amLimit(q)
		}
		return qi
	})
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
		ni := NodeInfo{ID: n.id, Rack: n.rack, Capability: n.total, Allocated: n.allocated}
		if n.reserved != nil {
			ni.Reserved = n.reserved.id
		}
		out.Nodes = append(out.Nodes, ni)
	}
	return out
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
	nodeAlloc := map[*node]berth.Resource{}
	appUsed := map[*app]berth.Resource{}
	appRes := map[*app]berth.Resource{}
	userUsed := map[*user]berth.Resource{}
	qUsed := map[*qnode]berth.Resource{}
	qRes := map[*qnode]berth.Resource{}
	for _, c := range s.live.All() {
		if s.nodes[c.node.id] != c.node || s.apps[c.app.id] != c.app {
			return fmt.Errorf("container %d on a removed node or app", c.c.ID)
		}
		nodeAlloc[c.node] = nodeAlloc[c.node].Add(c.c.Resource)
		appUsed[c.app] = appUsed[c.app].Add(c.c.Resource)
		userUsed[c.app.u] = userUsed[c.app.u].Add(c.c.Resource)
		for q := c.app.q; q != nil; q = q.parent {
			qUsed[q] = qUsed[q].Add(c.c.Resource)
		}
	}
	for _, r := range s.resvByID {
		if r.node.reserved != r {
			return fmt.Errorf("reservation %d not on its node", r.id)
		}
		appRes[r.app] = appRes[r.app].Add(r.res)
		userUsed[r.app.u] = userUsed[r.app.u].Add(r.res)
		for q := r.app.q; q != nil; q = q.parent {
			qUsed[q] = qUsed[q].Add(r.res)
			qRes[q] = qRes[q].Add(r.res)
		}
	}
	for _, id := range sortedKeys(s.nodes) {
		n := s.nodes[id]
		if !n.allocated.Equal(nodeAlloc[n]) {
			return fmt.Errorf("node %s allocated %v, containers sum to %v", id, n.allocated, nodeAlloc[n])
		}
		if !s.rc.FitsIn(n.allocated, n.total) {
			return fmt.Errorf("node %s over capability: %v > %v", id, n.allocated, n.total)
		}
		if n.reserved != nil && s.resvByID[n.reserved.id] != n.reserved {
			return fmt.Errorf("node %s holds an unknown reservation", id)
		}
	}
	// The applications of each leaf, by id: sorted once for all leaves.
	byLeaf := map[*qnode][]*app{}
	for _, id := range sortedKeys(s.apps) {
		a := s.apps[id]
		byLeaf[a.q] = append(byLeaf[a.q], a)
		if !a.used.Equal(appUsed[a]) || !a.reserved.Equal(appRes[a]) {
			return fmt.Errorf("app %s used %v reserved %v, containers say %v %v", id, a.used, a.reserved, appUsed[a], appRes[a])
		}
		if a.q.leaf.users[a.userName] != a.u {
			return fmt.Errorf("app %s has a stale user", id)
		}
	}
	if err := s.checkParallel(); err != nil {
		return err
	}
	for _, p := range sortedKeys(s.byPath) {
		q := s.byPath[p]
		if !q.used.Equal(qUsed[q]) || !q.reserved.Equal(qRes[q]) {
			return fmt.Errorf("queue %s used %v reserved %v, containers say %v %v", p, q.used, q.reserved, qUsed[q], qRes[q])
		}
		if !q.tq.Used().Equal(q.used) || !q.tq.Reserved().Equal(q.reserved) || !q.tq.Pending().Equal(q.pending) {
			return fmt.Errorf("queue %s: tree accounting %v/%v/%v, scheduler %v/%v/%v", p,
				q.tq.Used(), q.tq.Reserved(), q.tq.Pending(), q.used, q.reserved, q.pending)
		}
		if lf := q.leaf; lf != nil {
			if err := s.checkLeaf(q, byLeaf[q], userUsed); err != nil {
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
func (s *Scheduler) checkLeaf(q *qnode, mine []*app, userUsed map[*user]berth.Resource) error {
	lf, p := q.leaf, q.path
	var pending, amUsed, activeUsed berth.Resource
	numActive, activeUsers := 0, 0
	var allW, activeW float64
	apps := map[*user]int{}
	withPending := map[*user]int{}
	for _, a := range mine {
		id := a.id
		apps[a.u]++
		if a.hasPending() {
			withPending[a.u]++
		}
		if a.state == appActive {
			numActive++
			pending = pending.Add(a.pending)
			amUsed = amUsed.Add(a.amRes)
			if a.inSched != a.hasPending() {
				return fmt.Errorf("app %s: schedulable %v with pending %v", id, a.inSched, a.pending)
			}
		} else if a.inSched {
			return fmt.Errorf("app %s schedulable while waiting for activation", id)
		}
	}
	if len(lf.apps) != q.numApps() || !slices.IsSortedFunc(lf.apps, bySeq) {
		return fmt.Errorf("leaf %s lists %d applications (sorted %v), holds %d", p, len(lf.apps), slices.IsSortedFunc(lf.apps, bySeq), q.numApps())
	}
	for _, a := range lf.apps {
		if a.q != q || s.apps[a.id] != a {
			return fmt.Errorf("leaf %s lists application %s of another queue", p, a.id)
		}
	}
	for _, un := range sortedKeys(lf.users) {
		u := lf.users[un]
		if !u.used.Equal(userUsed[u]) {
			return fmt.Errorf("user %s in %s used %v, containers say %v", un, p, u.used, userUsed[u])
		}
		if u.apps != apps[u] || u.activeApps != withPending[u] {
			return fmt.Errorf("user %s in %s: %d apps (%d with asks), counted %d (%d)", un, p, apps[u], withPending[u], u.apps, u.activeApps)
		}
		allW += u.weight
		if u.activeApps > 0 {
			activeUsers++
			activeW += u.weight
			activeUsed = activeUsed.Add(u.used)
		}
	}
	switch {
	case !pending.Equal(q.pending):
		return fmt.Errorf("leaf %s pending %v, apps say %v", p, q.pending, pending)
	case !amUsed.Equal(lf.amUsed) || numActive != lf.numActive:
		return fmt.Errorf("leaf %s AM used %v active %d, apps say %v %d", p, lf.amUsed, lf.numActive, amUsed, numActive)
	case activeUsers != lf.activeUsers || !activeUsed.Equal(lf.activeUsed):
		return fmt.Errorf("leaf %s active users %d using %v, users say %d %v", p, lf.activeUsers, lf.activeUsed, activeUsers, activeUsed)
	case math.Abs(allW-lf.allWeights) > 1e-9 || math.Abs(activeW-lf.activeWeights) > 1e-9:
		return fmt.Errorf("leaf %s weights %v/%v, users say %v/%v", p, lf.allWeights, lf.activeWeights, allW, activeW)
	}
	less := leafAppLess(q)
	var prev *app
	i, bad := 0, -1
	lf.sched.Ascend(func(a *app) bool {
		if prev != nil && less(a, prev) {
			bad = i
			return false
		}
		prev = a
		i++
		return true
	})
	if bad >= 0 {
		return fmt.Errorf("leaf %s applications out of order at %d", p, bad)
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
