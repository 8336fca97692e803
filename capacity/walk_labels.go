package capacity

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The walk on a labelled node (YARN's allocateOrReserveNewContainers for a
// node with a partition): first the partition's own asks, by the queues
// that may access it, within their maximums there
// (RESPECT_PARTITION_EXCLUSIVITY); when that gives nothing and the
// partition is non-exclusive, the default partition's asks of any queue,
// within the partition's size alone (IGNORE_PARTITION_EXCLUSIVITY). The
// phases of walk.go and attempt.go serve both, reading the queues' state
// on the attempt's partition (part) and serving the asks of its ask
// partition; comparisons are made against the partition's size (s.walkCluster).

// labelled runs the two walks of a labelled node; with no node (t.n
// nil), of the multi-node walk's candidates, all on partition part
// (async.go).
func (t *attempt) labelled(part int) proposal {
	s := t.s
	pt := &s.parts[part]
	t.part, t.ask, s.walkCluster = part, part, pt.total
	p := t.parent(s.root, pt.total)
	if !p.st.assigned() && pt.nonExclusive {
		// The limit handed to the root is the default partition's size, as
		// YARN's; the queues' own limits are the partition's size.
		t.borrow, t.ask = true, 0
		p = t.parent(s.root, s.cluster)
	}
	t.part, t.ask, t.borrow, s.walkCluster = 0, 0, false, s.cluster
	return p
}

// askCheck is the test of a's ask k before a walk tries it (YARN's
// preCheckForNodeCandidateSet and allocate's queue-limit check): stNone
// to try it, stPrioritySkipped for the next ask (none outstanding,
// another partition's, or not worth a new container), or the state that
// ends a's visit: stAppSkipped for an AM borrowing a partition (YARN: a
// preempted AM is too painful), stQueueSkipped when the headroom cannot
// hold the container. why is the reason of a skip (ReasonNone for an ask
// with nothing outstanding).
func (t *attempt) askCheck(a *app, k *skey, lim *limits) (st allocState, why queue.Reason) {
	s := t.s
	switch {
	case k.Outstanding() <= 0:
		return stPrioritySkipped, queue.ReasonNone
	case t.borrow && a.waitingAM:
		return stAppSkipped, queue.ReasonPartition
	case k.Payload.part != t.ask:
		return stPrioritySkipped, queue.ReasonPartition
	case !s.cfg.ContinueLooking && !s.shouldAllocOrReserve(a, k):
		return stPrioritySkipped, queue.ReasonReservation
	}
	room := lim.headroom
	if s.cfg.ContinueLooking {
		room = room.Add(a.reservedOn(t.part))
	}
	if capR := k.Capability(); s.cmp(&room, &capR) < 0 {
		return stQueueSkipped, queue.ReasonQueueHeadroom
	}
	return stNone, queue.ReasonNone
}

// missedBorrow counts a missed opportunity of a default-partition ask and
// reports whether a borrowing walk must still skip it, so that unlabelled
// asks prefer unlabelled nodes: they borrow a labelled one only after
// missing as many opportunities as there are nodes (the count is reset by
// an allocation on the default partition, commit).
func (t *attempt) missedBorrow(k *skey) bool {
	if k.Payload.part != 0 {
		return false
	}
	k.Payload.missedNP++
	return t.borrow && k.Payload.missedNP < int64(len(t.s.nodes))
}

// passes reports whether the walk passes q by: nothing pending that the
// walk serves, or (serving a partition's own asks) a queue that cannot
// access the partition. A recorded walk of a partition's own asks says so
// for a queue with demand it does not serve (partitionSkip).
func (t *attempt) passes(q *qnode) bool {
	if t.part == 0 || t.borrow {
		return q.pending.IsZero() // the default walk's test
	}
	lp := &q.lp[t.part-1]
	if !lp.access || lp.pending.IsZero() {
		if t.rec != nil {
			t.partitionSkip(q)
		}
		return true
	}
	return false
}

// partitionSkip records, for a queue a partition's own walk passes by,
// that it waits for another partition: it has demand there that the walk
// does not serve (asks labelled with another partition, or the default
// partition's asks on an exclusive partition's node). A non-exclusive
// partition's walk says nothing of the default partition's demand: the
// walk that borrows the partition follows, or the partition's own queues
// took the node. The default partition's walks record no queue skip for
// partitions: their kept orders do not hold queues without the default
// partition's demand, so the applications say it (attempt.waiting).
func (t *attempt) partitionSkip(q *qnode) {
	waits := !q.pending.IsZero() && !t.s.parts[t.part].nonExclusive
	for i := range q.lp {
		if i+1 != t.part && !q.lp[i].pending.IsZero() {
			waits = true
		}
	}
	if waits {
		t.rec.Skip(q.path, queue.ReasonPartition)
	}
}

// labelledKids lists q's children the walk visits in their order on the
// walk's partition (YARN sorts a copy of every child list per visit,
// stably). The list lives in a per-depth buffer until the walk at that
// depth moves on.
func (t *attempt) labelledKids(q *qnode) []*qnode {
	s := t.s
	for len(s.kidBufs) < t.depth {
		s.kidBufs = append(s.kidBufs, nil)
	}
	buf := s.kidBufs[t.depth-1][:0]
	for _, c := range q.children {
		if !t.passes(c) {
			buf = append(buf, c)
		}
	}
	prio := false
	if b, ok := childOrdering(q.set()).(builtinKids); ok {
		prio = b.prio
	} else {
		prio = q.set().ChildOrdering == OrderPriorityUtilization
	}
	p := t.part
	slices.SortStableFunc(buf, func(a, b *qnode) int { return cmpChildrenOn(a, b, p, prio) })
	s.kidBufs[t.depth-1] = buf
	return buf
}

// cmpChildrenOn is YARN's PriorityUtilizationQueueOrderingPolicy
// comparator on labelled partition p: the queues that may access the
// partition first, then cmpChildren's rules on the partition's
// capacities and usage, position last.
func cmpChildrenOn(a, b *qnode, p int, respectPriority bool) int {
	la, lb := &a.lp[p-1], &b.lp[p-1]
	if la.access != lb.access {
		if la.access {
			return -1
		}
		return 1
	}
	return cmpOnPart(a, b, &la.qpart, &lb.qpart, respectPriority)
}

// userLimitOn is userLimit on labelled partition p, computed afresh (the
// default partition's is cached): YARN's UsersManager.computeUserLimit
// with the partition's resource, the queue's guarantee there and the
// users' usage there. Borrowing the partition (ignore), a user is capped
// by the partition's size rather than by the queue's guarantee times the
// user-limit-factor: the queue has no guarantee there.
func (s *Scheduler) userLimitOn(q *qnode, u *user, p int, ignore bool) berth.Resource {
	lf, lp, minA := q.leaf, &q.lp[p-1], s.cfg.MinAllocation
	calc, total := s.calculator, s.parts[p].total
	queueCap := berth.Max(calc, total, lp.effMin, minA)
	consumed := calc.MultiplyAndNormalizeUp(total, float64(lp.usageRatio), minA)
	current := queueCap
	if calc.Compare(total, consumed, queueCap) >= 0 {
		current = consumed.Add(minA)
	}
	activeTerm := s.divCeilF(lp.activeUsed.Add(minA), lf.activeWeights)
	pctTerm := calc.DivideAndCeil(current.Mul(lf.ulPct), 100)
	ul := berth.Max(calc, total, activeTerm, pctTerm)
	maxUL := queueCap.Mul(lf.ulf)
	if ignore {
		maxUL = total
	}
	ul = calc.RoundUp(berth.Min(calc, total, ul, maxUL), minA)
	return calc.MultiplyAndNormalizeDown(ul, u.weight, minA)
}

// headroomOn is the headroom of user u of leaf q on labelled partition p
// (YARN's getHeadroom for the partition): the smaller of the user's and
// the queue's room there, the queue's limit being its maximum on it,
// within the partition's free room.
func (s *Scheduler) headroomOn(q *qnode, u *user, ul berth.Resource, p int) berth.Resource {
	lp, total := &q.lp[p-1], s.parts[p].total
	h := berth.ComponentwiseMin(ul.SubNonNegative(u.lp[p-1].used), lp.effMax.SubNonNegative(lp.used))
	h = s.calculator.RoundDown(h, s.cfg.MinAllocation)
	return berth.Min(s.calculator, total, total.SubNonNegative(s.root.lp[p-1].used), h)
}

// appHeadroom is the headroom a is told when the cluster has labels:
// YARN's CapacityHeadroomProvider sums the headrooms of the partitions
// the application asks for (the default one when it asks for none).
func (s *Scheduler) appHeadroom(a *app) berth.Resource {
	q, u := a.q, a.u
	var h berth.Resource
	asked := false
	for i := range a.lp {
		if !a.lp[i].pending.IsZero() {
			asked = true
			h = h.Add(s.headroomOn(q, u, s.userLimitOn(q, u, i+1, false), i+1))
		}
	}
	if !asked || !a.pendingOn(0).IsZero() {
		h = h.Add(s.headroom(q, u, s.userLimit(q, u)))
	}
	return h
}

// visitHeadroom sets the headroom a is told after a walk visited it
// without giving it a container (ul: its user's limit on the walk's
// partition). A labelled partition's walk leaves it as it was: it is
// recomputed from every partition the application asks for when it next
// gets a container or asks.
func (t *attempt) visitHeadroom(a *app, q *qnode, u *user, ul berth.Resource) {
	s := t.s
	switch {
	case t.part != 0:
	case a.lp == nil:
		a.headroom = s.headroom(q, u, ul)
	default:
		a.headroom = s.appHeadroom(a)
	}
}

// commitLabelled is commit's charge of container c, allocated for key k
// on a labelled node or for a labelled key (the default partition's
// allocations keep apply's own path): usage on the node's partition,
// demand off the key's, and the borrowing of a non-exclusive partition.
// apply then charges the user, the headroom and the observer for both.
func (s *Scheduler) commitLabelled(c *container, k *skey) {
	a, n := c.app, c.node
	q, u := a.q, a.u
	capR := c.c.Resource
	if n.part == 0 {
		k.Payload.missedNP = 0
	} else if k.Payload.part == 0 {
		c.borrowed = true
		a.borrowed++
		q.leaf.borrowed++
	}
	if n.part != 0 {
		a.lp[n.part-1].used = a.lp[n.part-1].used.Add(capR)
	}
	a.used = a.used.Add(capR)
	s.chargeMirrorOn(n.part, q, u, capR, false)
	if kp := k.Payload.part; kp != 0 {
		s.setPendingOn(a, kp, a.lp[kp-1].pending.Sub(capR))
	} else {
		s.setPending(a, a.pending.Sub(capR))
	}
}
