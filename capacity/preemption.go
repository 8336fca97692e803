package capacity

import (
	"slices"

	"github.com/berthsched/berth"
)

// PreemptionState is the aggregate part of the scheduler's state that a
// preemption policy reads every round, copied under one lock: the queues
// with each leaf's pending demand within its users' limits, the
// applications with their live AM usage and their users' limits, the
// reservations and the nodes holding them. It holds no containers: a
// policy reads those of the few applications or nodes it searches with
// [Scheduler.AppendAppContainers], [Scheduler.AppendAppContainersBefore]
// and [Scheduler.AppendNodeContainers], so reading it costs
// O(queues + applications + reservations), not O(containers) or O(nodes).
// [Scheduler.Snapshot] remains the full deep copy.
type PreemptionState struct {
	// Time of the state, from the scheduler's clock.
	Time berth.Time
	// Cluster is the sum of the nodes' capabilities, labelled or not.
	Cluster berth.Resource
	// Partitions lists the cluster's partitions: the default one first
	// (Label ""), then the labelled ones in the order of
	// QueueInfo.Partitions.
	Partitions []PartitionState
	// LabelledNodes lists the nodes of the labelled partitions, by id,
	// with their labels (ID and Label set): a container counts on its
	// node's partition, the default one when its node is not listed.
	LabelledNodes []NodeInfo
	// Queues lists every queue depth first (parents before children,
	// children in tree order); Queues[0] is root.
	Queues []PreemptionQueue
	// Apps lists every application by submission order.
	Apps []PreemptionApp
	// Reservations lists the reserved containers by id.
	Reservations []ReservationInfo
	// Nodes lists the nodes holding a reservation, by id (the node-level
	// selectors start from them); [Scheduler.Snapshot] lists every node.
	Nodes []NodeInfo
}

// PreemptionQueue is one queue of a [PreemptionState].
type PreemptionQueue struct {
	// Path is the full path; Parent the index of the parent in
	// PreemptionState.Queues (-1 for root); Leaf is true for leaf queues.
	Path   string
	Parent int
	Leaf   bool
	// QueueInfo is the same record [Scheduler.Snapshot] gives.
	QueueInfo
	// PendingWithinLimits is what [Scheduler.PendingWithinUserLimits]
	// returns for a leaf, without and with deductReserved (zero for
	// parents): its demand on the default partition.
	PendingWithinLimits, PendingWithinLimitsDeductReserved berth.Resource
	// PartitionPending is the same per labelled partition, in the order
	// of QueueInfo.Partitions (each user held to its limit there).
	PartitionPending []PendingWithinLimits
	// Borrowed lists a leaf's containers of default-partition asks on
	// labelled nodes (YARN's ignore-exclusivity containers), the latest
	// application's first, each application's newest first: the FIFO
	// selector takes them first.
	Borrowed []Container
}

// PartitionState is one partition of a [PreemptionState].
type PartitionState struct {
	// Label names the partition ("" the default one); Resource is its
	// nodes' total; NonExclusive tells whether other partitions' queues
	// may borrow it.
	Label        string
	Resource     berth.Resource
	NonExclusive bool
}

// PendingWithinLimits is a leaf's demand on one partition that its
// users' limits there let through, without (All) and with
// (DeductReserved) what its applications reserved there.
type PendingWithinLimits struct {
	All, DeductReserved berth.Resource
}

// PreemptionApp is one application of a [PreemptionState].
type PreemptionApp struct {
	AppInfo
	// AMUsed is the resource of its live AM container (zero once the AM
	// container ended, or before it started).
	AMUsed berth.Resource
	// UserLimit is its user's limit in its queue ([Scheduler.UserLimit]).
	UserLimit berth.Resource
	// ContainerPriorities counts the distinct request priorities of its
	// live containers: with one, newest first is also least important
	// first, YARN's preemption order.
	ContainerPriorities int
	// Partitions is its usage and demand per labelled partition (AppInfo
	// holds the totals), in the order of QueueInfo.Partitions; AMPartition
	// indexes PreemptionState.Partitions.
	Partitions  []AppPartition
	AMPartition int
}

// AppPartition is an application's usage, reservations and demand on one
// labelled partition.
type AppPartition struct {
	Used, Reserved, Pending berth.Resource
}

