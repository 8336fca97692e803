package capacity

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The heartbeat's walk, in the phases both schedulers share: visit (this
// file: the tree from the root, each parent's children in order, each
// leaf's applications in order), attempt (attempt.go: one offer of the
// node to one application, which decides and proposes), commit
// (commit.go: the only step that allocates, reserves or unreserves).
//
// An attempt changes nothing but the delay-scheduling counters YARN keeps
// per scheduling opportunity. Every skip has a queue.Reason, computed to
// decide anyway and recorded only when the heartbeat is (explain.go).

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

// proposal is what an attempt wants to commit, or why it has nothing.
type proposal struct {
	st    allocState
	why   queue.Reason // why a skip skipped (ReasonNone for an assignment)
	app   *app
	key   *skey
	loc   Locality
	unres *reservation // continue-looking: give this reservation up
	from  *reservation // the node's reservation being served
	// blocked is, for a leaf skipped at its queue limit, the headroom it
	// could not use: the parent withholds it from later siblings.
	blocked berth.Resource
	// node is where a multi-node walk allocates or reserves (async.go);
	// nil: the attempt's node.
	node *node
}

// skipped is a proposal of nothing, for reason why.
func skipped(st allocState, why queue.Reason) proposal { return proposal{st: st, why: why} }

// limits is YARN's ResourceLimits for one call into a queue.
type limits struct {
	limit         berth.Resource
	headroom      berth.Resource
	needUnreserve berth.Resource
}

// attempt is one heartbeat's offer of a node to the walk (YARN's
// scheduling opportunity): what every step of the walk shares.
type attempt struct {
	s    *Scheduler
	n    *node
	from *reservation // the node's reservation being served, or nil
	// The partition walked (walk_labels.go): part is the node's (0 the
	// default); ask is the partition of the asks served, part unless the
	// walk borrows the non-exclusive partition for the default's asks
	// (borrow); depth is the visit's depth in the tree.
	part, ask, depth int
	borrow           bool
	// rec is the scheduler's activity log when this heartbeat is
	// recorded, nil otherwise: the walk's only cost when nothing is.
	rec *queue.ActivityLog
	// home is the partition of the heartbeat's node or of the multi-node
	// walk's candidates, for the activity log.
	home int
}

// Heartbeat processes a node update: containers the node reports finished
// are released, then containers are allocated on the node by YARN's walk
// (CapacityScheduler.allocateContainersToNode) and returned in allocation
// order.
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

// allocateOnNode is CapacityScheduler.allocateContainersToNode: walks
// from the root while the assignment limits allow another container.
func (s *Scheduler) allocateOnNode(n *node, out []Allocation) []Allocation {
	t := s.begin(n)
	out = t.allocate(out)
	t.end()
	return out
}

// begin starts the attempts of a heartbeat (or a scheduling round) on
// node n, recorded when the activity log asks for it; end ends them.
func (s *Scheduler) begin(n *node) attempt {
	t := attempt{s: s, n: n, home: n.part}
	if s.acts.BeginOn(n.id, s.parts[n.part].name, s.clock.Now()) {
		t.rec = &s.acts
	}
	return t
}

// record records an activity of the attempt's node: the heartbeat's, or
// the candidate a multi-node walk allocates or reserves on (none while
// it walks the candidates).
func (t *attempt) record(a queue.Activity) {
	if t.n != nil {
		a.Node = t.n.id
	}
	t.rec.Record(a)
}

func (t *attempt) end() {
	if t.rec != nil {
		t.rec.End(t.waiting)
	}
}

