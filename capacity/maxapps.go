package capacity

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/berthsched/berth/queue"
)

// max-parallel-apps, as YARN 3.x's CSMaxRunningAppsEnforcer enforces it.
//
// A queue's limit caps the runnable applications of its subtree, a
// user's (user.max-parallel-apps, user.<name>.max-parallel-apps) the
// user's across the cluster. A submission past a limit is accepted (it
// counts towards maximum-applications) but is not runnable: it waits,
// neither pending activation nor active, in its leaf. When a runnable
// application ends, the highest queue above it that was at its limit
// (and the user, when at theirs) has a free slot: the waiting
// applications under that queue and of that user are tried in
// submission-time order, and as many become runnable as there were lists
// to try (YARN's updateRunnabilityOnAppRemoval), each then waiting for
// activation like a new submission. A reconfiguration tries every waiting
// application of the queues with room (updateRunnabilityOnReload).
// Moving an application keeps it runnable or waiting.

// maxParallel is q's effective limit; math.MaxInt for none. Reservation
// queues have no configuration of their own: the scheduler-wide value.
func (s *Scheduler) maxParallel(q *qnode) int {
	v := q.set().MaxParallelApps
	if v < 0 || q.kind == queue.KindReservation {
		v = s.cfg.MaxParallelApps
	}
	if v < 0 {
		return math.MaxInt
	}
	return v
}

// userMaxParallel is the user's effective limit; math.MaxInt for none.
func (s *Scheduler) userMaxParallel(name string) int {
	v, ok := s.cfg.UserMaxParallelAppsFor[name]
	if !ok {
		v = s.cfg.UserMaxParallelApps
	}
	if v < 0 {
		return math.MaxInt
	}
	return v
}

// canRun is checkRunnabilityWithUpdate: neither the user nor any queue
// from leaf q up is at its limit.
func (s *Scheduler) canRun(q *qnode, userName string) bool {
	if s.userRunnable[userName] >= s.userMaxParallel(userName) {
		return false
	}
	for n := q; n != nil; n = n.parent {
		if n.runnable >= s.maxParallel(n) {
			return false
		}
	}
	return true
}

// trackParallel counts a, just attached to its leaf, as runnable in its
// queues and for its user, or lists it as waiting.
func (s *Scheduler) trackParallel(a *app) {
	if a.runnable {
		for n := a.q; n != nil; n = n.parent {
			n.runnable++
		}
		if s.userRunnable == nil {
			s.userRunnable = map[string]int{}
		}
		s.userRunnable[a.userName]++
		return
	}
	lf := a.q.leaf
	i, _ := slices.BinarySearchFunc(lf.waiting, a, bySeq)
	lf.waiting = slices.Insert(lf.waiting, i, a)
	a.u.waiting++
	if s.userWaiting == nil {
		s.userWaiting = map[string][]*app{}
	}
	w := s.userWaiting[a.userName]
	i, _ = slices.BinarySearchFunc(w, a, bySeq)
	s.userWaiting[a.userName] = slices.Insert(w, i, a)
}

// untrackParallel undoes trackParallel for a, about to leave its leaf.
func (s *Scheduler) untrackParallel(a *app) {
	if a.runnable {
		for n := a.q; n != nil; n = n.parent {
			n.runnable--
		}
		if s.userRunnable[a.userName]--; s.userRunnable[a.userName] == 0 {
			delete(s.userRunnable, a.userName)
		}
		return
	}
	lf := a.q.leaf
	if i, ok := slices.BinarySearchFunc(lf.waiting, a, bySeq); ok {
		lf.waiting = slices.Delete(lf.waiting, i, i+1)
	}
	a.u.waiting--
	w := s.userWaiting[a.userName]
	if i, ok := slices.BinarySearchFunc(w, a, bySeq); ok {
		w = slices.Delete(w, i, i+1)
	}
	if len(w) == 0 {
		delete(s.userWaiting, a.userName)
	} else {
		s.userWaiting[a.userName] = w
	}
}

