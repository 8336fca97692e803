package fair

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
	"github.com/berthsched/berth/queue"
)

// A heartbeat's allocation walk is YARN's FairScheduler.attemptScheduling
// in three phases, named as package capacity's walk names them:
//
//   - visit: offer the node to a queue's children in policy order, one
//     loop over the order (kept or sorted, order.go), down to the leaves'
//     applications; the first that takes the node wins;
//   - attempt: one offer of the node to an application (an attempt
//     value carries the node, the reservation being served and the
//     recorder), its requests tried in order until one decides; it returns
//     a proposal, a queue.Result with what to commit;
//   - commit: apply the proposal — allocate, reserve, or give the node's
//     reservation up (commit.go).
//
// An attempt only decides: it changes nothing but the delay-scheduling
// counters YARN keeps per scheduling opportunity. Every skip has a
// queue.Reason, computed to decide anyway and recorded only when the
// heartbeat is (explain.go).

// attempt is one offer of a node to the walk (YARN's scheduling
// opportunity).
type attempt struct {
	s    *Scheduler
	n    *node
	now  berth.Time
	from *reservation // the node's reservation being served, or nil
	// rec is the scheduler's activity log when this heartbeat is
	// recorded, nil otherwise: the walk's only cost when nothing is.
	rec *queue.ActivityLog
}

// proposal is what an attempt found for the node: a container or a
// reservation for app's request key at loc, or giving up the reservation
// being served, or nothing (Reason says why).
type proposal struct {
	queue.Result
	app *app
	key *skey
	loc Locality
}

func skip(r queue.Reason) proposal { return proposal{Result: queue.Result{Reason: r}} }

// Heartbeat processes a node update: containers the node reports finished
// are released, the fair shares are updated if Config.UpdateInterval has
// passed on the clock, then containers are allocated on the node by YARN's
// walk (FairScheduler.attemptScheduling) and returned in allocation order.
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

// attemptScheduling is FairScheduler.attemptScheduling: what the node
// owes starved applications, then its reservation (a heartbeat that
// serves one ends there), then walks from the root.
func (s *Scheduler) attemptScheduling(n *node) []Allocation {
	t := attempt{s: s, n: n, now: s.clock.Now()}
	if s.acts.Begin(n.ID, t.now) {
		t.rec = &s.acts
	}
	out := s.assignPreempted(&t, nil)
	if r := n.reserved; r != nil {
		var stands bool
		if stands, out = s.serveReservation(&t, r, out); stands {
			if t.rec != nil {
				t.rec.Skip(s.root.path, queue.ReasonNodeReserved)
			}
			return t.end(out)
		}
	}
	return t.end(s.assignFromRoot(&t, out))
}

// end files the heartbeat's record, if it is recorded.
func (t *attempt) end(out []Allocation) []Allocation {
	if t.rec != nil {
		t.rec.End(t.s.walkableApp)
	}
	return out
}

// assignFromRoot walks from the root while the node holds no reservation
// and the assignment limits allow another container.
func (s *Scheduler) assignFromRoot(t *attempt, out []Allocation) []Allocation {
	count := 0
	var total berth.Resource
	maxRes := t.n.unallocated().Mul(0.5)
	for t.n.reserved == nil {
		s.flushOrder()
		if s.checkOrder {
			s.checkOrders(s.root)
		}
		p := t.queue(s.root)
		if p.Outcome == queue.Skipped {
			break
		}
		if al, ok := s.commit(t, p); ok {
			out = append(out, al)
			total = total.Add(al.Container.Resource)
		} else {
			total = total.Sub(berth.New(1, 0)) // YARN's CONTAINER_RESERVED is <-1, 0>
		}
		count++
		if !s.assignMore(count, total, maxRes) {
			break
		}
	}
	return out
}

// assignMore reports whether a heartbeat that assigned count containers
// of total may assign another (assignMultiple, maxAssign, or the dynamic
// limit of half the node's free resource at the start).
func (s *Scheduler) assignMore(count int, total, maxRes berth.Resource) bool {
	switch {
	case !s.cfg.AssignMultiple:
		return false
	case s.cfg.DynamicMaxAssign:
		return total.FitsIn(maxRes)
	}
	return s.cfg.MaxAssign <= 0 || count < s.cfg.MaxAssign
}

// queueReason is assignContainerPreCheck as a reason: ReasonNone when the
// walk may enter q.
func (t *attempt) queueReason(q *fsQueue) queue.Reason {
	if t.n.reserved != nil {
		return queue.ReasonNodeReserved
	}
	if !q.Usage.FitsIn(q.MaxShare) {
		return queue.ReasonQueueLimit
	}
	return queue.ReasonNone
}

// queue offers the node to q: a parent's children, or a leaf's
// applications, in policy order; the first that takes it wins.
func (t *attempt) queue(q *fsQueue) proposal {
	if r := t.queueReason(q); r != queue.ReasonNone {
		if t.rec != nil {
			t.rec.Skip(q.path, r)
		}
		return skip(r)
	}
	if q.leaf {
		for a := range t.s.leafApps(q).each {
			if p := t.app(a); p.Outcome != queue.Skipped {
				return p
			}
		}
		return proposal{}
	}
	for c := range t.s.children(q).each {
		if p := t.queue(c); p.Outcome != queue.Skipped {
			return p
		}
	}
	return proposal{}
}

// children is q's children in policy order (order.go): its kept order,
// which holds only the walkable ones, or a sort, which leaves the idle
// ones out unless the walk sorts on every visit as YARN does.
func (s *Scheduler) children(q *fsQueue) seq[*fsQueue] {
	if s.keptKids(q) {
		return seq[*fsQueue]{kept: &q.kidOrd.o}
	}
	kids := s.sortedKids(q)
	if !s.sortWalk {
		walkable := kids[:0] // sortedKids' own buffer
		for _, c := range kids {
			if c.walkN > 0 {
				walkable = append(walkable, c)
			}
		}
		kids = walkable
	}
	return seq[*fsQueue]{sorted: kids}
}

// leafApps is leaf q's runnable applications with pending demand, in
// policy order.
func (s *Scheduler) leafApps(q *fsQueue) seq[*app] {
	if s.keptApps(q) {
		return seq[*app]{kept: &q.appOrd.o}
	}
	return seq[*app]{sorted: s.sortedApps(q)}
}

// seq is one visit's order: a kept Order or a sorted slice.
type seq[V any] struct {
	kept   *order.Set[sortKey, V]
	sorted []V
}

// each yields the sequence, as a range-over-func iterator. A method
// rather than a closure the order returns: the walk's loop body then
// stays on the stack (a returned closure cost 13 allocations a heartbeat).
func (o seq[V]) each(yield func(V) bool) {
	if o.kept != nil {
		o.kept.Ascend(yield)
		return
	}
	for _, v := range o.sorted {
		if !yield(v) {
			return
		}
	}
}

// walkableApp tells the activity log an application's leaf and whether a
// walk could offer it a node (ReasonOrder) or not (ReasonNone).
func (s *Scheduler) walkableApp(id string) (string, queue.Reason) {
	a := s.apps[id]
	if a == nil || !isWalkable(a) {
		return "", queue.ReasonNone
	}
	return a.q.path, queue.ReasonOrder
}
