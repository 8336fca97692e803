package capacity

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// An application leaves its queue: it finishes, is killed, or moves to
// another queue. detach is the part all three share.

// detach takes a out of its leaf, with its usage; the inverse of attach
// plus activation.
func (s *Scheduler) detach(a *app) {
	q, lf, u := a.q, a.q.leaf, a.u
	if a.state == appActive {
		if a.inSched {
			schedRemove(q, a)
		}
		s.addAppPending(q, u, a, true)
		lf.numActive--
		s.amUsage(q, u, a, true)
	} else if i := slices.Index(lf.pendingAct, a); i >= 0 {
		lf.pendingAct = slices.Delete(lf.pendingAct, i, i+1)
	}
	if a.hasPending() {
		s.userActiveApp(q, u, -1)
	}
	if a.lp != nil {
		s.chargeApp(q, u, a, true)
		lf.borrowed -= a.borrowed
	} else {
		if !a.used.IsZero() {
			s.charge(q, u, a.used.Neg(), false)
		}
		if !a.reserved.IsZero() {
			s.charge(q, u, a.reserved.Neg(), true)
		}
	}
	if i, ok := slices.BinarySearchFunc(lf.apps, a, bySeq); ok {
		lf.apps = slices.Delete(lf.apps, i, i+1)
	}
	s.untrackParallel(a)
	u.apps--
	if a.state == appActive {
		s.accountUser(q, u, queue.Delta{ActiveApps: -1})
	} else {
		s.accountUser(q, u, queue.Delta{PendingApps: -1})
	}
	if u.apps == 0 && u.used.IsZero() {
		lf.allWeights -= u.weight
		delete(lf.users, u.name)
	}
	a.state = appPending
}

// FinishApp ends an application normally: its live containers end as
// Killed, reservations are cancelled and waiting applications may start.
func (s *Scheduler) FinishApp(appID string) ([]Ended, error) {
	return s.removeApp(appID, queue.AppFinished)
}

// KillApp kills an application (YARN's kill); same effect as FinishApp.
func (s *Scheduler) KillApp(appID string) ([]Ended, error) {
	return s.removeApp(appID, queue.AppKilled)
}

// KillAppsInQueue kills every application of a leaf queue (YARN's
// killAllAppsInQueue), in submission order, and returns their containers.
func (s *Scheduler) KillAppsInQueue(queueName string) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, err := s.lookupQueue(queueName)
	if err != nil {
		return nil, err
	}
	if !q.isLeaf() {
		return nil, fieldErr(berth.ErrInvalidArgument, "queue", q.path, "%s is not a leaf queue", q.path)
	}
	victims := slices.Clone(q.leaf.apps) // removal edits the leaf's list
	var out []Ended
	for _, a := range victims {
		e, err := s.removeAppLocked(a.id, queue.AppKilled)
		if err != nil {
			return out, err
		}
		out = append(out, e...)
	}
	return out, nil
}

// removeApp removes an application; how is AppFinished or AppKilled (its
// containers end as Killed either way).
func (s *Scheduler) removeApp(appID string, how queue.AppEventKind) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeAppLocked(appID, how)
}

func (s *Scheduler) removeAppLocked(appID string, how queue.AppEventKind) ([]Ended, error) {
	a, ok := s.apps[appID]
	if !ok {
		return nil, notFound("app.id", appID)
	}
	var out []Ended
	for c := a.head; c != nil; {
		next := c.aNext
		out = append(out, Ended{Container: c.c, Status: Killed})
		s.releaseContainer(c)
		c = next
	}
	slices.SortFunc(out, func(x, y Ended) int { return cmpID(x.ID, y.ID) })
	if s.obs != nil {
		s.emitEndedAll(out)
	}
	for len(a.resv) > 0 {
		s.unreserve(a.resv[0])
	}
	a.asks.Clear()
	s.setPending(a, berth.Resource{})
	q, wasRunnable := a.q, a.runnable
	s.detach(a)
	delete(s.apps, appID)
	s.acts.ForgetApp(appID)
	if s.obs != nil {
		s.emitApp(how, a, "")
	}
	s.activate(q)
	if wasRunnable {
		s.runnableAfterRemoval(q, a.userName)
	}
	return out, nil
}

// MoveApp moves an application to another leaf queue (a plan queue means
// its default reservation queue), with its containers, reservations and
// asks. The target must accept the application as a submission would.
func (s *Scheduler) MoveApp(appID, target string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.apps[appID]
	if !ok {
		return "", notFound("app.id", appID)
	}
	q, err := s.lookupQueue(target)
	if err != nil {
		return "", berth.Wrap(err, "moving application", appID)
	}
	if q.kind == queue.KindPlan {
		q = s.byPath[q.path+"."+q.name+queue.DefaultReservationSuffix]
	}
	if !q.isLeaf() {
		return "", fieldErr(berth.ErrInvalidArgument, "queue", q.path, "The specified Queue: %s is not a Leaf Queue.", q.path)
	}
	if q == a.q {
		return q.path, nil
	}
	if !q.tq.CanSubmit(a.userName, s.groupSource(a.userName, a.groups)) {
		return "", fieldErr(berth.ErrPermissionDenied, "queue", q.path, "User %s does not have permission to move %s to queue %s", a.userName, a.id, q.path)
	}
	if err := s.validateSubmit(q, a.id, a.userName); err != nil {
		return "", err
	}
	if err := s.checkMovePartitions(a, q); err != nil {
		return "", err
	}
	src := a.q
	s.detach(a)
	s.attach(q, a)
	for c := a.head; c != nil; c = c.aNext {
		c.c.Queue = q.path
	}
	if s.obs != nil {
		s.emitApp(queue.AppMoved, a, src.path)
	}
	s.activate(src)
	s.activate(q)
	return q.path, nil
}
