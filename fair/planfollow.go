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
// fair share (YARN's FairSchedulerPlanFollower.getPlanResources and
// FairReservationSystem.getPlanQueueCapacity), the capacity to create its
// plan with. Every resource type the policies above the queue do not
// divide — the fair policy divides memory alone — is given in the share's
// proportion of the cluster's memory (see planShare), so that a plan sized
// by it admits reservations that ask for vcores. plan is a full path or a
// path without "root.".
func (s *Scheduler) PlanResources(plan string) (berth.Resource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.planQueue(plan)
	if err != nil {
		return berth.None(), err
	}
	return s.planShare(p), nil
}

// FollowerFlavor names the plan follower flavor whose queue names this
// scheduler takes, "fair" (reservation queues named by full path):
// follower.New refuses the capacity flavor for it.
func (s *Scheduler) FollowerFlavor() string { return "fair" }

// ResourceCalculator is the calculator the fair scheduler's reservation
// system plans with (YARN's FairScheduler.getResourceCalculator, the
// memory-only DefaultResourceCalculator, whatever the queues' policies):
// the plan.Config.Calculator of the plans of this scheduler.
func (s *Scheduler) ResourceCalculator() berth.Calculator { return berth.MemoryCalculator{} }

// planShare is queue q's steady fair share, completed for planning: each
// resource type that some policy on the path from the root to q does not
// divide (the fair policy divides memory only; DRF every type) is set to
// the cluster's amount × the share's fraction of the cluster's memory.
// YARN leaves such a type at 0 (or at a value a previous policy computed),
// and the sharing policies check every type, so a plan sized by the raw
// share refuses every reservation asking for vcores. A policy without the
// TypeSharer fast path is taken to divide every type.
func (s *Scheduler) planShare(q *fsQueue) berth.Resource {
	share := q.SteadyFairShare
	types := s.cfg.ResourceTypes
	n := 2 + len(types) // types divided on the whole path
	env := s.env()
	for p := q.parent; p != nil; p = p.parent {
		if p.sharer == nil {
			continue
		}
		if k := p.sharer.ShareTypes(env, true); k >= 0 {
			n = min(n, k)
		}
	}
	if n == 0 || n >= 2+len(types) || s.cluster.Memory <= 0 {
		return share
	}
	f := min(max(float64(share.Memory)/float64(s.cluster.Memory), 0), 1)
	for t := n; t < 2+len(types); t++ {
		name := typeAt(types, t)
		share = share.With(name, int64(float64(component(&s.cluster, t, name))*f))
	}
	return share
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
// getReservationQueueResourceIfExists), completed as PlanResources is. name is a full path or the
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
	return Entitlement{Capacity: float32(q.Weight), MaxCapacity: 1}, s.planShare(q), nil
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
