package fair

import (
	"slices"

	"github.com/berthsched/berth"
)

// Update runs YARN's update thread once at the clock's time: ad-hoc queues
// without applications are removed, demands are recomputed bottom-up, the
// instantaneous fair shares top-down from the cluster resource, and — with
// Config.Preemption — the starvation of applications. Heartbeats call it
// by themselves every Config.UpdateInterval; hosts call it to see fresh
// shares at once.
func (s *Scheduler) Update() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.update(s.clock.Now())
}

func (s *Scheduler) update(now berth.Time) {
	s.updated, s.lastUpdate = true, now
	s.ordStale = true // demands and application weights change
	changed := s.retryTypeChanges()
	if s.removeEmptyDynamicQueues() || changed {
		s.recomputeSteady()
		s.syncTree()
	}
	s.updateDemand(s.root)
	s.root.FairShare = s.cluster
	s.recomputeShares(s.root)
	if s.shouldAttemptPreemption() {
		s.walkLeaves(s.root, func(q *fsQueue) { s.updateStarvedApps(q, now) })
	}
}

func (s *Scheduler) walkLeaves(q *fsQueue, f func(*fsQueue)) {
	if q.leaf {
		f(q)
		return
	}
	for _, c := range q.children {
		s.walkLeaves(c, f)
	}
}

// updateDemand recomputes demand (and application weights) bottom-up;
// a queue's demand is capped at its max share; a parent's keeps memory and
// vcores only, as YARN's getDemand returns.
func (s *Scheduler) updateDemand(q *fsQueue) {
	q.Active = q.numRunnable > 0
	var d berth.Resource
	if q.leaf {
		for _, list := range [][]*app{q.runnableApps, q.nonRunnableApps} {
			for _, a := range list {
				// Summed saturating: each application's pending demand
				// fits int64 (Allocate refuses asks that would not), but
				// a sum over applications may not.
				a.Demand = a.Usage.AddSat(a.asks.Pending())
				a.Weight = appWeight(a, s.cfg.SizeBasedWeight)
				d = d.AddSat(a.Demand)
			}
		}
	} else {
		for _, c := range q.children {
			s.updateDemand(c)
			d = d.AddSat(c.Demand)
		}
	}
	q.Demand = berth.ComponentwiseMin(d, q.MaxShare)
	if !q.leaf {
		// YARN's parent queue reports memory and vcores only.
		q.Demand = berth.New(q.Demand.Memory, q.Demand.VCores)
	}
}

// recomputeShares divides q's fair share among its children (or runnable
// applications) by its policy, top-down.
func (s *Scheduler) recomputeShares(q *fsQueue) {
	var ss []*Schedulable
	if q.leaf {
		ss = make([]*Schedulable, len(q.runnableApps))
		for i, a := range q.runnableApps {
			ss[i] = &a.Schedulable
		}
	} else {
		ss = make([]*Schedulable, len(q.children))
		for i, c := range q.children {
			ss[i] = &c.Schedulable
		}
	}
	s.divide(q, ss, q.FairShare, false)
	for _, c := range q.children {
		s.recomputeShares(c)
	}
}

// shouldAttemptPreemption: preemption on and the cluster busier than the
// utilization threshold.
func (s *Scheduler) shouldAttemptPreemption() bool {
	if !s.cfg.Preemption {
		return false
	}
	used := s.root.Usage
	u := max(ratio(used.Memory, s.cluster.Memory), ratio(used.VCores, s.cluster.VCores))
	return s.cfg.PreemptionUtilizationThreshold < u
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// updateStarvedApps is FSLeafQueue.updateStarvedApps (reference §4.13):
// fair-share starvation of the applications with pending demand in policy
// order, stopping at the first that is not starved (later ones keep their
// previous value, as in YARN), then the queue's min-share starvation
// distributed over the same applications.
func (s *Scheduler) updateStarvedApps(q *fsQueue, now berth.Time) {
	rc := q.policy.Calculator()
	var apps []*app
	for _, a := range q.runnableApps {
		// Applications in their post-preemption back-off keep the
		// starvation they had (YARN's fetchAppsWithDemand(false)).
		if !a.Demand.Sub(a.Usage).IsZero() && now >= a.nextStarvationCheck {
			apps = append(apps, a)
		}
	}
	env, pol := s.env(), q.order
	slices.SortFunc(apps, func(a, b *app) int {
		return pol.Compare(env, SchedulableView{&a.Schedulable}, SchedulableView{&b.Schedulable})
	})
	var fairTotal berth.Resource
	for _, a := range apps {
		threshold := a.FairShare.Mul(float64(q.fairShareThreshold))
		fairDemand := berth.ComponentwiseMin(threshold, a.Demand)
		starved := rc.Compare(s.cluster, a.Usage, fairDemand) < 0
		if !starved {
			a.lastTimeAtFairShare = now
		}
		a.fairStarvation = berth.None()
		if starved && now-a.lastTimeAtFairShare >= q.fairShareTimeout {
			a.fairStarvation = fairDemand.SubNonNegative(a.Usage)
		}
		if a.fairStarvation.IsZero() {
			break
		}
		fairTotal = fairTotal.Add(a.fairStarvation)
	}
	minStarv := berth.ComponentwiseMin(q.MinShare, q.Demand).SubNonNegative(q.Usage)
	if minStarv.IsZero() {
		q.lastAtMinShare = now
	}
	if now-q.lastAtMinShare < q.minShareTimeout {
		minStarv = berth.None()
	}
	pending := minStarv.SubNonNegative(fairTotal)
	for _, a := range apps {
		if pending.IsZero() {
			a.minStarvation = berth.None()
			continue
		}
		x := a.Demand.Sub(a.Usage).SubNonNegative(a.fairStarvation)
		if rc.Compare(s.cluster, x, pending) > 0 {
			x = x.SubNonNegative(pending)
			pending = berth.None()
		} else {
			pending = pending.SubNonNegative(x)
		}
		a.minStarvation = x
	}
}
