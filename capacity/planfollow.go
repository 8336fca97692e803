package capacity

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The accessors below are what a plan follower reads and does besides the
// queue edits of reservation.go (YARN's CapacitySchedulerPlanFollower reads
// the plan queue's and each reservation queue's absolute capacity, lists
// the plan's children and the applications of an expired queue, and moves
// them with MoveApp or kills them with KillApp). With them *Scheduler
// satisfies follower.Scheduler as it is. Each costs O(1) or O(answer),
// never a snapshot.

// PlanResources is what the plan queue plan is guaranteed now: the cluster
// × its absolute capacity (YARN's getPlanResources, truncated per
// resource type as Resources.multiply does). The plan follower publishes it
// as the plan's capacity. plan may be a full path or a unique short name.
func (s *Scheduler) PlanResources(plan string) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return berth.None(), err
	}
	return s.cluster.Mul(p.absCap), nil
}

// FollowerFlavor names the plan follower flavor whose queue names this
// scheduler takes, "capacity" (reservation queues named by the bare
// reservation id): follower.New refuses the fair flavor for it.
func (s *Scheduler) FollowerFlavor() string { return "capacity" }

// ReservationQueueNames lists the short names of plan's reservation queues
// (reservation ids, and "<plan>-default"), the names [Scheduler.SetEntitlement]
// and [Scheduler.RemoveReservationQueue] take, in the plan's child order.
func (s *Scheduler) ReservationQueueNames(plan string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(p.children))
	for i, c := range p.children {
		out[i] = c.name
	}
	return out, nil
}

// ReservationQueueState returns the entitlement of the reservation queue
// named name under plan queue plan, and what it is guaranteed now: the
// cluster × its absolute capacity (YARN's
// getReservationQueueResourceIfExists). A queue that does not exist is an
// error of kind berth.ErrNotFound; one that is not a reservation queue of
// plan, of kind berth.ErrInvalidArgument.
func (s *Scheduler) ReservationQueueState(plan, name string) (Entitlement, berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return Entitlement{}, berth.None(), err
	}
	q, err := s.lookupQueue(name)
	if err != nil {
		return Entitlement{}, berth.None(), err
	}
	if q.kind != queue.KindReservation || q.parent != p {
		return Entitlement{}, berth.None(), fieldErr(berth.ErrInvalidArgument, "queue", name,
			"%s is not a reservation queue of plan %s", q.path, p.path)
	}
	return q.tq.Entitlement(), s.cluster.Mul(q.absCap), nil
}

// AppsInQueue lists the ids of the applications of a queue in submission
// order (YARN's getAppsInQueue): a leaf's own, or for a parent (a plan
// queue included) those of every leaf below it.
func (s *Scheduler) AppsInQueue(name string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupQueue(name)
	if err != nil {
		return nil, err
	}
	var apps []*app
	var collect func(q *qnode)
	collect = func(q *qnode) {
		if q.leaf != nil {
			apps = append(apps, q.leaf.apps...)
		}
		for _, c := range q.children {
			collect(c)
		}
	}
	collect(q)
	if q.leaf == nil {
		slices.SortFunc(apps, bySeq)
	}
	out := make([]string, len(apps))
	for i, a := range apps {
		out[i] = a.id
	}
	return out, nil
}
