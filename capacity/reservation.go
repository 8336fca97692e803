package capacity

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Entitlement is a reservation queue's share of its plan queue, as
// fractions in [0, 1] (YARN's QueueEntitlement). It is package queue's
// type, so that a plan follower can drive either scheduler.
type Entitlement = queue.Entitlement

// ReservationQueueInfo describes one reservation queue of a plan queue
// (package queue's record, shared with package fair); Used includes
// reserved containers.
type ReservationQueueInfo = queue.ReservationQueueInfo

func (s *Scheduler) planQueue(name string) (*qnode, error) {
	q, err := s.lookupQueue(name)
	if err != nil {
		return nil, err
	}
	if q.kind != queue.KindPlan {
		return nil, fieldErr(berth.ErrInvalidArgument, "plan-queue", name, "queue %s is not a reservable (plan) queue", q.path)
	}
	return q, nil
}

// AddReservationQueue creates the reservation queue named reservationID
// under plan queue plan, with zero capacity (YARN's addQueue refuses
// others); the plan follower then sets its entitlement.
func (s *Scheduler) AddReservationQueue(plan, reservationID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return err
	}
	if _, err := s.tree.Lookup(reservationID); err == nil {
		return fieldErr(berth.ErrAlreadyExists, "reservation-id", reservationID, "a queue with that name exists")
	}
	tq, err := s.tree.AddReservationQueue(p.tq, reservationID, p.tq.Payload)
	if err != nil {
		return keyError(err)
	}
	s.mirrorAdded(p, tq)
	if s.obs != nil {
		s.emitQueue(queue.QueueAdded, tq.Path().String(), Entitlement{}, Entitlement{})
	}
	return nil
}

// mirrorAdded mirrors a reservation queue the tree just appended to plan
// p. Nothing else changes: the new queue has no capacity, applications or
// usage, its siblings' guarantees are their own fractions of the plan, and
// a parent's limit for a child depends on that child alone. So this is
// O(depth + siblings), not a rebuild of the whole mirror (a plan follower
// adds and removes queues every step).
func (s *Scheduler) mirrorAdded(p *qnode, tq *tqueue) {
	q := &qnode{tq: tq, name: tq.Name(), path: tq.Path().String(), parent: p, kind: tq.Kind(),
		pos: len(p.children), leaf: &leafState{users: map[string]*user{}, sched: newAppOrder()},
		access: p.access, defExp: p.defExp} // a reservation queue's labels are its plan's
	s.growQueue(q)
	q.ent.Value = q
	p.children = append(p.children, q)
	p.order = append(p.order, q)
	p.ordered = false
	s.byTQ[tq] = q
	s.byPath[q.path] = q
	s.setKeyed(p)
	s.applyCapacities(q)
	s.keepSorted(p)
	s.refreshLimits(q, s.limitOf(q))
}

// mirrorRemoved drops a reservation queue the tree just removed; it was
// empty and had no capacity, so only its plan's lists change.
func (s *Scheduler) mirrorRemoved(q *qnode) {
	p := q.parent
	s.dropChild(p, q)
	if i := slices.Index(p.children, q); i >= 0 {
		p.children = slices.Delete(p.children, i, i+1)
		for j := i; j < len(p.children); j++ {
			p.children[j].pos = j
			s.rekeyChild(p.children[j]) // same place, new position in the key
		}
	}
	s.setKeyed(p)
	if i := slices.Index(p.order, q); i >= 0 {
		p.order = slices.Delete(p.order, i, i+1)
	}
	p.ordered = false // positions changed
	delete(s.byTQ, q.tq)
	delete(s.byPath, q.path)
	q.parent = nil
}

// RemoveReservationQueue deletes an empty reservation queue whose capacity
// is already zero. The default queue of a plan cannot be removed.
func (s *Scheduler) RemoveReservationQueue(reservationID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAccounts() // the tree's accounting is read below
	q, err := s.lookupQueue(reservationID)
	if err != nil {
		return err
	}
	if q.kind != queue.KindReservation {
		return fieldErr(berth.ErrInvalidArgument, "queue", reservationID, "%s is not a AutoCreatedLeafQueue or ReservationQueue", q.path)
	}
	if q.numApps() > 0 {
		return fieldErr(berth.ErrInvalidState, "queue", reservationID, "The queue %s is not empty %d active applications", q.path, q.numApps())
	}
	if err := s.tree.RemoveReservationQueue(q.tq); err != nil {
		return keyError(err)
	}
	s.mirrorRemoved(q)
	if s.obs != nil {
		s.emitQueue(queue.QueueRemoved, q.path, Entitlement{}, Entitlement{})
	}
	return nil
}

// SetEntitlement changes a reservation queue's capacity and maximum
// capacity (fractions of the plan queue) with YARN's rules: both in [0, 1],
// and the plan's children may not sum above 100%.
func (s *Scheduler) SetEntitlement(queueName string, e Entitlement) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupQueue(queueName)
	if err != nil {
		return err
	}
	if q.kind != queue.KindReservation {
		return fieldErr(berth.ErrInvalidArgument, "queue", queueName, "Entitlement can not be modified dynamically since queue %s is not a AutoCreatedLeafQueue", q.path)
	}
	prev := q.tq.Entitlement()
	if err := s.tree.SetEntitlement(q.tq, e); err != nil {
		return keyError(err)
	}
	if now := q.tq.Entitlement(); s.obs != nil && now != prev {
		s.emitQueue(queue.QueueEntitlementChanged, q.path, now, prev)
	}
	// Only q's guarantee and limits change: its siblings' capacities are
	// fractions of the plan queue of their own, and the limit a parent
	// hands a child depends on the child alone. A plan follower sets every
	// reservation queue each step, so this stays O(depth + siblings).
	s.applyCapacities(q)
	s.keepSorted(q.parent)
	s.refreshLimits(q, s.limitOf(q))
	s.activate(q)
	return nil
}

// limitOf is the limit refreshLimits hands q: the cluster at the root,
// then each parent's childLimit down the path.
func (s *Scheduler) limitOf(q *qnode) berth.Resource {
	if q.parent == nil {
		return s.cluster
	}
	return s.childLimit(q.parent, q, s.limitOf(q.parent), 0)
}

// ReservationQueues lists plan's reservation queues in creation order (the
// default queue first).
func (s *Scheduler) ReservationQueues(plan string) ([]ReservationQueueInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return nil, err
	}
	out := make([]ReservationQueueInfo, 0, len(p.children))
	for _, c := range p.children {
		out = append(out, ReservationQueueInfo{
			Name: c.name, Path: c.path, Entitlement: c.tq.Entitlement(),
			Default: c.name == p.name+queue.DefaultReservationSuffix, NumApps: c.numApps(), Used: c.used,
		})
	}
	return out, nil
}

// PlanQueues lists the full paths of the plan (reservable) queues, sorted.
func (s *Scheduler) PlanQueues() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range sortedKeys(s.byPath) {
		if s.byPath[p].kind == queue.KindPlan {
			out = append(out, p)
		}
	}
	return out
}
