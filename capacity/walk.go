package capacity

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// allocState is the outcome of one allocation attempt, YARN's
// AllocationState plus the assignment's skipped type.
type allocState uint8

const (
	stNone            allocState = iota // nothing; a leaf stops here (strict FIFO)
	stAllocated                         // a container
	stReserved                          // a container reservation on the node
	stPrioritySkipped                   // try the application's next priority
	stAppSkipped                        // try the next application (skipped OTHER)
	stLocalitySkipped                   // nothing for this locality level
	stQueueSkipped                      // the queue's headroom is exhausted (QUEUE_LIMIT)
)

func (st allocState) assigned() bool { return st == stAllocated || st == stReserved }

// proposal is what an attempt wants to commit.
type proposal struct {
	st    allocState
	app   *app
	key   *skey
	loc   Locality
	unres *reservation // continue-looking: give this reservation up
	from  *reservation // the node's reservation being served
	// blocked is, for a leaf skipped at its queue limit, the headroom it
	// could not use: the parent withholds it from later siblings.
	blocked berth.Resource
	// node is where a multi-node walk allocates or reserves (async.go);
	// nil: the node of the heartbeat.
	node *node
}

// limits is YARN's ResourceLimits for one call into a queue.
type limits struct {
	limit         berth.Resource
	headroom      berth.Resource
	needUnreserve berth.Resource
}

// Heartbeat processes a node update: containers the node reports finished
// are released, then containers are allocated on the node by the walk of
// reference §2.4 and returned in allocation order.
func (s *Scheduler) Heartbeat(nodeID string, completed []ContainerID) ([]Allocation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[nodeID]
	if !ok {
		return nil, notFound("node.id", nodeID)
	}
	for _, id := range completed {
		// Unknown ids are normal: the application may have released the
		// container before the node reported it.
		if c, ok := s.live.Get(id); ok && c.node == n {
			s.releaseContainer(c)
			if s.obs != nil {
				s.emitEnded(c.c, Completed)
			}
		}
	}
	n.lastBeat = s.clock.Now()
	var out []Allocation
	switch {
	case s.cfg.Async.Enabled:
		// Asynchronous scheduling: rounds allocate (async.go).
		out = s.allocBuf[:0]
	case s.cfg.MultiNode.Enabled:
		out = s.multiHeartbeat(n, s.allocBuf[:0])
	default:
		out = s.allocateOnNode(n, s.allocBuf[:0])
	}
	if len(out) == 0 {
		s.allocBuf = out
		return nil, nil
	}
	res := slices.Clone(out)
	clear(out) // hold no references to the caller's containers
	s.allocBuf = out[:0]
	return res, nil
}

// allocateOnNode is CapacityScheduler.allocateContainersToNode.
func (s *Scheduler) allocateOnNode(n *node, out []Allocation) []Allocation {
	var c assignCount
	for {
		p, stop := s.allocateOnce(n)
		if !p.st.assigned() {
			return out
		}
		if al, ok := s.commit(n, p); ok {
			out = append(out, al)
		}
		if stop || p.st == stReserved || !s.canAllocateMore(&c, p) {
			return out
		}
	}
}

// assignCount is what a heartbeat has assigned, for canAllocateMore.
type assignCount struct{ off, assigned int }

// canAllocateMore counts the assignment p and reports whether the
// heartbeat may assign again (YARN's canAllocateMore): within the
// off-switch and container limits, with multiple assignments on.
func (s *Scheduler) canAllocateMore(c *assignCount, p proposal) bool {
	if p.loc == OffSwitch {
		c.off++
	}
	c.assigned++
	return c.off < max(s.cfg.MaxOffSwitchAssignments, 1) && s.cfg.MultipleAssignments &&
		(s.cfg.MaxContainerAssignments == -1 || c.assigned < s.cfg.MaxContainerAssignments)
}

