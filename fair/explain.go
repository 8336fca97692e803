package fair

import (
	"bytes"
	"slices"

	"github.com/berthsched/berth/queue"
)

// Why an application waits: the walk's reasons on demand, as YARN's
// ActivitiesManager serves its scheduler-activities and app-activities
// REST calls (package queue's ActivityLog keeps them), and a dry-run
// heartbeat.

// Activity is one recorded step of the walk: a queue it did not enter, or
// one offer of a node to an application, with its outcome and reason.
type Activity = queue.Activity

// RecordHeartbeat records the next heartbeat of node nodeID — each queue
// the walk does not enter and each offer of the node to an application,
// with its outcome and reason — as YARN's scheduler-activities call does;
// "" records the next heartbeat of any node. [Scheduler.HeartbeatRecord]
// returns it, and an observer that implements queue.ActivityObserver
// receives its activities.
func (s *Scheduler) RecordHeartbeat(nodeID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, known := s.nodes[nodeID]
	return s.acts.SelectNode(nodeID, known)
}

// HeartbeatRecord returns the last recorded heartbeat of node nodeID (""
// the last recorded of any node) in walk order, or nil if none was
// recorded since the node joined.
func (s *Scheduler) HeartbeatRecord(nodeID string) []Activity {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.acts.NodeRecord(nodeID)
}

// RecordApp keeps the last keep attempts of application appID, as YARN's
// app-activities call does: each heartbeat records one activity per
// offer of a node to it (several when the heartbeat assigns several
// containers) and, when the walk did not offer it the node though it
// waits for containers, one saying why (a queue's limit above it, the
// node's reservation, or the applications before it in the queues'
// order). "" keeps the attempts of every application the walk offers a
// node, without the activities of those it does not reach. keep 0 stops
// and forgets; keep is at most queue.MaxKeptActivities.
// An observer that implements queue.ActivityObserver receives the
// attempts kept and the queues the walk did not enter. Recording ends
// when the application leaves.
func (s *Scheduler) RecordApp(appID string, keep int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, known := s.apps[appID]
	return s.acts.SelectApp(appID, keep, known)
}

// Explain returns the last n recorded attempts of application appID (n
// <= 0: every one kept), oldest first; none unless [Scheduler.RecordApp]
// asked for them. An application that waits shows, attempt by attempt,
// what held it back on each node: its queue's maximum, its AM share,
// locality, delay scheduling, a node too full or reserved, or the
// applications before it.
func (s *Scheduler) Explain(appID string, n int) ([]Activity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.apps[appID]; !ok {
		return nil, notFound("app.id", appID)
	}
	return s.acts.Attempts(appID, n), nil
}

// DryRun is what a heartbeat of a node would do now: the containers it
// would allocate and the walk's activities (package queue's).
type DryRun = queue.DryRun

// DryRun answers what node nodeID would get from a heartbeat now (with no
// container completed) without changing anything: it runs the heartbeat,
// recorded, on a copy of the scheduler made by SaveState and
// RestoreScheduler, so the answer is exactly the real heartbeat's if
// nothing happens in between, delay-scheduling counters and fair-share
// update included. It costs a snapshot and a restore, O(the scheduler's
// state): a diagnostic, not a planning primitive. Host policies and rules
// must not keep state of their own (the copy shares them).
func (s *Scheduler) DryRun(nodeID string) (DryRun, error) {
	c, err := s.copyOf(nodeID)
	if err != nil {
		return DryRun{}, err
	}
	c.acts.RecordNode(nodeID)
	als, err := c.Heartbeat(nodeID, nil)
	if err != nil {
		return DryRun{}, err
	}
	return DryRun{Allocations: als, Activities: c.acts.NodeRecord(nodeID)}, nil
}

// copyOf is a copy of the scheduler, which holds node nodeID.
func (s *Scheduler) copyOf(nodeID string) (*Scheduler, error) {
	s.mu.Lock()
	if _, ok := s.nodes[nodeID]; !ok {
		s.mu.Unlock()
		return nil, notFound("node.id", nodeID)
	}
	var buf bytes.Buffer
	err := s.saveState(&buf)
	env := s.copyEnv()
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return RestoreScheduler(&buf, env)
}

// copyEnv resolves the host policies and rules this scheduler holds, by
// the names its snapshot gives them, for a copy of it.
func (s *Scheduler) copyEnv() RestoreEnv {
	env := RestoreEnv{Clock: s.clock, Groups: s.cfg.Groups,
		Policies: &queue.Registry[SchedulingPolicy]{}, Rules: &queue.Registry[Rule]{}}
	addPolicy := func(p SchedulingPolicy) {
		if _, builtin := p.(builtinPolicy); p != nil && !builtin {
			_ = env.Policies.Register(p.Name(), p) // the first of a name, as the snapshot names them
		}
	}
	var walk func(q *QueueConfig)
	walk = func(q *QueueConfig) {
		addPolicy(q.SchedulingPolicy)
		for i := range q.Children {
			walk(&q.Children[i])
		}
	}
	walk(&s.alloc.Root)
	addPolicy(s.alloc.DefaultSchedulingPolicy)
	paths := make([]string, 0, len(s.queues))
	for p := range s.queues {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		addPolicy(s.queues[p].policy)
	}
	if pp := s.alloc.Placement; pp != nil {
		for i := range pp.Rules {
			for r := &pp.Rules[i]; r != nil; r = r.Parent {
				if r.Custom != nil {
					_ = env.Rules.Register(r.Custom.Name(), r.Custom)
				}
			}
		}
	}
	return env
}
