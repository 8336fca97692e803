package fair

import (
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// outcome of one assignment attempt.
type outcome uint8

const (
	none outcome = iota
	assigned
	reserved
)

// Heartbeat processes a node update: containers the node reports finished
// are released, the fair shares are updated if Config.UpdateInterval has
// passed on the clock, then containers are allocated on the node by YARN's
// walk (reference §4.11) and returned in allocation order.
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
				s.emitEnded(c.Container, Completed)
			}
		}
	}
	if now := s.clock.Now(); !s.updated || now-s.lastUpdate >= s.cfg.UpdateInterval {
		s.update(now)
	}
	return s.attemptScheduling(n), nil
}

// attemptScheduling is FairScheduler.attemptScheduling.
func (s *Scheduler) attemptScheduling(n *node) []Allocation {
	out := s.assignPreempted(n, nil)
	valid := false
	if r := n.reserved; r != nil {
		valid, out = s.assignReservedContainer(r, out)
	}
	if valid {
		return out
	}
	count := 0
	var total berth.Resource
	maxRes := n.unallocated().Mul(0.5)
	for n.reserved == nil {
		s.flushOrder()
		if s.checkOrder {
			s.checkOrders(s.root)
		}
		var al Allocation
		oc := s.assignParent(s.root, n, &al)
		if oc == none {
			break
		}
		if oc == assigned {
			out = append(out, al)
			total = total.Add(al.Container.Resource)
		} else {
			total = total.Sub(berth.New(1, 0)) // YARN's CONTAINER_RESERVED is <-1, 0>
		}
		count++
		if !s.cfg.AssignMultiple {
			break
		}
		if s.cfg.DynamicMaxAssign {
			if !total.FitsIn(maxRes) {
				break
			}
		} else if s.cfg.MaxAssign > 0 && count >= s.cfg.MaxAssign {
			break
		}
	}
	return out
}

// preCheck is assignContainerPreCheck: no reservation on the node and
// usage within the max share.
func preCheck(q *fsQueue, n *node) bool {
	return n.reserved == nil && q.Usage.FitsIn(q.MaxShare)
}

// assignParent offers the node to the children in policy order. The walk
// returns what happened; a container allocated is written to *al, which
// only the allocation writes (copying it up every level cost more than
// the rest of a heartbeat's return path).
func (s *Scheduler) assignParent(q *fsQueue, n *node, al *Allocation) outcome {
	if !preCheck(q, n) {
		return none
	}
	if q.leaf {
		return s.assignLeaf(q, n, al)
	}
	if !s.keptKids(q) {
		for _, c := range s.sortedKids(q) {
			if c.walkN == 0 && !s.sortWalk {
				continue // idle: nothing to offer the node to (order.go)
			}
			if oc := s.assignParent(c, n, al); oc != none {
				return oc
			}
		}
		return none
	}
	oc := none
	q.kidOrd.o.Ascend(func(c *fsQueue) bool {
		oc = s.assignParent(c, n, al)
		return oc == none
	})
	return oc
}

// assignLeaf offers the node to the runnable applications with pending
// demand, in policy order.
func (s *Scheduler) assignLeaf(q *fsQueue, n *node, al *Allocation) outcome {
	if !s.keptApps(q) {
		for _, a := range s.sortedApps(q) {
			if oc := s.tryApp(a, n, al); oc != none {
				return oc
			}
		}
		return none
	}
	oc := none
	q.appOrd.o.Ascend(func(a *app) bool {
		oc = s.tryApp(a, n, al)
		return oc == none
	})
	return oc
}

// tryApp offers the node to one application of the leaf walk.
func (s *Scheduler) tryApp(a *app, n *node, al *Allocation) outcome {
	if s.overAMShareLimit(a) {
		return none
	}
	return s.assignApp(a, n, nil, al)
}

// overAMShareLimit is FSAppAttempt.isOverAMShareLimit: a managed AM that
// is not running may start only if its queue can run it.
func (s *Scheduler) overAMShareLimit(a *app) bool {
	if a.amRunning || !a.managedAM {
		return false
	}
	ask, count := a.asks.NextPending()
	return count == 0 || !s.canRunAppAM(a.q, ask)
}

// canRunAppAM checks maxAMShare of the queue.
func (s *Scheduler) canRunAppAM(q *fsQueue, am berth.Resource) bool {
	if math.Abs(float64(q.settings.MaxAMShare)+1) < 0.0001 {
		return true
	}
	return q.amUsage.Add(am).FitsIn(s.maxAMResource(q))
}

// maxAMResource is computeMaxAMResource: the queue's fair share with zero
// memory or vcores replaced by min(available, max share), times maxAMShare
// rounded up.
func (s *Scheduler) maxAMResource(q *fsQueue) berth.Resource {
	r := q.FairShare
	avail := s.cluster.Sub(s.root.Usage)
	if r.Memory == 0 {
		r.Memory = min(avail.Memory, q.MaxShare.Memory)
	}
	if r.VCores == 0 {
		r.VCores = min(avail.VCores, q.MaxShare.VCores)
	}
	return r.MulRoundUp(float64(q.settings.MaxAMShare))
}