// PreemptionState copies the aggregate state a preemption round reads.
func (s *Scheduler) PreemptionState() *PreemptionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &PreemptionState{Time: s.clock.Now(), Cluster: s.total}
	out.Partitions = make([]PartitionState, len(s.parts))
	for i, p := range s.parts {
		out.Partitions[i] = PartitionState{Label: p.name, Resource: s.partTotal(i), NonExclusive: p.nonExclusive}
	}
	if s.labelled() {
		for _, id := range sortedKeys(s.nodes) {
			if n := s.nodes[id]; n.part != 0 {
				out.LabelledNodes = append(out.LabelledNodes, NodeInfo{ID: id, Label: s.parts[n.part].name})
			}
		}
	}
	out.Queues = make([]PreemptionQueue, 0, len(s.byPath))
	out.Apps = make([]PreemptionApp, 0, len(s.apps))
	idx := make(map[*qnode]int, len(s.byPath))
	room, limits := map[*user]berth.Resource{}, map[*user]berth.Resource{}
	for tq := range s.tree.All() {
		q := s.byTQ[tq]
		pq := PreemptionQueue{Path: q.path, Parent: -1, Leaf: q.isLeaf(), QueueInfo: s.queueInfo(q)}
		if p, ok := idx[q.parent]; ok && q.parent != nil {
			pq.Parent = p
		}
		if lf := q.leaf; lf != nil {
			// One limit per user of the leaf, shared by its applications
			// and the pending computation.
			clear(limits)
			limitOf := func(u *user) berth.Resource {
				ul, ok := limits[u]
				if !ok {
					ul = s.userLimit(q, u)
					limits[u] = ul
				}
				return ul
			}
			pq.PendingWithinLimits, pq.PendingWithinLimitsDeductReserved = s.leafPendingBoth(q, 0, room, limitOf)
			for p := 1; p < len(s.parts); p++ {
				on := func(u *user) berth.Resource { return s.userLimitOn(q, u, p, false) }
				all, deduct := s.leafPendingBoth(q, p, room, on)
				pq.PartitionPending = append(pq.PartitionPending, PendingWithinLimits{All: all, DeductReserved: deduct})
			}
			if lf.borrowed > 0 {
				pq.Borrowed = s.borrowedOf(q)
			}
			for _, a := range lf.apps {
				pa := PreemptionApp{AppInfo: s.appInfo(a), AMUsed: a.amLive,
					UserLimit: limitOf(a.u), ContainerPriorities: len(a.prios), AMPartition: a.amPart}
				for i := range a.lp {
					pa.Partitions = append(pa.Partitions, AppPartition{Used: a.lp[i].used, Reserved: a.lp[i].reserved, Pending: a.lp[i].pending})
				}
				out.Apps = append(out.Apps, pa)
			}
		}
		idx[q] = len(out.Queues)
		out.Queues = append(out.Queues, pq)
	}
	slices.SortFunc(out.Apps, func(x, y PreemptionApp) int { return cmpSeq(x.Order, y.Order) })
	out.Reservations = make([]ReservationInfo, 0, len(s.resvByID))
	for _, r := range s.resvByID {
		out.Reservations = append(out.Reservations, ReservationInfo{ID: r.id, App: r.app.id, Node: r.node.id,
			Queue: r.app.q.path, Resource: r.res, Priority: r.key.Priority(), Time: r.time})
	}
	slices.SortFunc(out.Reservations, func(x, y ReservationInfo) int { return cmpID(x.ID, y.ID) })
	out.Nodes = make([]NodeInfo, 0, len(out.Reservations))
	for _, r := range out.Reservations {
		n := s.nodes[r.Node]
		if n.reserved != nil && n.reserved.id == r.ID {
			out.Nodes = append(out.Nodes, NodeInfo{ID: n.id, Rack: n.rack, Capability: n.total, Allocated: n.allocated, Reserved: r.ID,
				Label: s.parts[n.part].name})
		}
	}
	slices.SortFunc(out.Nodes, func(x, y NodeInfo) int {
		switch {
		case x.ID < y.ID:
			return -1
		case x.ID > y.ID:
			return 1
		}
		return 0
	})
	return out
}

func (s *Scheduler) appInfo(a *app) AppInfo {
	return AppInfo{ID: a.id, Queue: a.q.path, User: a.userName, Priority: a.priority,
		Active: a.state == appActive, Runnable: a.runnable, Order: a.seq, Start: a.start, Used: a.used, Reserved: a.reserved,
		Pending: a.pending, Headroom: a.headroom, AMResource: a.amRes, Containers: a.n}
}