// runnableAfterRemoval is updateRunnabilityOnAppRemoval for a runnable
// application of user userName that just left leaf q.
func (s *Scheduler) runnableAfterRemoval(q *qnode, userName string) {
	var highest *qnode
	for n := q; n != nil; n = n.parent {
		if lim := s.maxParallel(n); lim != math.MaxInt && n.runnable == lim-1 {
			highest = n
		}
	}
	var lists [][]*app
	if highest != nil {
		lists = s.gatherWaiting(highest, lists)
	}
	if lim := s.userMaxParallel(userName); lim != math.MaxInt && s.userRunnable[userName] == lim-1 {
		if w := s.userWaiting[userName]; len(w) > 0 {
			lists = append(lists, slices.Clone(w))
		}
	}
	s.makeRunnable(lists, len(lists))
}

// runnableAfterReload is updateRunnabilityOnReload.
func (s *Scheduler) runnableAfterReload() {
	s.makeRunnable(s.gatherWaiting(s.root, nil), math.MaxInt)
}

// gatherWaiting collects the waiting lists of the leaves under q that
// have room, through queues that have room.
func (s *Scheduler) gatherWaiting(q *qnode, lists [][]*app) [][]*app {
	if q.runnable >= s.maxParallel(q) {
		return lists
	}
	if q.leaf != nil {
		if len(q.leaf.waiting) > 0 {
			lists = append(lists, slices.Clone(q.leaf.waiting))
		}
		return lists
	}
	for _, c := range q.children {
		lists = s.gatherWaiting(c, lists)
	}
	return lists
}

// makeRunnable tries the waiting applications of lists by submission
// time (then submission order), makes runnable those that now may run,
// at most limit of them, and activates their leaves.
func (s *Scheduler) makeRunnable(lists [][]*app, limit int) {
	var all []*app
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortStableFunc(all, func(x, y *app) int {
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		return cmpSeq(x.seq, y.seq)
	})
	done := 0
	var prev *app
	var leaves []*qnode
	for _, a := range all {
		if a == prev || a.runnable || s.apps[a.id] != a {
			continue
		}
		prev = a
		if !s.canRun(a.q, a.userName) {
			continue
		}
		s.untrackParallel(a)
		a.runnable = true
		s.trackParallel(a)
		insertPending(a.q.leaf, a)
		if !slices.Contains(leaves, a.q) {
			leaves = append(leaves, a.q)
		}
		if done++; done >= limit {
			break
		}
	}
	for _, q := range leaves {
		s.activate(q)
	}
}

// checkParallel verifies the runnable counts and waiting lists against
// the applications (Check).
func (s *Scheduler) checkParallel() error {
	runnable := map[*qnode]int{}
	users := map[string]int{}
	waiting := map[*qnode]int{}
	for _, a := range s.apps {
		if a.runnable {
			for n := a.q; n != nil; n = n.parent {
				runnable[n]++
			}
			users[a.userName]++
		} else {
			waiting[a.q]++
			if a.state == appActive || slices.Contains(a.q.leaf.pendingAct, a) {
				return fmt.Errorf("app %s waits for a parallel slot but is pending or active", a.id)
			}
		}
	}
	for _, p := range sortedKeys(s.byPath) {
		q := s.byPath[p]
		if q.runnable != runnable[q] {
			return fmt.Errorf("queue %s counts %d runnable applications, has %d", p, q.runnable, runnable[q])
		}
		if q.leaf != nil && len(q.leaf.waiting) != waiting[q] {
			return fmt.Errorf("leaf %s lists %d waiting applications, has %d", p, len(q.leaf.waiting), waiting[q])
		}
	}
	for _, u := range sortedKeys(users) {
		if s.userRunnable[u] != users[u] {
			return fmt.Errorf("user %s counts %d runnable applications, has %d", u, s.userRunnable[u], users[u])
		}
	}
	if len(s.userRunnable) != len(users) {
		return fmt.Errorf("%d users counted runnable, %d have runnable applications", len(s.userRunnable), len(users))
	}
	return nil
}
