package fair

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// PendingAsks returns the application's asks with containers outstanding,
// by request priority (the most important first) and, within a priority,
// the ANY ask, then rack asks, then host asks, each by name. A preemption
// policy reads them to learn what a starved application waits for and
// where (YARN's getAllResourceRequests).
func (s *Scheduler) PendingAsks(appID string) ([]Ask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return nil, notFound("app.id", appID)
	}
	var out []Ask
	for _, k := range a.asks.Keys() {
		out = k.AppendAsks(out)
	}
	return out, nil
}

// PreemptionTriggered tells the scheduler that a preemption policy acted
// for the application: until the clock reaches until, the update leaves
// the application out of its queue's starvation computation (it keeps the
// starvation it had), as YARN's FSAppAttempt.preemptionTriggered does so
// that freed resources have time to reach it.
func (s *Scheduler) PreemptionTriggered(appID string, until berth.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return notFound("app.id", appID)
	}
	a.nextStarvationCheck = until
	return nil
}

// UnmarkForPreemption clears the flag [Scheduler.MarkForPreemption] set:
// the preemption policy no longer needs the container (the application it
// was chosen for has gone or been served), so it may run on and be chosen
// again later. YARN never needs this because its timer always kills.
func (s *Scheduler) UnmarkForPreemption(id ContainerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.live.Get(id)
	if !ok {
		return notFound("container.id", id)
	}
	c.marked = false
	return nil
}

// ReservePreempted records that res is being preempted on the node for
// the starved application (YARN's addContainersForPreemption): as the
// victims end, the node's heartbeats offer the freed room to that
// application first, before the ordinary walk, until it has received res
// there, stopped, or is no longer starved (below its fair share or
// min-share starved).
func (s *Scheduler) ReservePreempted(nodeID, appID string, res berth.Resource) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reservePreempted(nodeID, appID, res)
}

// MarkForPreemptionOn is [Scheduler.MarkForPreemption] of each of ids (on
// the node nodeID) followed by [Scheduler.ReservePreempted] of res there
// for appID, under one lock, finding the containers by id:
// a preemption round marking thousands of containers calls it once per
// victim set. A container no longer live is skipped (MarkForPreemption's
// not-found); the error is ReservePreempted's.
func (s *Scheduler) MarkForPreemptionOn(nodeID, appID string, ids []ContainerID, res berth.Resource) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		// The index finds the container on whichever node it is (a
		// node's containers are a subset of it).
		if c, ok := s.live.Get(id); ok {
			c.marked = true
		}
	}
	return s.reservePreempted(nodeID, appID, res)
}

func (s *Scheduler) reservePreempted(nodeID, appID string, res berth.Resource) error {
	n, ok := s.nodes[nodeID]
	if !ok {
		return notFound("node.id", nodeID)
	}
	a, ok := s.apps[appID]
	if !ok {
		return notFound("app.id", appID)
	}
	if res.AnyNegative() {
		return berth.InvalidField("resource", res, "must not be negative")
	}
	for _, p := range n.preempted {
		if p.app == a {
			p.res = p.res.Add(res)
			return nil
		}
	}
	n.preempted = append(n.preempted, &preemptedFor{app: a, res: res})
	return nil
}

// isStarved is FSAppAttempt.isStarved: below its fair share under its
// queue's policy, or min-share starved.
func (s *Scheduler) isStarved(a *app) bool {
	return a.q.policy.Calculator().Compare(s.cluster, a.Usage, a.FairShare) < 0 || !a.minStarvation.IsZero()
}

// assignPreempted is step 1 of YARN's attemptScheduling: the node's
// freed room goes to the applications it was preempted for, in order,
// each as long as it takes containers.
func (s *Scheduler) assignPreempted(t *attempt, out []Allocation) []Allocation {
	n := t.n
	if len(n.preempted) == 0 {
		return out
	}
	keep := n.preempted[:0]
	for _, p := range n.preempted {
		if s.apps[p.app.id] == p.app && !p.res.IsZero() && s.isStarved(p.app) {
			keep = append(keep, p)
		}
	}
	clear(n.preempted[len(keep):])
	n.preempted = keep
	for _, p := range slices.Clone(n.preempted) {
		for !p.res.IsZero() && s.apps[p.app.id] == p.app {
			prop := t.app(p.app)
			if prop.Outcome == queue.Skipped {
				break
			}
			al, ok := s.commit(t, prop)
			if !ok || al.Resource.IsZero() { // a zero-size container would pay nothing back
				break
			}
			out = append(out, al) // allocate paid the debt back
		}
	}
	return out
}

// payPreempted reduces what n owes a for an allocation of res there.
func (n *node) payPreempted(a *app, res berth.Resource) {
	for i, p := range n.preempted {
		if p.app == a {
			p.res = p.res.Sub(berth.ComponentwiseMin(p.res, res))
			if p.res.IsZero() {
				n.preempted = slices.Delete(n.preempted, i, i+1)
			}
			return
		}
	}
}
