package fair

import (
	"container/heap"
	"slices"

	"github.com/berthsched/berth/queue"
)

// The max-running-apps enforcement (YARN's MaxRunningAppsEnforcer): an
// application runs only while its user and its leaf and every ancestor are
// below their maxRunningApps; others wait, and a finishing application
// lets the earliest-started waiting ones run.

// userApps tracks a user's runnable count and waiting applications.
type userApps struct {
	runnable    int
	nonRunnable []*app
}

// user is name's record, made on first use.
func (s *Scheduler) user(name string) *userApps {
	u := s.users[name]
	if u == nil {
		u = &userApps{}
		s.users[name] = u
	}
	return u
}

func (s *Scheduler) canAppBeRunnable(q *fsQueue, a *app) bool {
	n := 0
	if u := s.users[a.user]; u != nil {
		n = u.runnable
	}
	if n >= s.alloc.UserMaxRunningApps(a.user) {
		return false
	}
	for p := q; p != nil; p = p.parent {
		if p.numRunnable >= p.maxRunningApps() {
			return false
		}
	}
	return true
}

func (s *Scheduler) trackRunnable(a *app) {
	s.touchApp(a)
	for p := a.q; p != nil; p = p.parent {
		p.numRunnable++
	}
	s.user(a.user).runnable++
}

func (s *Scheduler) untrackRunnable(a *app) {
	s.touchApp(a)
	for p := a.q; p != nil; p = p.parent {
		p.numRunnable--
	}
	s.user(a.user).runnable--
}

// updateRunnabilityOnRemoval lets waiting applications run after a
// runnable application a left leaf q.
func (s *Scheduler) updateRunnabilityOnRemoval(a *app, q *fsQueue) {
	var highest *fsQueue
	for p := q; p != nil; p = p.parent {
		if p.numRunnable == p.maxRunningApps()-1 {
			highest = p
		}
	}
	var lists [][]*app
	if highest != nil {
		lists = gatherWaiting(highest, lists)
	}
	n := 0
	if u := s.users[a.user]; u != nil {
		n = u.runnable
	}
	if n == s.alloc.UserMaxRunningApps(a.user)-1 {
		if u := s.users[a.user]; u != nil && len(u.nonRunnable) > 0 {
			lists = append(lists, u.nonRunnable)
		}
	}
	s.makeRunnable(lists, len(lists))
}

// updateRunnabilityOnRemovalFrom is the queue half of the above, used when
// an application moves away from q.
func (s *Scheduler) updateRunnabilityOnRemovalFrom(q *fsQueue) {
	var highest *fsQueue
	for p := q; p != nil; p = p.parent {
		if p.numRunnable == p.maxRunningApps()-1 {
			highest = p
		}
	}
	if highest != nil {
		lists := gatherWaiting(highest, nil)
		s.makeRunnable(lists, len(lists))
	}
}

// updateRunnabilityOnReload scans every waiting application (limits may
// have risen) with no cap.
func (s *Scheduler) updateRunnabilityOnReload() {
	lists := gatherWaiting(s.root, nil)
	s.makeRunnable(lists, int(^uint(0)>>1))
}

// gatherWaiting collects the waiting lists of the leaves below q whose path
// has room.
func gatherWaiting(q *fsQueue, lists [][]*app) [][]*app {
	if q.numRunnable >= q.maxRunningApps() {
		return lists
	}
	if q.leaf {
		if len(q.nonRunnableApps) > 0 {
			lists = append(lists, slices.Clone(q.nonRunnableApps))
		}
		return lists
	}
	for _, c := range q.children {
		lists = gatherWaiting(c, lists)
	}
	return lists
}

// makeRunnable walks the lists merged by start time and starts every
// application that may now run, at most limit of them.
func (s *Scheduler) makeRunnable(lists [][]*app, limit int) {
	it := newStartTimeIterator(lists)
	var started []*app
	var prev *app
	for {
		a := it.next()
		if a == nil {
			break
		}
		if a == prev || a.runnable {
			continue
		}
		prev = a
		if s.canAppBeRunnable(a.q, a) {
			s.account(a.q, a.user, queue.Delta{PendingApps: -1, ActiveApps: 1})
			a.runnable = true
			s.trackRunnable(a)
			a.q.runnableApps = append(a.q.runnableApps, a)
			started = append(started, a)
			if s.obs != nil {
				s.emitApp(queue.AppActivated, a, "")
			}
			if len(started) >= limit {
				break
			}
		}
	}
	for _, a := range started {
		a.q.nonRunnableApps = slices.DeleteFunc(a.q.nonRunnableApps, func(x *app) bool { return x == a })
		u := s.user(a.user)
		u.nonRunnable = slices.DeleteFunc(u.nonRunnable, func(x *app) bool { return x == a })
	}
}

// startTimeIterator merges lists sorted by start time (YARN's
// MultiListStartTimeIterator); ties go to the earlier submission.
type startTimeIterator struct {
	lists [][]*app
	pos   []int
	h     listHeap
}

type listHeap struct {
	it  *startTimeIterator
	idx []int
}

// Len, Less, Swap, Push and Pop implement heap.Interface over the heads of
// the lists.
func (h listHeap) Len() int { return len(h.idx) }

// Less orders list heads by start time, then submission, then list.
func (h listHeap) Less(i, j int) bool {
	a := h.it.lists[h.idx[i]][h.it.pos[h.idx[i]]]
	b := h.it.lists[h.idx[j]][h.it.pos[h.idx[j]]]
	if c := byStart(a, b); c != 0 {
		return c < 0
	}
	return h.idx[i] < h.idx[j]
}

// Swap swaps two heads.
func (h listHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }

// Push adds a list index.
func (h *listHeap) Push(x any) { h.idx = append(h.idx, x.(int)) }

// Pop removes the last list index.
func (h *listHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

func newStartTimeIterator(lists [][]*app) *startTimeIterator {
	it := &startTimeIterator{lists: lists, pos: make([]int, len(lists))}
	it.h.it = it
	for i, l := range lists {
		if len(l) > 0 {
			it.h.idx = append(it.h.idx, i)
		}
	}
	heap.Init(&it.h)
	return it
}

func (it *startTimeIterator) next() *app {
	if it.h.Len() == 0 {
		return nil
	}
	i := it.h.idx[0]
	a := it.lists[i][it.pos[i]]
	it.pos[i]++
	if it.pos[i] >= len(it.lists[i]) {
		heap.Pop(&it.h)
	} else {
		heap.Fix(&it.h, 0)
	}
	return a
}
