package capacity

import (
	"slices"

	"github.com/berthsched/berth"
)

// PreemptionState is the aggregate part of the scheduler's state that a
// preemption policy reads every round, copied under one lock: the queues
// with each leaf's pending demand within its users' limits, the
// applications with their live AM usage and their users' limits, the
// nodes and the reservations. It holds no containers: a policy reads
// those of the few applications or nodes it searches with
// [Scheduler.AppendAppContainers] and [Scheduler.AppendNodeContainers], so
// a round costs O(queues + applications + nodes), not O(containers).
// [Scheduler.Snapshot] remains the full deep copy.
type PreemptionState struct {
	// Time of the state, from the scheduler's clock.
	Time berth.Time
	// Cluster is the sum of the nodes' capabilities.
	Cluster berth.Resource
	// Queues lists every queue depth first (parents before children,
	// children in tree order); Queues[0] is root.
	Queues []PreemptionQueue
	// Apps lists every application by submission order.
	Apps []PreemptionApp
	// Reservations lists the reserved containers by id.
	Reservations []ReservationInfo
	// Nodes lists the nodes by id.
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
	// parents).
	PendingWithinLimits, PendingWithinLimitsDeductReserved berth.Resource
}

// PreemptionApp is one application of a [PreemptionState].
type PreemptionApp struct {
	AppInfo
	// AMUsed is the resource of its live AM container (zero once the AM
	// container ended, or before it started).
	AMUsed berth.Resource
	// UserLimit is its user's limit in its queue ([Scheduler.UserLimit]).
	UserLimit berth.Resource
}

// PreemptionState copies the aggregate state a preemption round reads.
func (s *Scheduler) PreemptionState() *PreemptionState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &PreemptionState{Time: s.clock.Now(), Cluster: s.cluster}
	out.Queues = make([]PreemptionQueue, 0, len(s.byPath))
	out.Apps = make([]PreemptionApp, 0, len(s.apps))
	idx := make(map[*qnode]int, len(s.byPath))
	room := map[*user]berth.Resource{}
	for tq := range s.tree.All() {
		q := s.byTQ[tq]
		pq := PreemptionQueue{Path: q.path, Parent: -1, Leaf: q.isLeaf(),
			QueueInfo: QueueInfo{Guaranteed: q.effMin, Maximum: q.effMax, UsedCapacity: q.usedCap, AbsoluteUsedCapacity: q.absUsedCap,
				Used: q.used, Reserved: q.reserved, Pending: q.pending, Priority: tq.Payload.Priority}}
		if p, ok := idx[q.parent]; ok && q.parent != nil {
			pq.Parent = p
		}
		if lf := q.leaf; lf != nil {
			pq.AMUsed, pq.ActiveUsers = lf.amUsed, lf.activeUsers
			pq.AMLimit = s.amLimit(q)
			pq.PendingWithinLimits, pq.PendingWithinLimitsDeductReserved = s.leafPendingBoth(q, room)
			for _, a := range lf.apps {
				out.Apps = append(out.Apps, PreemptionApp{AppInfo: s.appInfo(a), AMUsed: a.amLive, UserLimit: s.userLimit(q, a.u)})
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
	out.Nodes = make([]NodeInfo, 0, len(s.nodes))
	for _, n := range s.nodes {
		ni := NodeInfo{ID: n.id, Rack: n.rack, Capability: n.total, Allocated: n.allocated}
		if n.reserved != nil {
			ni.Reserved = n.reserved.id
		}
		out.Nodes = append(out.Nodes, ni)
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
		Active: a.state == appActive, Order: a.seq, Start: a.start, Used: a.used, Reserved: a.reserved,
		Pending: a.pending, Headroom: a.headroom, AMResource: a.amRes, Containers: a.n}
}

// leafPendingBoth is PendingWithinUserLimits of leaf q without and with
// deductReserved, in one pass; room is scratch space.
func (s *Scheduler) leafPendingBoth(q *qnode, room map[*user]berth.Resource) (all, deduct berth.Resource) {
	for _, pass := range [2]bool{false, true} {
		clear(room)
		var total berth.Resource
		for _, a := range q.leaf.sched {
			left, ok := room[a.u]
			if !ok {
				left = berth.ComponentwiseMax(s.userLimit(q, a.u).Sub(a.u.used), berth.Resource{})
			}
			p := a.pending
			if pass {
				p = p.Sub(a.reserved)
			}
			p = berth.ComponentwiseMax(p, berth.Resource{})
			take := berth.ComponentwiseMin(left, p)
			total = total.Add(take)
			room[a.u] = left.Sub(take)
		}
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

// HasContainer reports whether the container is live.
func (s *Scheduler) HasContainer(id ContainerID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.live[id]
	return ok
}

// trackAM keeps the application's live AM usage as containers come and go.
func (a *app) trackAM(c *container, delta int) {
	if !c.c.AM {
		return
	}
	if delta > 0 {
		a.amLive = a.amLive.Add(c.c.Resource)
	} else {
		a.amLive = a.amLive.Sub(c.c.Resource)
	}
}
