package capacity

import (
	"bytes"
	"slices"
	"strings"

	"github.com/berthsched/berth/queue"
)

// DryRun is what a heartbeat of a node would do now: the containers it
// would allocate and the walk's activities (package queue's).
type DryRun = queue.DryRun

// DryRun answers what node nodeID would get from a heartbeat now (with no
// container completed) without changing anything: it runs the heartbeat
// on a copy of the scheduler made by SaveState and RestoreScheduler, so
// the answer is exactly the real heartbeat's if nothing happens in
// between, delay-scheduling counters included. It costs a snapshot and a
// restore, O(the scheduler's state): a diagnostic, not a planning
// primitive. Host ordering policies must not keep state of their own (the
// copy shares them).
func (s *Scheduler) DryRun(nodeID string) (DryRun, error) {
	env, err := s.copyEnv(nodeID)
	if err != nil {
		return DryRun{}, err
	}
	var buf bytes.Buffer
	if err := s.SaveState(&buf); err != nil {
		return DryRun{}, err
	}
	c, err := RestoreScheduler(&buf, env)
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

// copyEnv is the RestoreEnv of a copy of the scheduler, which must hold
// node nodeID: its clock, groups and calculator, and the host ordering
// policies its queues use, by the names a snapshot gives them.
func (s *Scheduler) copyEnv(nodeID string) (RestoreEnv, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.nodes[nodeID]; !ok {
		return RestoreEnv{}, notFound("node.id", nodeID)
	}
	env := RestoreEnv{Clock: s.clock, Groups: s.cfg.Groups, Calculator: s.cfg.Calculator,
		AppOrderings: &AppOrderings{}, ChildOrderings: &ChildOrderings{}}
	add := func(st *QueueSettings) {
		if p := st.AppOrderingPolicy; p != nil && !isBuiltinApps(p) {
			_ = env.AppOrderings.Register(p.Name(), p) // the first of a name, as the snapshot names them
		}
		if p := st.ChildOrderingPolicy; p != nil && !isBuiltinKids(p) {
			_ = env.ChildOrderings.Register(p.Name(), p)
		}
	}
	var walk func(q *QueueConfig)
	walk = func(q *QueueConfig) {
		add(&q.Settings)
		for i := range q.Children {
			walk(&q.Children[i])
		}
	}
	walk(&s.cfg.Root)
	var runtime []*qnode
	eachQueue(s.root, func(q *qnode) { runtime = append(runtime, q) })
	slices.SortFunc(runtime, func(a, b *qnode) int { return strings.Compare(a.path, b.path) })
	for _, q := range runtime {
		add(q.set())
	}
	return env, nil
}

func isBuiltinApps(p AppOrderingPolicy) bool   { _, ok := p.(builtinApps); return ok }
func isBuiltinKids(p ChildOrderingPolicy) bool { _, ok := p.(builtinKids); return ok }
