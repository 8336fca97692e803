package fair

import (
	"github.com/berthsched/berth/queue"
)

// The commit phase: the only part of a heartbeat's walk that allocates,
// reserves or gives a reservation up (walk.go).

// commit applies an attempt's proposal: a container (out of the node's
// reservation when serving it), a reservation (or the served one resized
// to the request), or the served reservation given up. It returns the
// allocation, if any.
func (s *Scheduler) commit(t *attempt, p proposal) (Allocation, bool) {
	var al Allocation
	var id ContainerID
	switch p.Outcome {
	case queue.Allocated:
		if t.from != nil {
			s.unreserve(t.from)
		}
		al = s.allocate(p.app, p.key, t.n, p.loc)
		id = al.Container.ID
	case queue.Reserved:
		id = s.reserve(p.app, p.key, t.n)
	case queue.Unreserved:
		id = t.from.id
		s.unreserve(t.from)
	}
	if t.rec != nil {
		a := queue.Activity{App: p.app.id, Queue: p.app.q.path, Result: p.Result, Locality: p.loc, Container: id}
		if p.key != nil {
			a.Priority, a.Resource = p.key.Priority(), p.key.Capability()
		} else {
			a.Priority, a.Resource = t.from.prio, t.from.res
		}
		t.rec.Record(a)
	}
	return al, p.Outcome == queue.Allocated
}

// allocate creates k's container on n, charges it and returns it.
func (s *Scheduler) allocate(a *app, k *skey, n *node, loc Locality) Allocation {
	s.nextID++
	c := &container{Container: Container{ID: s.nextID, App: a.id, Node: n.ID, Queue: a.q.path, User: a.user,
		Resource: k.Capability(), Priority: k.Priority(), Locality: loc, Time: s.clock.Now()}, app: a, node: n}
	k.Allocate(loc, n.ID, n.Rack) // the attempt checked that k has outstanding asks
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
	return Allocation{Container: c.Container, Headroom: s.headroom(a)}
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

// reserve reserves n for a's request k, or resizes the reservation a
// already holds there (the attempt checked reservationReason), and
// returns the reservation's id.
func (s *Scheduler) reserve(a *app, k *skey, n *node) ContainerID {
	if r := n.reserved; r != nil {
		s.accountApp(a, queue.Delta{Reserved: k.Capability().Sub(r.res)})
		a.reservedRes = a.reservedRes.Sub(r.res).Add(k.Capability())
		r.prio, r.res = k.Priority(), k.Capability()
		return r.id
	}
	s.nextID++
	r := &reservation{id: s.nextID, app: a, node: n, prio: k.Priority(), res: k.Capability(), time: s.clock.Now()}
	n.reserved = r
	a.reservedOn[n.ID] = r
	a.reservedRes = a.reservedRes.Add(r.res)
	s.accountApp(a, queue.Delta{Reserved: r.res})
	s.resvByID[r.id] = r
	return r.id
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
