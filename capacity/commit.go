package capacity

import (
	"github.com/berthsched/berth/queue"
)

// The commit phase: the only part of a heartbeat's walk that allocates,
// reserves or gives a reservation up (walk.go).

func (s *Scheduler) newID() ContainerID {
	s.nextID++
	return s.nextID
}

// commit applies an attempt's proposal: a reservation, or an allocation
// (possibly out of a reservation, possibly giving another one up), and
// records it when the heartbeat is recorded. A multi-node proposal for a
// node another application reserved meanwhile is refused (apply), and
// recorded as skipped for the node's reservation.
func (s *Scheduler) commit(t *attempt, p proposal) (Allocation, bool) {
	refused := p.refused()
	al, ok, id := s.apply(t.n, p)
	if t.rec != nil {
		res := queue.Result{Outcome: queue.Allocated}
		switch {
		case refused:
			res, id = queue.Result{Outcome: queue.Skipped, Reason: queue.ReasonNodeReserved}, 0
		case p.st == stReserved:
			res.Outcome = queue.Reserved
			if p.from != nil {
				id = p.from.id
			}
		}
		t.record(queue.Activity{App: p.app.id, Queue: p.app.q.path, Result: res,
			Priority: p.key.Priority(), Resource: p.key.Capability(), Locality: p.loc, Container: id})
	}
	return al, ok
}

// refused reports whether the committer refuses p: with multi-node
// placement, a proposal for a node that is another application's
// reservation, as YARN's committer refuses it.
func (p *proposal) refused() bool {
	return p.node != nil && p.from == nil && p.node.reserved != nil
}

// apply makes a proposal so and returns the allocation, if any, and the
// id of the container or reservation it made.
func (s *Scheduler) apply(n *node, p proposal) (Allocation, bool, ContainerID) {
	a, k := p.app, p.key
	q, u := a.q, a.u
	// A first node- or rack-local assignment, allocation or reservation
	// alike, restarts the key's locality delay (YARN's doAllocation).
	if p.from == nil && p.loc != OffSwitch && (p.loc == NodeLocal || s.cfg.RackLocalityFullReset) {
		k.Payload.missed = 0
	}
	if p.refused() {
		return Allocation{}, false, 0
	}
	if p.node != nil {
		n = p.node
	}
	if p.unres != nil {
		s.unreserve(p.unres)
	}
	if p.st == stReserved {
		if p.from != nil {
			k.Payload.reRes++
			return Allocation{}, false, 0
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
		return Allocation{}, false, r.id
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
	} else {
		k.Payload.missedNP = 0 // an allocation on the default partition (YARN's doAllocation)
		// setPending below re-keys a in its leaf's order from both its usage
		// and its demand: one re-key instead of appUsage's and setPending's.
		a.used = a.used.Add(capR)
		// The two charges to the tree's accounting are summed there until it
		// is read (deferAccount).
		s.chargeMirror(q, u, capR, false)
		s.setPending(a, a.pending.Sub(capR))
	}
	s.accountUser(q, u, queue.Delta{Used: capR})
	s.refreshHeadroom(a)
	if s.obs != nil {
		s.obs.ObserveContainer(queue.ContainerEvent{Kind: queue.ContainerAllocated, Container: c.c, Time: c.c.Time})
	}
	return Allocation{Container: c.c, Headroom: a.headroom}, true, c.c.ID
}