// allocateOnce is allocateContainerOnSingleNode for the default partition.
// stop is true when the node's reservation was handled: YARN then ends the
// heartbeat.
func (s *Scheduler) allocateOnce(n *node) (proposal, bool) {
	if r := n.reserved; r != nil {
		return s.serveReservation(r), true
	}
	if s.available(n.total.Sub(n.allocated), s.cfg.MinAllocation) <= 0 {
		return proposal{}, true
	}
	if n.part != 0 {
		return s.assignLabelled(n, n.part), false
	}
	return s.assignParent(s.root, n, s.cluster), false
}

// serveReservation tries to turn the node's reserved container into an
// allocation, re-reserves it, or drops it when the application no longer
// needs it. Queue and user limits are not checked: the reservation already
// counts as used.
func (s *Scheduler) serveReservation(r *reservation) proposal {
	a, k := r.app, r.key
	// An ask whose capability changed since the reservation is dropped
	// too: YARN would allocate the new size out of the old reservation
	// without checking the queue limits, and over-book the queues.
	if k.Outstanding() <= 0 || !k.Capability().Equal(r.res) {
		s.unreserve(r)
		return proposal{}
	}
	lim := limits{limit: s.cluster, headroom: s.cluster}
	// YARN enters the leaf with the whole cluster as its limit, which
	// also becomes the leaf's headroom limit.
	a.q.leaf.cachedLimit = berth.Min(s.rc, s.cluster, a.q.effMaxDown, s.cluster)
	k.Payload.missed++
	p := s.assignOnNode(a, k, r.node, &lim, r)
	p.from = r
	return p
}

// canAssignToQueue is YARN's canAssignToThisQueue for the default
// partition; it sets the headroom in lim.
func (s *Scheduler) canAssignToQueue(q *qnode, lim *limits, couldUnreserve berth.Resource) bool {
	qp := q.on(s.wp)
	var limit berth.Resource
	if s.wIgnore {
		// Borrowing a non-exclusive partition, every queue's maximum
		// there is the whole partition (YARN's getCurrentLimitResource).
		limit = s.wcl
	} else {
		limit = s.rmin(qp.effMaxDown, lim.limit)
	}
	lim.headroom = limit.Sub(qp.used)
	if s.cmp(&qp.used, &limit) >= 0 {
		// YARN 3.x sets no amount to unreserve here: the negative headroom
		// makes assignContainer ask for one.
		rc, cl := s.rc, s.wcl
		if s.cfg.ContinueLooking && berth.GreaterThan(rc, cl, couldUnreserve, berth.Resource{}) &&
			berth.LessThan(rc, cl, qp.used.Sub(couldUnreserve), limit) {
			return true
		}
		return false
	}
	return true
}

// assignParent is ParentQueue.assignContainers: visit children in order,
// the first that assigns wins.
func (s *Scheduler) assignParent(q *qnode, n *node, limit berth.Resource) proposal {
	if s.walkSkips(q) {
		return proposal{}
	}
	lim := limits{limit: limit}
	if !s.canAssignToQueue(q, &lim, q.reserved) {
		return proposal{}
	}
	net := limit // YARN's net limit: the limit less the headroom of queue-limited children
	// A child held at its queue limit blocks its headroom (a leaf) or the
	// headroom its own children blocked (a parent); this parent then
	// reports QUEUE_LIMIT with the sum, for its own parent to withhold.
	var blocked berth.Resource
	limited := false
	var won proposal
	visit := func(c *qnode) bool {
		if s.walkSkips(c) {
			return true // idle: kept orders hold no such child (rekeyChild)
		}
		cl := s.childLimit(q, c, net)
		var p proposal
		if c.leaf != nil {
			p = s.assignLeaf(c, n, cl)
		} else {
			p = s.assignParent(c, n, cl)
		}
		if p.st.assigned() {
			won = p
			return false
		}
		if p.st == stQueueSkipped {
			b := berth.Max(s.rc, s.wcl, p.blocked, berth.Resource{})
			net = net.Sub(b)
			blocked = blocked.Add(b)
			limited = true
		}
		return true
	}
	if s.wp != 0 {
		s.wdepth++
		for _, c := range s.labelledKids(q) {
			if !visit(c) {
				break
			}
		}
		s.wdepth--
	} else if s.sortWalk || !q.keyed || q.kidsBad > 0 {
		sortChildren(q, !s.sortWalk)
		if s.checkOrder {
			s.checkSorted(q)
		}
		for _, c := range q.order {
			if !visit(c) {
				break
			}
		}
	} else {
		if s.checkOrder {
			s.checkKids(q)
		}
		q.kids.Ascend(visit)
	}
	if won.st.assigned() {
		return won
	}
	if limited {
		return proposal{st: stQueueSkipped, blocked: blocked}
	}
	return proposal{}
}