func (t *attempt) allocate(out []Allocation) []Allocation {
	s := t.s
	var c assignCount
	for {
		p, stop := t.once()
		if !p.st.assigned() {
			return out
		}
		if al, ok := s.commit(t, p); ok {
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

// once is allocateContainerOnSingleNode for the default partition. stop
// is true when the node's reservation was handled: YARN then ends the
// heartbeat.
func (t *attempt) once() (proposal, bool) {
	s, n := t.s, t.n
	if r := n.reserved; r != nil {
		t.from = r
		p := t.serveReservation(r)
		if t.rec != nil {
			t.rec.Skip(s.root.path, queue.ReasonNodeReserved)
		}
		return p, true
	}
	t.from = nil
	if s.available(n.total.Sub(n.allocated), s.cfg.MinAllocation) <= 0 {
		if t.rec != nil {
			t.rec.Skip(s.root.path, queue.ReasonNodeFull)
		}
		return proposal{}, true
	}
	if n.part != 0 {
		return t.labelled(n.part), false
	}
	return t.parent(s.root, s.cluster), false
}

// serveReservation tries to turn the node's reserved container into an
// allocation, re-reserves it, or drops it when the application no longer
// needs it. Queue and user limits are not checked: the reservation already
// counts as used.
func (t *attempt) serveReservation(r *reservation) proposal {
	s, a, k := t.s, r.app, r.key
	// An ask whose capability changed since the reservation is dropped
	// too: YARN would allocate the new size out of the old reservation
	// without checking the queue limits, and over-book the queues.
	if k.Outstanding() <= 0 || !k.Capability().Equal(r.res) {
		if t.rec != nil {
			t.record(queue.Activity{App: a.id, Queue: a.q.path, Result: queue.Result{Outcome: queue.Unreserved, Reason: queue.ReasonNoDemand},
				Priority: k.Priority(), Resource: r.res, Locality: r.loc, Container: r.id})
		}
		s.unreserve(r)
		return proposal{}
	}
	lim := limits{limit: s.cluster, headroom: s.cluster}
	// YARN enters the leaf with the whole cluster as its limit, which
	// also becomes the leaf's headroom limit.
	a.q.leaf.cachedLimit = berth.Min(s.calculator, s.cluster, a.q.effMaxDown, s.cluster)
	k.Payload.missed++
	p := t.request(a, k, &lim)
	p.from = r
	if !p.st.assigned() && t.rec != nil {
		t.record(queue.Activity{App: a.id, Queue: a.q.path, Result: queue.Result{Outcome: queue.Skipped, Reason: p.why},
			Priority: k.Priority(), Resource: r.res})
	}
	return p
}

// canAssignToQueue is YARN's canAssignToThisQueue on the walk's
// partition; it sets the headroom in lim.
func (t *attempt) canAssignToQueue(q *qnode, lim *limits, couldUnreserve berth.Resource) bool {
	s := t.s
	qp := q.on(t.part)
	var limit berth.Resource
	if t.borrow {
		// Borrowing a non-exclusive partition, every queue's maximum
		// there is the whole partition (YARN's getCurrentLimitResource).
		limit = s.walkCluster
	} else {
		limit = s.rmin(qp.effMaxDown, lim.limit)
	}
	lim.headroom = limit.Sub(qp.used)
	if s.cmp(&qp.used, &limit) >= 0 {
		// YARN 3.x sets no amount to unreserve here: the negative headroom
		// makes assignContainer ask for one.
		calc, cluster := s.calculator, s.walkCluster
		if s.cfg.ContinueLooking && berth.GreaterThan(calc, cluster, couldUnreserve, berth.Resource{}) &&
			berth.LessThan(calc, cluster, qp.used.Sub(couldUnreserve), limit) {
			return true
		}
		return false
	}
	return true
}

// parent is ParentQueue.assignContainers: visit children in order, the
// first that assigns wins.
func (t *attempt) parent(q *qnode, limit berth.Resource) proposal {
	s := t.s
	if t.passes(q) {
		return proposal{}
	}
	lim := limits{limit: limit}
	if !t.canAssignToQueue(q, &lim, q.reserved) {
		if t.rec != nil {
			t.rec.Skip(q.path, queue.ReasonQueueLimit)
		}
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
		if t.passes(c) {
			return true // idle: kept orders hold no such child (rekeyChild)
		}
		childLimit := s.childLimit(q, c, net, t.part)
		var p proposal
		if c.leaf != nil {
			p = t.leaf(c, childLimit)
		} else {
			p = t.parent(c, childLimit)
		}
		if p.st.assigned() {
			won = p
			return false
		}
		if p.st == stQueueSkipped {
			b := berth.Max(s.calculator, s.walkCluster, p.blocked, berth.Resource{})
			net = net.Sub(b)
			blocked = blocked.Add(b)
			limited = true
		}
		return true
	}
	if t.part != 0 {
		t.depth++
		for _, c := range t.labelledKids(q) {
			if !visit(c) {
				break
			}
		}
		t.depth--
	} else {
		s.visitChildren(q, visit)
	}
	if won.st.assigned() {
		return won
	}
	if limited {
		return proposal{st: stQueueSkipped, blocked: blocked}
	}
	return proposal{}
}

// visitChildren calls visit on q's children in the child ordering
// policy's order until it returns false: the kept order when it holds,
// else a sort.
func (s *Scheduler) visitChildren(q *qnode, visit func(*qnode) bool) {
	if s.sortWalk || !q.keyed || q.kidsBad > 0 {
		sortChildren(q, !s.sortWalk)
		if s.checkOrder {
			s.checkSorted(q)
		}
		for _, c := range q.order {
			if !visit(c) {
				return
			}
		}
		return
	}
	if s.checkOrder {
		s.checkKids(q)
	}
	q.kids.Ascend(visit)
}

// leaf is LeafQueue.assignContainers: the applications in the ordering
// policy's order, the first that assigns wins.
func (t *attempt) leaf(q *qnode, limit berth.Resource) proposal {
	s := t.s
	lf := q.leaf
	// The walk refreshes the headroom limit only; the AM limit keeps the
	// limit of the last cluster-resource update, as YARN's does. A
	// labelled partition's walk leaves the default partition's alone.
	if t.part == 0 {
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
			if !t.canAssignToQueue(q, &lim, a.reserved) {
				out = proposal{st: stQueueSkipped, blocked: lim.headroom}
				if t.rec != nil {
					t.rec.Skip(q.path, queue.ReasonQueueLimit)
				}
				return false
			}
			check = s.cfg.ContinueLooking && !a.reserved.IsZero()
		}
		var next bool
		if t.borrow && t.rec != nil && a.pendingOn(0).IsZero() {
			// The walk borrowing a partition speaks only of the default
			// partition's demand: the partition's own walk spoke of a's.
			rec := t.rec
			t.rec = nil
			out, next = t.userApp(q, a, &lim)
			t.rec = rec
			return next
		}
		out, next = t.userApp(q, a, &lim)
		return next
	})
	if t.rec != nil && len(lf.pendingAct) > 0 {
		// The next application to start waits for the AM limits (activate).
		a := lf.pendingAct[0]
		t.record(queue.Activity{App: a.id, Queue: q.path, Result: queue.Result{Reason: queue.ReasonAMLimit}, Resource: a.amRes})
	}
	return out
}

// userApp offers the node to a within its user's limit and keeps a's
// headroom; next is true when the leaf goes on to its next application.
func (t *attempt) userApp(q *qnode, a *app, lim *limits) (p proposal, next bool) {
	s := t.s
	calc, cluster := s.calculator, s.walkCluster
	u := a.u
	var ul berth.Resource
	uused := &u.used
	if t.part == 0 {
		ul = s.userLimit(q, u)
	} else {
		ul, uused = s.userLimitOn(q, u, t.part, t.borrow), &u.lp[t.part-1].used
	}
	// What must be unreserved is per application (canAssignToUser);
	// YARN compares the user's usage on the partition with the limit,
	// then its default partition's usage less all its reservations.
	lim.needUnreserve = berth.Resource{}
	if s.cmp(uused, &ul) > 0 {
		if !(s.cfg.ContinueLooking && berth.LessOrEqual(calc, cluster, u.used.Sub(a.reserved), ul)) {
			t.visitHeadroom(a, q, u, ul)
			if t.rec != nil {
				t.skippedApp(a, skipped(stAppSkipped, queue.ReasonUserLimit))
			}
			return proposal{}, true
		}
		lim.needUnreserve = u.used.Sub(ul)
	}
	if s.eagerHeadroom {
		a.headroom = s.headroom(q, u, ul)
	}
	p = t.app(a, lim)
	// The headroom of the visit (YARN's computeUserLimitAndSetHeadroom)
	// is what a stays told unless it gets a container: commit then
	// replaces it with the headroom after the allocation, so it is only
	// computed otherwise. app changes none of its inputs.
	if p.st != stAllocated {
		t.visitHeadroom(a, q, u, ul)
	}
	switch p.st {
	case stAllocated, stReserved:
		return p, false
	case stQueueSkipped:
		if t.rec != nil {
			t.skippedApp(a, p)
			t.rec.Skip(q.path, queue.ReasonQueueHeadroom)
		}
		p.blocked = lim.headroom
		return p, false
	case stAppSkipped:
		if t.rec != nil {
			t.skippedApp(a, p)
		}
		return proposal{}, true
	}
	return proposal{}, false
}

// waiting tells the activity log an application's leaf and whether it
// waited for the attempt's node (or candidates): not if it is not active
// or has no outstanding asks (ReasonNone); ReasonPartition if its asks
// are all for other partitions than the node's, and the node does not
// lend itself to the default partition's asks; else ReasonOrder, as a
// walk could offer it the node.
func (t *attempt) waiting(id string) (string, queue.Reason) {
	a := t.s.apps[id]
	if a == nil || !a.inSched || !a.hasPending() {
		return "", queue.ReasonNone
	}
	p := t.home
	if !a.pendingOn(p).IsZero() || p != 0 && t.s.parts[p].nonExclusive && !a.pendingOn(0).IsZero() {
		return a.q.path, queue.ReasonOrder
	}
	return a.q.path, queue.ReasonPartition
}