// hasContainerForNode is FSAppAttempt.hasContainerForNode.
func (s *Scheduler) hasContainerForNode(a *app, k *skey, n *node) bool {
	anyCount, anyRelax := k.AnyAsk()
	if anyCount <= 0 {
		return false
	}
	rackCount, rackRelax := k.RackAsk(n.Rack)
	nodeCount, _ := k.HostAsk(n.ID)
	rackAsk, nodeAsk := rackCount > 0, nodeCount > 0
	if !(anyRelax || rackAsk) {
		return false
	}
	if rackAsk && !rackRelax && !nodeAsk {
		return false
	}
	if !k.Capability().FitsIn(n.Capability) {
		return false
	}
	return a.q.fitsInMaxShare(k.Capability())
}

// allowedLocality is YARN's delay scheduling, by opportunities or by time.
func (s *Scheduler) allowedLocality(a *app, k *skey, now berth.Time) Locality {
	if s.cfg.TimeBasedLocality {
		if s.cfg.LocalityDelayNode < 0 || s.cfg.LocalityDelayRack < 0 {
			return OffSwitch
		}
		d := &k.Payload
		if !d.allowedSet {
			d.lastAt, d.lastAtSet = now, true
			d.allowed, d.allowedSet = NodeLocal, true
			return NodeLocal
		}
		lvl := d.allowed
		if lvl == OffSwitch {
			return OffSwitch
		}
		since := a.StartTime
		if d.lastAtSet {
			since = d.lastAt
		}
		limit := s.cfg.LocalityDelayNode
		if lvl == RackLocal {
			limit = s.cfg.LocalityDelayRack
		}
		if now-since > limit {
			d.allowed = lvl + 1
			d.opps = 0
			d.lastAt, d.lastAtSet = now, true
		}
		return d.allowed
	}
	nodeT, rackT := min(s.cfg.LocalityThresholdNode, 1), min(s.cfg.LocalityThresholdRack, 1)
	if nodeT < 0 || rackT < 0 {
		return OffSwitch
	}
	d := &k.Payload
	if !d.allowedSet {
		d.allowed, d.allowedSet = NodeLocal, true
		return NodeLocal
	}
	lvl := d.allowed
	if lvl == OffSwitch {
		return OffSwitch
	}
	t := nodeT
	if lvl == RackLocal {
		t = rackT
	}
	if float64(d.opps) > float64(len(s.nodes))*t {
		d.allowed = lvl + 1
		d.opps = 0
		d.lastAt, d.lastAtSet = now, true
	}
	return d.allowed
}

// assignApp is FSAppAttempt.assignContainer(node, reserved): from is the
// node's reservation when serving it.
func (s *Scheduler) assignApp(a *app, n *node, from *reservation, al *Allocation) outcome {
	now := s.clock.Now()
	keys := a.asks.Keys()
	if from != nil {
		k := a.asks.Key(from.prio)
		if k == nil {
			return none
		}
		keys = []*skey{k}
	}
	for _, k := range keys {
		if from == nil && !s.hasContainerForNode(a, k, n) {
			continue
		}
		k.Payload.opps++
		rackCount, rackRelax := k.RackAsk(n.Rack)
		nodeCount, _ := k.HostAsk(n.ID)
		anyCount, anyRelax := k.AnyAsk()
		allowed := s.allowedLocality(a, k, now)
		if rackCount > 0 && nodeCount > 0 {
			return s.assignContainer(a, k, n, NodeLocal, from, al)
		}
		if !rackRelax {
			continue
		}
		if rackCount > 0 && allowed >= RackLocal {
			return s.assignContainer(a, k, n, RackLocal, from, al)
		}
		if !anyRelax {
			continue
		}
		if anyCount > 0 && (k.UniqueLocationAsks() <= 1 || allowed == OffSwitch) {
			return s.assignContainer(a, k, n, OffSwitch, from, al)
		}
	}
	return none
}

// assignContainer allocates k's container on n, or reserves n for it.
func (s *Scheduler) assignContainer(a *app, k *skey, n *node, loc Locality, from *reservation, al *Allocation) outcome {
	capRes := k.Capability()
	if capRes.FitsIn(n.unallocated()) {
		if d := &k.Payload; d.allowedSet && loc < d.allowed {
			d.allowed = loc
		}
		if k.Outstanding() <= 0 {
			if from != nil {
				s.unreserve(from)
			}
			return none
		}
		if from != nil {
			s.unreserve(from)
		}
		s.allocate(a, k, n, loc, al)
		return assigned
	}
	if s.isReservable(a, capRes) && s.reserve(a, k, n, loc, from) {
		return reserved
	}
	return none
}