// assignLeaf is LeafQueue.assignContainers.
func (s *Scheduler) assignLeaf(q *qnode, n *node, limit berth.Resource) proposal {
	lf, rc, cl := q.leaf, s.rc, s.wcl
	// The walk refreshes the headroom limit only; the AM limit keeps the
	// limit of the last cluster-resource update, as YARN's does. A
	// labelled partition's walk leaves the default partition's alone.
	if s.wp == 0 {
		lf.cachedLimit = s.rmin(q.effMaxDown, limit)
	}
	lim := limits{limit: limit}
	// As YARN: the queue check runs for the first application and keeps
	// running while the applications checked hold reservations that
	// continue-looking could give up.
	check := true
	var out proposal
	lf.sched.Ascend(func(a *app) bool {
		if check {
			if !s.canAssignToQueue(q, &lim, a.reserved) {
				out = proposal{st: stQueueSkipped, blocked: lim.headroom}
				return false
			}
			check = s.cfg.ContinueLooking && !a.reserved.IsZero()
		}
		u := a.u
		var ul berth.Resource
		uused := &u.used
		if s.wp == 0 {
			ul = s.userLimit(q, u)
		} else {
			ul, uused = s.userLimitOn(q, u, s.wp, s.wIgnore), &u.lp[s.wp-1].used
		}
		// What must be unreserved is per application (canAssignToUser);
		// YARN compares the user's usage on the partition with the limit,
		// then its default partition's usage less all its reservations.
		lim.needUnreserve = berth.Resource{}
		if s.cmp(uused, &ul) > 0 {
			if !(s.cfg.ContinueLooking && berth.LessOrEqual(rc, cl, u.used.Sub(a.reserved), ul)) {
				s.visitHeadroom(a, q, u, ul)
				return true
			}
			lim.needUnreserve = u.used.Sub(ul)
		}
		if s.eagerHeadroom {
			a.headroom = s.headroom(q, u, ul)
		}
		p := s.assignApp(a, n, &lim)
		// The headroom of the visit (YARN's computeUserLimitAndSetHeadroom)
		// is what a stays told unless it gets a container: commit then
		// replaces it with the headroom after the allocation, so it is only
		// computed otherwise. assignApp changes none of its inputs.
		if p.st != stAllocated {
			s.visitHeadroom(a, q, u, ul)
		}
		switch p.st {
		case stAllocated, stReserved:
			out = p
			return false
		case stQueueSkipped:
			p.blocked = lim.headroom
			out = p
			return false
		case stAppSkipped:
			return true
		}
		return false
	})
	return out
}

// assignApp is RegularContainerAllocator.allocate over the application's
// priorities, most important first.
func (s *Scheduler) assignApp(a *app, n *node, lim *limits) proposal {
	if n == nil {
		return s.assignAppMulti(a, lim)
	}
	for _, k := range a.asks.Keys() {
		switch st := s.askCheck(a, k, lim); st {
		case stNone:
		case stPrioritySkipped:
			continue
		default:
			return proposal{st: st, app: a}
		}
		k.Payload.missed++
		if s.missedBorrow(k) {
			return proposal{st: stAppSkipped, app: a}
		}
		p := s.assignOnNode(a, k, n, lim, nil)
		if p.st == stPrioritySkipped {
			k.Payload.missed--
			continue
		}
		return p
	}
	return proposal{st: stAppSkipped, app: a}
}