// leafPendingBoth is PendingWithinUserLimits of leaf q on partition part
// without and with deductReserved; room is scratch space, limitOf the
// users' limits there.
func (s *Scheduler) leafPendingBoth(q *qnode, part int, room map[*user]berth.Resource, limitOf func(*user) berth.Resource) (all, deduct berth.Resource) {
	for _, pass := range [2]bool{false, true} {
		clear(room)
		var total berth.Resource
		q.leaf.sched.Ascend(func(a *app) bool {
			left, ok := room[a.u]
			if !ok {
				left = berth.ComponentwiseMax(limitOf(a.u).Sub(a.u.usedOn(part)), berth.Resource{})
			}
			p := a.pendingOn(part)
			if pass {
				p = p.Sub(a.reservedOn(part))
			}
			p = berth.ComponentwiseMax(p, berth.Resource{})
			take := berth.ComponentwiseMin(left, p)
			total = total.Add(take)
			room[a.u] = left.Sub(take)
			return true
		})
		if pass {
			deduct = total
		} else {
			all = total
		}
	}
	return all, deduct
}

// AppendAppContainers appends the live containers of the application to
// dst, by id, and returns the extended slice; an unknown application is
// an ErrNotFound error naming it. It reads one application's list, so a
// preemption round pays only for the applications it searches.
func (s *Scheduler) AppendAppContainers(dst []Container, appID string) ([]Container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return dst, notFound("app.id", appID)
	}
	start := len(dst)
	for c := a.head; c != nil; c = c.aNext {
		dst = append(dst, c.c)
	}
	return sortAppended(dst, start), nil
}

// AppendNodeContainers appends the live containers on the node to dst, by
// id; an unknown node is an ErrNotFound error naming it.
func (s *Scheduler) AppendNodeContainers(dst []Container, nodeID string) ([]Container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[nodeID]
	if !ok {
		return dst, notFound("node.id", nodeID)
	}
	start := len(dst)
	for c := n.head; c != nil; c = c.nNext {
		dst = append(dst, c.c)
	}
	return sortAppended(dst, start), nil
}

// sortAppended puts dst[start:] in id order. Lists are linked newest
// first and ids grow, so reversing is almost always enough.
func sortAppended(dst []Container, start int) []Container {
	seg := dst[start:]
	slices.Reverse(seg)
	byID := func(x, y Container) int { return cmpID(x.ID, y.ID) }
	if !slices.IsSortedFunc(seg, byID) {
		slices.SortFunc(seg, byID)
	}
	return dst
}

// AppendAppContainersBefore appends to dst up to limit live containers
// of the application whose id is below before (all when before is 0),
// newest (highest id) first: a preemption selector that takes the newest
// containers first pages through an application and stops when it has
// enough, instead of copying the whole list. An unknown application is
// an ErrNotFound error naming it.
func (s *Scheduler) AppendAppContainersBefore(dst []Container, appID string, before ContainerID, limit int) ([]Container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return dst, notFound("app.id", appID)
	}
	c := a.head
	if before != 0 {
		// Lists are linked newest first and ids grow: resume after before.
		if lc, ok := s.live.Get(before); ok && lc.app == a {
			c = lc.aNext
		} else {
			for c != nil && c.c.ID >= before {
				c = c.aNext
			}
		}
	}
	start := len(dst)
	for ; c != nil && limit > 0; c = c.aNext {
		if n := len(dst); n > start && dst[n-1].ID <= c.c.ID {
			return s.appendNewestSlow(dst[:start], a, before, limit), nil
		}
		dst = append(dst, c.c)
		limit--
	}
	return dst, nil
}

// appendNewestSlow is AppendAppContainersBefore for a list out of id
// order (not expected: ids come from a counter and containers are linked
// when allocated).
func (s *Scheduler) appendNewestSlow(dst []Container, a *app, before ContainerID, limit int) []Container {
	start := len(dst)
	for c := a.head; c != nil; c = c.aNext {
		if before == 0 || c.c.ID < before {
			dst = append(dst, c.c)
		}
	}
	seg := dst[start:]
	slices.SortFunc(seg, func(x, y Container) int { return cmpID(y.ID, x.ID) })
	return dst[:start+min(limit, len(seg))]
}

// HasContainer reports whether the container is live.
func (s *Scheduler) HasContainer(id ContainerID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.live.Get(id)
	return ok
}

// prioCount counts an application's live containers of one request
// priority.
type prioCount struct {
	p int32
	n int
}

// track keeps the application's live AM usage and its containers'
// priorities as containers come and go (delta +1 or -1).
func (a *app) track(c *container, delta int) {
	if c.c.AM {
		if delta > 0 {
			a.amLive = a.amLive.Add(c.c.Resource)
		} else {
			a.amLive = a.amLive.Sub(c.c.Resource)
		}
	}
	for i := range a.prios {
		if a.prios[i].p == c.c.Priority {
			if a.prios[i].n += delta; a.prios[i].n == 0 {
				a.prios = slices.Delete(a.prios, i, i+1)
			}
			return
		}
	}
	a.prios = append(a.prios, prioCount{p: c.c.Priority, n: delta})
}
