package fair

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Moving an application to another queue (YARN's
// FairScheduler.moveApplication): the checks, then the move of its charges
// and of its place in the queues' lists.

// MoveApp moves an application to another existing leaf queue, with
// YARN's checks: for a runnable application, the target's (and its
// ancestors' up to the common ancestor) maxRunningApps and max share must
// admit it; a waiting application always moves and starts at once when
// the target, its ancestors and its user have room (YARN 3.x). A plan
// queue means its default reservation queue. It returns the target's full
// path.
func (s *Scheduler) MoveApp(appID, target string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return "", notFound("app.id", appID)
	}
	t, err := s.moveTarget(target)
	if err != nil {
		return "", err
	}
	if t == a.q {
		return t.path, nil
	}
	// As in YARN, only a runnable application is checked against the
	// target's limits; a waiting one (it holds nothing) always moves, and
	// runs at once if the target has room for it.
	runnable := a.runnable
	if runnable {
		if err := checkMoveLimits(a, t); err != nil {
			return "", err
		}
	}
	startNow := !runnable && s.canAppBeRunnable(t, a)
	old := a.q
	if err := s.moveCharges(a, t); err != nil {
		return "", err
	}
	switch {
	case runnable:
		moveRunnable(a, t)
	case startNow:
		s.startMoved(a, t)
	default:
		moveWaiting(a, t)
	}
	for p := t; p != nil; p = p.parent {
		p.Usage = p.Usage.Add(a.Usage)
	}
	s.touchApp(a)
	s.touchPath(old)
	s.touchPath(t)
	for c := a.live.head; c != nil; c = c.links[appList].next {
		c.Queue = t.path
	}
	if s.obs != nil && !startNow {
		s.emitApp(queue.AppMoved, a, old.path)
	}
	if runnable {
		s.updateRunnabilityOnRemovalFrom(old)
	}
	return t.path, nil
}

// moveTarget is the leaf a move to target goes to: the queue itself, or a
// plan's default reservation queue.
func (s *Scheduler) moveTarget(target string) (*fsQueue, error) {
	path := assureRoot(target)
	t := s.queues[path]
	if t != nil && t.plan {
		t = s.queues[defaultReservationQueue(t.path)]
	}
	if t == nil || !t.leaf {
		return nil, kindErr(berth.ErrNotFound, "queue", target, "Target queue %s not found or is not a leaf queue.", target)
	}
	return t, nil
}

// checkMoveLimits refuses to move a runnable application where the target
// or one of its ancestors below the common ancestor would pass its
// maxRunningApps or its max share (YARN's FairScheduler.verifyMoveDoesNotViolateConstraints).
func checkMoveLimits(a *app, t *fsQueue) error {
	lca := commonAncestor(a.q, t)
	for p := t; p != lca; p = p.parent {
		if p.numRunnable >= p.maxRunningApps() {
			return kindErr(berth.ErrCapacityExceeded, "queue", p.path, "Moving app attempt %s to queue %s would violate queue maxRunningApps constraints on queue %s", a.id, t.path, p.path)
		}
		if !p.Usage.Add(a.Usage).FitsIn(p.MaxShare) {
			return kindErr(berth.ErrCapacityExceeded, "queue", p.path, "Moving app attempt %s to queue %s would violate queue maxShare constraints on queue %s", a.id, t.path, p.path)
		}
	}
	return nil
}

// moveCharges moves a's charges from its queue to t: the tree's
// accounting, then the usage of the old path (the new path is charged
// once a is listed there) and the AM's usage.
func (s *Scheduler) moveCharges(a *app, t *fsQueue) error {
	old := a.q
	d := queue.Delta{Used: a.Usage, Reserved: a.reservedRes, PendingApps: 1}
	if a.runnable {
		d = queue.Delta{Used: a.Usage, Reserved: a.reservedRes, ActiveApps: 1}
	}
	s.flushApp(a) // the move checks and moves a's charges in the tree
	if err := queue.Move(old.tq, t.tq, a.user, d); err != nil {
		return err
	}
	for p := old; p != nil; p = p.parent {
		p.Usage = p.Usage.Sub(a.Usage)
	}
	if a.amRunning {
		old.amUsage = old.amUsage.Sub(a.amRes)
		t.amUsage = t.amUsage.Add(a.amRes)
	}
	return nil
}

// moveRunnable lists a running application under t, with the runnable
// counts of both paths.
func moveRunnable(a *app, t *fsQueue) {
	old := a.q
	old.runnableApps = slices.DeleteFunc(old.runnableApps, func(x *app) bool { return x == a })
	for p := old; p != nil; p = p.parent {
		p.numRunnable--
	}
	t.runnableApps = append(t.runnableApps, a)
	for p := t; p != nil; p = p.parent {
		p.numRunnable++
	}
	a.q = t
}

// startMoved moves a waiting application that t has room for and starts
// it there.
func (s *Scheduler) startMoved(a *app, t *fsQueue) {
	old := a.q
	old.nonRunnableApps = slices.DeleteFunc(old.nonRunnableApps, func(x *app) bool { return x == a })
	u := s.user(a.user)
	u.nonRunnable = slices.DeleteFunc(u.nonRunnable, func(x *app) bool { return x == a })
	a.q = t
	if s.obs != nil {
		s.emitApp(queue.AppMoved, a, old.path)
	}
	s.account(t, a.user, queue.Delta{PendingApps: -1, ActiveApps: 1})
	a.runnable = true
	t.runnableApps = append(t.runnableApps, a)
	s.trackRunnable(a)
	if s.obs != nil {
		s.emitApp(queue.AppActivated, a, "")
	}
}

// moveWaiting lists a waiting application among t's, in start order.
func moveWaiting(a *app, t *fsQueue) {
	old := a.q
	old.nonRunnableApps = slices.DeleteFunc(old.nonRunnableApps, func(x *app) bool { return x == a })
	t.nonRunnableApps = append(t.nonRunnableApps, a)
	slices.SortStableFunc(t.nonRunnableApps, byStart)
	a.q = t
}