// assignOnNode tries node-local, then rack-local, then off-switch.
func (s *Scheduler) assignOnNode(a *app, k *skey, n *node, lim *limits, from *reservation) proposal {
	if c, _ := k.HostAsk(n.id); c > 0 {
		p := s.assignAt(a, k, n, lim, from, NodeLocal)
		if p.st.assigned() {
			return p
		}
	}
	if c, relax := k.RackAsk(n.rack); c > 0 {
		if !relax {
			return proposal{st: stPrioritySkipped}
		}
		p := s.assignAt(a, k, n, lim, from, RackLocal)
		if p.st.assigned() {
			return p
		}
	}
	if c, relax := k.AnyAsk(); c > 0 {
		if !relax {
			return proposal{st: stPrioritySkipped}
		}
		p := s.assignAt(a, k, n, lim, from, OffSwitch)
		if p.st == stLocalitySkipped {
			p.st = stAppSkipped
		}
		return p
	}
	return proposal{st: stPrioritySkipped}
}

// assignAt is assign{NodeLocal,RackLocal,OffSwitch}Containers: the delay
// scheduling test, then assignContainer.
func (s *Scheduler) assignAt(a *app, k *skey, n *node, lim *limits, from *reservation, loc Locality) proposal {
	if !s.canAssign(k, n, loc, from) {
		if loc == OffSwitch {
			return proposal{st: stAppSkipped}
		}
		return proposal{st: stLocalitySkipped}
	}
	return s.assignContainer(a, k, n, lim, from, loc)
}

// canAssign is delay scheduling: how many scheduling opportunities the key
// must miss before accepting a worse locality.
func (s *Scheduler) canAssign(k *skey, n *node, loc Locality, from *reservation) bool {
	nn := int64(len(s.nodes))
	if loc == OffSwitch {
		if from != nil {
			return true
		}
		if nn == 0 {
			return false
		}
		uniq := k.UniqueLocationAsks()
		if uniq == 1 {
			return true
		}
		if s.cfg.RackLocalityAdditionalDelay > -1 {
			return k.Payload.missed > min(nn, int64(s.cfg.NodeLocalityDelay+s.cfg.RackLocalityAdditionalDelay))
		}
		wait := min(float32(max(uniq-1, 0))/float32(nn), 1)
		return min(float32(nn), float32(k.Outstanding())*wait) < float32(k.Payload.missed)
	}
	if c, _ := k.RackAsk(n.rack); c <= 0 {
		return false
	}
	if loc == RackLocal {
		return min(nn, int64(s.cfg.NodeLocalityDelay)) < k.Payload.missed
	}
	c, _ := k.HostAsk(n.id)
	return c > 0
}

// shouldAllocOrReserve is YARN's shouldAllocOrReserveNewContainer: stop
// reserving more nodes than the key still needs, with a starvation bonus
// for keys that keep re-reserving.
func (s *Scheduler) shouldAllocOrReserve(a *app, k *skey) bool {
	starvation := 0
	ks := &k.Payload
	if ks.nRes > 0 {
		maxA, minA := a.q.maxAlloc, s.cfg.MinAllocation
		nodeFactor := s.rc.Ratio(k.Capability(), maxA)
		minFactor := s.rc.Ratio(maxA.Sub(minA), maxA)
		starvation = int(float32(ks.reRes) / float32(ks.nRes) * (1 - min(nodeFactor, minFactor)))
	}
	return starvation+k.Outstanding()-ks.nRes > 0
}

// assignContainer decides between allocating, reserving and skipping.
func (s *Scheduler) assignContainer(a *app, k *skey, n *node, lim *limits, from *reservation, loc Locality) proposal {
	capR := k.Capability()
	if s.cmp(&capR, &n.total) > 0 {
		return proposal{st: stLocalitySkipped}
	}
	shouldNew := s.shouldAllocOrReserve(a, k)
	avail := s.available(n.total.Sub(n.allocated), capR)
	needRes := s.rmax(capR.Sub(lim.headroom), lim.needUnreserve)
	need := s.cmp(&needRes, &berth.Resource{}) > 0
	if avail > 0 {
		var unres *reservation
		if from == nil && s.cfg.ContinueLooking && (!shouldNew || need) {
			amount := capR
			if need {
				amount = needRes
			}
			unres = s.findToUnreserve(a, k, amount)
			if unres == nil {
				return proposal{st: stLocalitySkipped}
			}
		}
		return proposal{st: stAllocated, app: a, key: k, loc: loc, unres: unres}
	}
	if shouldNew || from != nil {
		if s.cfg.ContinueLooking && from == nil && need {
			return proposal{st: stLocalitySkipped}
		}
		return proposal{st: stReserved, app: a, key: k, loc: loc}
	}
	return proposal{st: stLocalitySkipped}
}

