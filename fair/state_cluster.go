package fair

import (
	"errors"
	"math"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The cluster's records of the body (see "Durable state" in state.go):
// scalars and nodes before the queues (state_queues.go), containers,
// reservations and earmarks after them, each writer beside its reader. A
// reader checks its records and books them through the helpers normal
// operation uses; the later records index the nodes and applications.

// writeScalars writes the counters, the last update and the first
// PolicyError.
func (s *Scheduler) writeScalars(e *berth.StateEncoder) {
	e.Uvarint(uint64(s.nextID))
	e.Uvarint(s.nextSeq)
	e.Varint(s.lastUpdate)
	e.Bool(s.updated)
	var pe *PolicyError
	if errors.As(s.polErr, &pe) {
		e.Bool(true)
		e.String(pe.Policy)
		e.String(pe.Queue)
		e.String(pe.Item)
		e.Resource(pe.Share)
		e.String(pe.Reason)
	} else {
		e.Bool(false)
	}
}

// readScalars reads the scalars; the PolicyError is set once the queues
// are settled (settleQueues), which may raise another.
func (r *restorer) readScalars() {
	d, s := r.d, r.s
	d.Field("scalars")
	s.nextID = ContainerID(d.Uvarint())
	s.nextSeq = d.Uvarint()
	s.lastUpdate = d.Varint()
	s.updated = d.Bool()
	if d.Bool() {
		r.polErr = &PolicyError{Policy: d.String(), Queue: d.String(), Item: d.String(), Share: d.Resource(), Reason: d.String()}
	}
}

// writeNodes writes the nodes in id order, and their indexes to nodeIx.
func (s *Scheduler) writeNodes(e *berth.StateEncoder, nodeIx map[*node]int) {
	e.Len(len(s.byID))
	for i, n := range s.byID {
		nodeIx[n] = i
		e.String(n.ID)
		e.String(n.Rack)
		e.Resource(n.Capability)
	}
}

// readNodes reads the nodes and files them as AddNode does (one cluster
// change at the end).
func (r *restorer) readNodes() {
	d, s := r.d, r.s
	d.Field("nodes")
	count := d.Len(maxStateItems)
	for i := 0; i < count && d.Err() == nil; i++ {
		spec := NodeSpec{ID: d.String(), Rack: d.String(), Capability: d.Resource()}
		if d.Err() != nil {
			break
		}
		if spec.ID == "" || spec.Rack == "" || spec.Capability.AnyNegative() || (i > 0 && spec.ID <= s.nodeIDs[i-1]) {
			r.fail("node %d (%q) invalid or out of order", i, spec.ID)
			break
		}
		if !fitsSum(s.cluster, spec.Capability) {
			r.fail("node %q overflows the cluster", spec.ID)
			break
		}
		n := &node{NodeSpec: spec}
		s.nodes[spec.ID] = n
		s.nodeIDs = append(s.nodeIDs, spec.ID)
		s.byID = append(s.byID, n)
		s.racks.Add(spec.Rack)
		s.cluster = s.cluster.Add(spec.Capability)
	}
}

// fitsSum reports whether a+b stays representable in every type.
func fitsSum(a, b berth.Resource) bool {
	for _, t := range berth.TypeNames(b) {
		if b.Get(t) > math.MaxInt64-a.Get(t) {
			return false
		}
	}
	return true
}

// writeContainers writes the live containers in id order.
func (s *Scheduler) writeContainers(e *berth.StateEncoder, appIx map[*app]int, nodeIx map[*node]int) {
	e.Len(s.live.Len())
	s.live.Ascend(func(c *container) {
		e.Uvarint(uint64(c.ID))
		e.Int(appIx[c.app])
		e.Int(nodeIx[c.node])
		e.Resource(c.Resource)
		e.Varint(int64(c.Priority))
		e.Uvarint(uint64(c.Locality))
		e.Bool(c.AM)
		e.Varint(c.Time)
		e.Bool(c.marked)
	})
}

// readContainers reads the containers and charges each as allocate
// charges it, in id order (the order of the intrusive lists).
func (r *restorer) readContainers() {
	d, s := r.d, r.s
	d.Field("containers")
	count := d.Len(maxStateItems)
	var last ContainerID
	for i := 0; i < count && d.Err() == nil; i++ {
		id := ContainerID(d.Uvarint())
		a, n := r.app(), r.node()
		if a == nil || n == nil {
			break
		}
		c := &container{Container: Container{ID: id, Resource: d.Resource(), Priority: r.int32(),
			Locality: Locality(d.Uvarint()), AM: d.Bool(), Time: d.Varint()}, app: a, node: n}
		c.marked = d.Bool()
		if d.Err() != nil {
			break
		}
		if id == 0 || id <= last || id > s.nextID || c.Resource.AnyNegative() || c.Locality > OffSwitch {
			r.fail("container %d invalid or out of order", id)
			break
		}
		if !n.allocated.Add(c.Resource).FitsIn(n.Capability) {
			r.fail("container %d overfills node %q", id, n.ID)
			break
		}
		last = id
		c.App, c.Node, c.Queue, c.User = a.id, n.ID, a.q.path, a.user
		s.chargeRestored(c)
	}
}

// chargeRestored books a restored container as allocate books a new one.
func (s *Scheduler) chargeRestored(c *container) {
	a, n := c.app, c.node
	s.live.Put(c.ID, c)
	a.live.push(c, appList)
	n.live.push(c, nodeList)
	n.allocated = n.allocated.Add(c.Resource)
	s.account(a.q, a.user, queue.Delta{Used: c.Resource})
	a.Usage = a.Usage.Add(c.Resource)
	for p := a.q; p != nil; p = p.parent {
		p.Usage = p.Usage.Add(c.Resource)
	}
}

// writeReservations writes the container reservations in node order
// (every reservation is its node's).
func (s *Scheduler) writeReservations(e *berth.StateEncoder, appIx map[*app]int, nodeIx map[*node]int) {
	e.Len(len(s.resvByID))
	for _, n := range s.byID {
		if r := n.reserved; r != nil {
			e.Uvarint(uint64(r.id))
			e.Int(nodeIx[n])
			e.Int(appIx[r.app])
			e.Varint(int64(r.prio))
			e.Resource(r.res)
			e.Varint(r.time)
		}
	}
}

// readReservations reads the reservations and books each on its node,
// application and queues.
func (r *restorer) readReservations() {
	d, s := r.d, r.s
	d.Field("reservations")
	count := d.Len(maxStateItems)
	for i := 0; i < count && d.Err() == nil; i++ {
		id := ContainerID(d.Uvarint())
		n, a := r.node(), r.app()
		if a == nil || n == nil {
			break
		}
		rv := &reservation{id: id, app: a, node: n, prio: r.int32(), res: d.Resource(), time: d.Varint()}
		if d.Err() != nil {
			break
		}
		if _, live := s.live.Get(id); live || id == 0 || id > s.nextID || s.resvByID[id] != nil || n.reserved != nil || rv.res.AnyNegative() {
			r.fail("reservation %d invalid", id)
			break
		}
		n.reserved = rv
		a.reservedOn[n.ID] = rv
		a.reservedRes = a.reservedRes.Add(rv.res)
		s.account(a.q, a.user, queue.Delta{Reserved: rv.res})
		s.resvByID[id] = rv
	}
}

// writeEarmarks writes, per node, what it owes starved applications, in
// order. Earmarks of applications that have gone are dropped: the next
// heartbeat of their node would drop them before reading any.
func (s *Scheduler) writeEarmarks(e *berth.StateEncoder, appIx map[*app]int, nodeIx map[*node]int) {
	n := 0
	for _, nd := range s.byID {
		if liveEarmarks(nd) > 0 {
			n++
		}
	}
	e.Len(n)
	for _, nd := range s.byID {
		k := liveEarmarks(nd)
		if k == 0 {
			continue
		}
		e.Int(nodeIx[nd])
		e.Len(k)
		for _, p := range nd.preempted {
			if !p.app.gone {
				e.Int(appIx[p.app])
				e.Resource(p.res)
			}
		}
	}
}

func liveEarmarks(n *node) int {
	k := 0
	for _, p := range n.preempted {
		if !p.app.gone {
			k++
		}
	}
	return k
}

func (r *restorer) readEarmarks() {
	d := r.d
	d.Field("earmarks")
	n := d.Len(maxStateItems)
	for i := 0; i < n && d.Err() == nil; i++ {
		nd := r.node()
		if nd == nil {
			break
		}
		k := d.Len(len(r.apps))
		if len(nd.preempted) > 0 {
			r.fail("node %q earmarked twice", nd.ID)
		}
		for j := 0; j < k && d.Err() == nil; j++ {
			a := r.app()
			res := d.Resource()
			if a == nil {
				break
			}
			if res.AnyNegative() {
				r.fail("negative earmark on %q", nd.ID)
			}
			nd.preempted = append(nd.preempted, &preemptedFor{app: a, res: res})
		}
	}
}
