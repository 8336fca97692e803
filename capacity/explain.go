package capacity

import (
	"github.com/berthsched/berth/queue"
)

// Why an application waits: the walk's reasons on demand, as YARN's
// ActivitiesManager serves its scheduler-activities and app-activities
// REST calls (package queue's ActivityLog keeps them), and a dry-run
// heartbeat (dryrun.go).

// Activity is one recorded step of the walk: a queue it did not enter, or
// one offer of a node to an application, with its outcome and reason.
type Activity = queue.Activity

// RecordHeartbeat records the next heartbeat of node nodeID — each queue
// the walk does not enter and each offer of the node to an application,
// with its outcome and reason — as YARN's scheduler-activities call does;
// "" records the next heartbeat of any node. [Scheduler.HeartbeatRecord]
// returns it, and an observer that implements queue.ActivityObserver
// receives its activities. An asynchronous round's attempt on a node
// (ScheduleRound) is recorded as its heartbeat would be. A multi-node
// walk (MultiNodePlacement) is recorded whole, its activities naming the
// candidate allocated or reserved on, and no node otherwise (YARN's
// EMPTY_NODE_ID): a heartbeat's walk as the heartbeat's node's record, a
// round's walk as the next heartbeat of any node (nodeID ""). Each
// activity carries the partition walked (Activity.Partition).
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
// containers) and, when the walk did not offer it the node though it is
// active with outstanding asks, one saying why (a queue's limit above it,
// the node's reservation or fullness, or the applications before it in
// the queues' order). "" keeps the attempts of every application the walk
// offers a node, without the activities of those it does not reach. keep
// 0 stops and forgets; keep is at most queue.MaxKeptActivities.
// An observer that implements queue.ActivityObserver receives the
// attempts kept and the queues the walk did not enter.
// Recording ends when the application leaves. An application waiting for
// activation is not offered nodes; the next one to start gets an attempt
// with queue.ReasonAMLimit each time the walk enters its queue.
func (s *Scheduler) RecordApp(appID string, keep int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, known := s.apps[appID]
	return s.acts.SelectApp(appID, keep, known)
}

// Explain returns the last n recorded attempts of application appID (n
// <= 0: every one kept), oldest first; none unless [Scheduler.RecordApp]
// asked for them. An application that waits shows, attempt by attempt,
// what held it back on each node: a queue's maximum capacity or headroom,
// its user limit, locality, delay scheduling, a node too small, full or
// reserved, the reservation rules, or the applications before it.
func (s *Scheduler) Explain(appID string, n int) ([]Activity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.apps[appID]; !ok {
		return nil, notFound("app.id", appID)
	}
	return s.acts.Attempts(appID, n), nil
}