// findToUnreserve picks the application's oldest reservation for key k
// that is at least amount.
func (s *Scheduler) findToUnreserve(a *app, k *skey, amount berth.Resource) *reservation {
	for _, r := range a.resv {
		if r.key == k && s.rc.FitsIn(amount, r.res) {
			return r
		}
	}
	return nil
}

func (s *Scheduler) newID() ContainerID {
	s.nextID++
	return s.nextID
}

// commit applies a proposal: a reservation, or an allocation (possibly out
// of a reservation, possibly giving another one up).
func (s *Scheduler) commit(n *node, p proposal) (Allocation, bool) {
	a, k := p.app, p.key
	q, u := a.q, a.u
	// A first node- or rack-local assignment, allocation or reservation
	// alike, restarts the key's locality delay (YARN's doAllocation).
	if p.from == nil && p.loc != OffSwitch && (p.loc == NodeLocal || s.cfg.RackLocalityFullReset) {
		k.Payload.missed = 0
	}
	if p.node != nil {
		n = p.node
		if p.from == nil && n.reserved != nil {
			// Multi-node placement: the node is another application's
			// reservation; YARN's committer refuses the proposal.
			return Allocation{}, false
		}
	}
	if p.unres != nil {
		s.unreserve(p.unres)
	}
	if p.st == stReserved {
		if p.from != nil {
			k.Payload.reRes++
			return Allocation{}, false
		}
		r := &reservation{id: s.newID(), node: n, app: a, key: k, res: k.Capability(), loc: p.loc, time: s.clock.Now()}
		n.reserved = r
		s.resvByID[r.id] = r
		a.resv = append(a.resv, r)
		k.Payload.nRes++
		k.Payload.reRes = 0 // YARN resets it on a new reservation
		a.reserved = a.reserved.Add(r.res)
		if n.part != 0 {
			a.lp[n.part-1].reserved = a.lp[n.part-1].reserved.Add(r.res)
		}
		s.chargeOn(n.part, q, u, r.res, true)
		return Allocation{}, false
	}
	if p.from != nil {
		s.unreserve(p.from)
	}
	capR := k.Capability()
	c := &container{node: n, app: a}
	c.c = Container{ID: s.newID(), App: a.id, Node: n.id, Queue: q.path, User: u.name, Resource: capR,
		Priority: k.Priority(), Locality: p.loc, AM: a.waitingAM, Time: s.clock.Now()}
	a.waitingAM = false
	s.live.Put(c.c.ID, c)
	n.link(c)
	a.link(c)
	n.allocated = n.allocated.Add(capR)
	k.Allocate(p.loc, n.id, n.rack) // the walk only proposes keys with outstanding asks
	if n.part != 0 || k.Payload.part != 0 {
		s.commitLabelled(c, k)
		return Allocation{Container: c.c, Headroom: a.headroom}, true
	}
	k.Payload.missedNP = 0 // an allocation on the default partition (YARN's doAllocation)
	// setPending below re-keys a in its leaf's order from both its usage
	// and its demand: one re-key instead of appUsage's and setPending's.
	a.used = a.used.Add(capR)
	// The two charges to the tree's accounting are summed there until it
	// is read (deferAccount).
	s.chargeMirror(q, u, capR, false)
	s.setPending(a, a.pending.Sub(capR))
	s.accountUser(q, u, queue.Delta{Used: capR})
	if a.lp != nil {
		a.headroom = s.appHeadroom(a)
	} else {
		a.headroom = s.headroom(q, u, s.userLimit(q, u))
	}
	if s.obs != nil {
		s.obs.ObserveContainer(queue.ContainerEvent{Kind: queue.ContainerAllocated, Container: c.c, Time: c.c.Time})
	}
	return Allocation{Container: c.c, Headroom: a.headroom}, true
}
