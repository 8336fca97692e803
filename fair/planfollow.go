package fair

import (
	"slices"

	"github.com/berthsched/berth"
)

// The accessors below are what a plan follower reads and does besides the
// queue edits of reservation.go (YARN's FairSchedulerPlanFollower reads the
// plan queue's and each reservation queue's steady fair share, lists the
// plan's children and the applications of an expired queue, and moves them
// with MoveApp or kills them with KillApp). With them *Scheduler satisfies
// follower.Scheduler as it is, like the capacity scheduler. Each costs
// O(1) or O(answer), never a snapshot.

// PlanResources is what the plan queue plan is guaranteed now: its steady
// fair share (YARN's FairSchedulerPlanFollower.getPlanResources). plan is
// a full path or a path without "root.".
func (s *Scheduler) PlanResources(plan string) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return berth.None(), err
	}
	return p.SteadyFairShare, nil
}

// ReservationQueueNames lists the full paths of plan's reservation queues
// (the default queue included) in creation order: the names the fair
// follower flavor gives ("root.<plan>.<id>").
func (s *Scheduler) ReservationQueueNames(plan string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(p.children))
	for i, c := range p.children {
		out[i] = c.path
	}
	return out, nil
}

// ReservationQueueState returns the entitlement of the reservation queue
// name under plan queue plan (Capacity is its weight, MaxCapacity 1) and
// what it is guaranteed now: its steady fair share (YARN's
// getReservationQueueResourceIfExists). name is a full path or the
// reservation's short name. A queue that does not exist is an error of
// kind berth.ErrNotFound; one that is not a reservation queue of plan, of
// kind berth.ErrInvalidArgument.
func (s *Scheduler) ReservationQueueState(plan, name string) (Entitlement, berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return Entitlement{}, berth.None(), err
	}
	// A short name is looked up under the plan first: "r1" is
	// root.<plan>.r1 even when a queue root.r1 exists.
	q := s.queues[p.path+"."+name]
	if q == nil {
		q = s.queues[assureRoot(name)]
	}
	if q == nil {
		return Entitlement{}, berth.None(), notFound("queue", name)
	}
	if !q.reservation || q.parent != p {
		return Entitlement{}, berth.None(), kindErr(berth.ErrInvalidArgument, "queue", name,
			"%s is not a reservation queue of plan %s", q.path, p.path)
	}
	return Entitlement{Capacity: float32(q.Weight), MaxCapacity: 1}, q.SteadyFairShare, nil
}

// AppsInQueue lists the ids of the applications of a queue (runnable or
// not) in submission order (YARN's getAppsInQueue): a leaf's own, or for a
// parent (a plan queue included) those of every leaf below it. name is a
// full path or a path without "root."; an unknown queue is an error of kind
// berth.ErrNotFound.
func (s *Scheduler) AppsInQueue(name string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[assureRoot(name)]
	if q == nil {
		return nil, notFound("queue", name)
	}
	var apps []*app
	var collect func(q *fsQueue)
	collect = func(q *fsQueue) {
		apps = append(apps, q.runnableApps...)
		apps = append(apps, q.nonRunnableApps...)
		for _, c := range q.children {
			collect(c)
		}
	}
	collect(q)
	slices.SortFunc(apps, func(a, b *app) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := make([]string, len(apps))
	for i, a := range apps {
		out[i] = a.id
	}
	return out, nil
}
