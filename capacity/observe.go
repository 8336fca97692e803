package capacity

import (
	"github.com/berthsched/berth/queue"
)

// Observer receives the scheduler's decisions (package queue's type,
// shared with package fair so that one observer serves either scheduler).
type Observer = queue.Observer

// SetObserver makes o receive the scheduler's decisions from now on; nil
// (untyped) removes it. o is called synchronously with the scheduler's
// lock held, in decision order: it must not call the scheduler back. See
// "Observing decisions" in the package documentation. Without an
// observer each decision point costs one nil check.
func (s *Scheduler) SetObserver(o Observer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.obs = o
	s.acts.SetObserver(o)
}

// The emit helpers build the event; callers test s.obs != nil first, so
// that a scheduler without an observer builds nothing.

func (s *Scheduler) emitEnded(c Container, st ExitStatus) {
	s.obs.ObserveContainer(queue.ContainerEvent{Kind: queue.ContainerEnded, Container: c, Status: st, Time: s.clock.Now()})
}

func (s *Scheduler) emitEndedAll(out []Ended) {
	for i := range out {
		s.emitEnded(out[i].Container, out[i].Status)
	}
}

func (s *Scheduler) emitApp(k queue.AppEventKind, a *app, from string) {
	s.obs.ObserveApp(queue.AppEvent{Kind: k, App: a.id, Queue: a.q.path, User: a.userName, From: from,
		Active: a.state == appActive && s.apps[a.id] == a, Time: s.clock.Now()})
}

func (s *Scheduler) emitQueue(k queue.QueueEventKind, path string, ent, prev Entitlement) {
	s.obs.ObserveQueue(queue.QueueEvent{Kind: k, Queue: path, Entitlement: ent, Previous: prev, Time: s.clock.Now()})
}

func (s *Scheduler) emitQueues(k queue.QueueEventKind, paths []string) {
	for _, p := range paths {
		s.emitQueue(k, p, Entitlement{}, Entitlement{})
	}
}