// allocate creates the container, charges it and writes it to *al.
func (s *Scheduler) allocate(a *app, k *skey, n *node, loc Locality, al *Allocation) {
	s.nextID++
	c := &container{Container: Container{ID: s.nextID, App: a.id, Node: n.ID, Queue: a.q.path, User: a.user,
		Resource: k.Capability(), Priority: k.Priority(), Locality: loc, Time: s.clock.Now()}, app: a, node: n}
	k.Allocate(loc, n.ID, n.Rack) // assignContainer checked that k has outstanding asks
	if !a.amRunning && a.managedAM {
		c.AM = true
		a.amRes = k.Capability()
		a.amRunning = true
		a.q.amUsage = a.q.amUsage.Add(k.Capability())
	}
	s.live.Put(c.ID, c)
	a.live.push(c, appList)
	n.live.push(c, nodeList)
	n.allocated = n.allocated.Add(c.Resource)
	n.payPreempted(a, c.Resource)
	s.accountApp(a, queue.Delta{Used: c.Resource})
	a.Usage = a.Usage.Add(c.Resource)
	for p := a.q; p != nil; p = p.parent {
		p.Usage = p.Usage.Add(c.Resource)
	}
	s.touchApp(a)
	s.touchPath(a.q)
	if s.obs != nil {
		s.obs.ObserveContainer(queue.ContainerEvent{Kind: queue.ContainerAllocated, Container: c.Container, Time: c.Time})
	}
	*al = Allocation{Container: c.Container, Headroom: s.headroom(a)}
}

// releaseContainer ends a live container.
func (s *Scheduler) releaseContainer(c *container) {
	a, n := c.app, c.node
	s.live.Delete(c.ID)
	a.live.remove(c, appList)
	n.live.remove(c, nodeList)
	n.allocated = n.allocated.Sub(c.Resource)
	s.accountApp(a, queue.Delta{Used: c.Resource.Neg()})
	a.Usage = a.Usage.Sub(c.Resource)
	for p := a.q; p != nil; p = p.parent {
		p.Usage = p.Usage.Sub(c.Resource)
	}
	s.touchApp(a)
	s.touchPath(a.q)
}

// isReservable: YARN reserves only for starved applications asking at
// least the reservation threshold.
func (s *Scheduler) isReservable(a *app, r berth.Resource) bool {
	if a.fairStarvation.IsZero() && a.minStarvation.IsZero() {
		return false
	}
	threshold := s.cfg.Increment.Mul(s.cfg.ReservationThresholdIncrementMultiple)
	return a.q.policy.Calculator().Compare(s.cluster, r, threshold) >= 0
}

// reserve reserves n for a's key k unless n holds another application's
// reservation or a holds too many non-node-local reservations.
func (s *Scheduler) reserve(a *app, k *skey, n *node, loc Locality, from *reservation) bool {
	if n.reserved != nil && n.reserved.app != a {
		return false
	}
	if loc != NodeLocal {
		existing, total := 0, len(s.nodes)
		if loc == OffSwitch {
			existing = len(a.reservedOn)
		} else {
			total = s.racks.Nodes(n.Rack)
			for _, r := range a.reservedOn {
				if r.node.Rack == n.Rack {
					existing++
				}
			}
		}
		if existing >= int(math.Ceil(float64(total)*s.cfg.ReservableNodes)) {
			return false
		}
	}
	if from != nil || n.reserved != nil {
		r := n.reserved
		s.accountApp(a, queue.Delta{Reserved: k.Capability().Sub(r.res)})
		a.reservedRes = a.reservedRes.Sub(r.res).Add(k.Capability())
		r.prio, r.res = k.Priority(), k.Capability()
		return true
	}
	s.nextID++
	r := &reservation{id: s.nextID, app: a, node: n, prio: k.Priority(), res: k.Capability(), time: s.clock.Now()}
	n.reserved = r
	a.reservedOn[n.ID] = r
	a.reservedRes = a.reservedRes.Add(r.res)
	s.accountApp(a, queue.Delta{Reserved: r.res})
	s.resvByID[r.id] = r
	return true
}

// unreserve drops a reservation.
func (s *Scheduler) unreserve(r *reservation) {
	if r.node.reserved == r {
		r.node.reserved = nil
	}
	delete(r.app.reservedOn, r.node.ID)
	r.app.reservedRes = r.app.reservedRes.Sub(r.res)
	s.accountApp(r.app, queue.Delta{Reserved: r.res.Neg()})
	delete(s.resvByID, r.id)
}

// assignReservedContainer serves the node's reservation: it is dropped
// when the application can no longer use it, otherwise tried when it fits.
// valid reports whether the reservation still stands (or was fulfilled).
func (s *Scheduler) assignReservedContainer(r *reservation, out []Allocation) (bool, []Allocation) {
	a, n := r.app, r.node
	k := a.asks.Key(r.prio)
	if k == nil || !s.hasContainerForNode(a, k, n) || s.overAMShareLimit(a) {
		s.unreserve(r)
		return false, out
	}
	if r.res.FitsIn(n.unallocated()) {
		var al Allocation
		if s.assignApp(a, n, r, &al) == assigned {
			out = append(out, al)
		}
	}
	return true, out
}
