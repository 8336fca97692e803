package fair

import (
	"github.com/berthsched/berth"
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
	c, ok := s.live[id]
	if !ok {
		return notFound("container.id", id)
	}
	c.marked = false
	return nil
}
