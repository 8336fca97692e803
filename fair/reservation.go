package fair

import (
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Entitlement is a reservation queue's share of its plan queue, as
// fractions in [0, 1] (YARN's QueueEntitlement): package queue's type, so
// that a plan follower can drive either scheduler. The fair scheduler uses
// Capacity as the queue's weight and ignores MaxCapacity, as YARN's
// FairSchedulerPlanFollower does.
type Entitlement = queue.Entitlement

// ReservationQueueInfo describes one reservation queue of a plan queue
// (package queue's record); Capacity is the queue's weight, MaxCapacity 1,
// and Used its allocated resource.
type ReservationQueueInfo = queue.ReservationQueueInfo

// defaultReservationQueue names a plan's default queue:
// "root.plan" → "root.plan.plan-default".
func defaultReservationQueue(plan string) string {
	return plan + "." + plan[strings.LastIndex(plan, ".")+1:] + queue.DefaultReservationSuffix
}

// ensureDefaultReservationQueue returns plan's default queue, creating it
// (weight 1) if needed. Berth creates it with the plan, as package queue
// does; YARN's fair scheduler creates it on the first submission.
func (s *Scheduler) ensureDefaultReservationQueue(plan *fsQueue) *fsQueue {
	name := defaultReservationQueue(plan.path)
	if q := s.queues[name]; q != nil {
		return q
	}
	q := s.newQueue(name, plan, true, builtinPolicy{PolicyFair})
	q.reservation, q.entitlement, q.dynamic = true, 1, true
	s.applySettings(q)
	if !s.loading {
		s.recomputeSteady()
		s.syncTree()
	}
	return q
}

func (s *Scheduler) planQueue(name string) (*fsQueue, error) {
	q := s.queues[assureRoot(name)]
	if q == nil {
		return nil, notFound("plan-queue", name)
	}
	if !q.plan {
		return nil, kindErr(berth.ErrInvalidArgument, "plan-queue", name, "queue %s is not a reservable (plan) queue", q.path)
	}
	return q, nil
}

// resolveReservationQueue sends a submission to a plan queue to its
// reservation's queue, or to the plan's default queue without one.
func (s *Scheduler) resolveReservationQueue(plan *fsQueue, spec AppSpec) (string, error) {
	if spec.ReservationID == "" {
		return s.ensureDefaultReservationQueue(plan).path, nil
	}
	name := plan.path + "." + spec.ReservationID
	q := s.queues[name]
	if q == nil || !q.reservation {
		return "", kindErr(berth.ErrNotFound, "app.reservation-id", spec.ReservationID,
			"Application %s submitted to a reservation which is not yet currently active: %s", spec.ID, name)
	}
	return name, nil
}

// AddReservationQueue creates the reservation queue reservationID under
// plan queue plan with weight 0 (no share) until the plan follower sets
// its entitlement.
func (s *Scheduler) AddReservationQueue(plan, reservationID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return err
	}
	if err := queue.ValidateName(reservationID); err != nil {
		return berth.InvalidField("reservation-id", reservationID, "invalid queue name")
	}
	name := p.path + "." + reservationID
	if s.queues[name] != nil {
		return kindErr(berth.ErrAlreadyExists, "reservation-id", reservationID, "a queue with that name exists")
	}
	q := s.newQueue(name, p, true, builtinPolicy{PolicyFair})
	q.reservation = true
	s.applySettings(q)
	s.recomputeSteady()
	// Every other change syncs the shared tree at once, so only q is
	// missing there: add it alone (a full sync costs O(queues), and a
	// plan keeps its finished reservations' queues for a day).
	if p.tq != nil && s.tree.Queue(mustPath(name)) == nil {
		tq, err := s.tree.AddReservationQueue(p.tq, reservationID, q)
		s.noteBug(err)
		q.tq = tq
	} else {
		s.syncTree()
	}
	return nil
}

func (s *Scheduler) reservationQueue(name string) (*fsQueue, error) {
	if q := s.queues[assureRoot(name)]; q != nil && q.reservation {
		return q, nil
	}
	// A bare reservation id: the first matching queue by path, without
	// sorting every queue.
	var best *fsQueue
	for _, q := range s.queues {
		if q.reservation && shortName(q.path) == name && (best == nil || q.path < best.path) {
			best = q
		}
	}
	if best == nil {
		return nil, notFound("reservation-id", name)
	}
	return best, nil
}

// SetEntitlement sets a reservation queue's weight to e.Capacity (in
// [0, 1]); name is the reservation id or the queue's full path.
func (s *Scheduler) SetEntitlement(name string, e Entitlement) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.reservationQueue(name)
	if err != nil {
		return err
	}
	if !(e.Capacity >= 0 && e.Capacity <= 1) {
		return berth.InvalidField("entitlement.capacity", e.Capacity, "must be in [0, 1]")
	}
	if !(e.MaxCapacity >= 0 && e.MaxCapacity <= 1) {
		return berth.InvalidField("entitlement.max-capacity", e.MaxCapacity, "must be in [0, 1]")
	}
	if s.obs != nil && float64(e.Capacity) != q.entitlement {
		s.emitQueue(queue.QueueEntitlementChanged, q.path, Entitlement{Capacity: e.Capacity, MaxCapacity: 1},
			Entitlement{Capacity: float32(q.entitlement), MaxCapacity: 1})
	}
	q.entitlement = float64(e.Capacity)
	q.Weight = q.entitlement
	s.touchPath(q)
	s.recomputeSteady()
	return nil
}

// RemoveReservationQueue deletes an empty reservation queue; name is the
// reservation id or the full path. The default queue of a plan is removed
// only by a reload that drops the plan.
func (s *Scheduler) RemoveReservationQueue(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.reservationQueue(name)
	if err != nil {
		return err
	}
	if q.path == defaultReservationQueue(q.parent.path) {
		return kindErr(berth.ErrInvalidArgument, "reservation-id", name, "the default queue of plan %s cannot be removed", q.parent.path)
	}
	if !q.isEmpty() {
		return kindErr(berth.ErrInvalidState, "queue", q.path, "The queue %s is not empty: %d applications", q.path, len(q.runnableApps)+len(q.nonRunnableApps))
	}
	s.removeQueue(q)
	s.recomputeSteady()
	// As in AddReservationQueue, only q differs from the shared tree: take
	// it out alone rather than re-sync every queue (O(queues) per removal,
	// and a plan follower removes a queue whenever a reservation's day
	// after its end is over).
	if q.tq != nil && !q.tq.Removed() {
		s.flushAccounts() // the tree checks the queue's books are empty
		s.noteBug(s.tree.RemoveReservationQueue(q.tq))
		q.tq = nil
	} else {
		s.syncTree()
	}
	return nil
}

// ReservationQueues lists plan's reservation queues in creation order.
func (s *Scheduler) ReservationQueues(plan string) ([]ReservationQueueInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return nil, err
	}
	var out []ReservationQueueInfo
	for _, c := range p.children {
		short := c.path[strings.LastIndex(c.path, ".")+1:]
		out = append(out, ReservationQueueInfo{Name: short, Path: c.path, Entitlement: Entitlement{Capacity: float32(c.Weight), MaxCapacity: 1},
			Default: c.path == defaultReservationQueue(p.path), NumApps: len(c.runnableApps) + len(c.nonRunnableApps), Used: c.Usage})
	}
	return out, nil
}

// PlanQueues lists the full paths of the plan (reservable) queues, sorted.
func (s *Scheduler) PlanQueues() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range sortedKeys(s.queues) {
		if s.queues[p].plan {
			out = append(out, p)
		}
	}
	return out
}
