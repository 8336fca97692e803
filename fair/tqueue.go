package fair

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The scheduler mirrors its queues in a shared queue.Tree (package queue):
// the tree keeps the hierarchy both schedulers speak (paths, kinds, ACLs,
// ad-hoc and reservation queues) and the books (usage per queue and per
// user, pending and active applications), and answers ACL checks. The
// fair scheduler's own nodes (fsQueue) carry what only it needs — policies,
// weights, shares, runnable lists — and are the payload of the tree's
// queues.

type tqueue = queue.Queue[*fsQueue]

// kindOf is q's kind in the shared tree.
func kindOf(q *fsQueue) queue.Kind {
	switch {
	case q.plan:
		return queue.KindPlan
	case q.reservation:
		return queue.KindReservation
	case q.leaf:
		return queue.KindLeaf
	}
	return queue.KindParent
}

// shortName is the last part of a path.
func shortName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}

// treeConfig is the configured part of the live tree (queues the file
// names, and queues it named before a reload dropped them, until they are
// removed), in the shape package queue takes.
func (s *Scheduler) treeConfig() queue.Config[*fsQueue] {
	var build func(q *fsQueue) (queue.Config[*fsQueue], bool)
	build = func(q *fsQueue) (queue.Config[*fsQueue], bool) {
		c := queue.Config[*fsQueue]{Name: shortName(q.path), Settings: q, Parent: !q.leaf && !q.plan, Reservable: q.plan}
		if qc := s.alloc.Queue(q.path); qc != nil {
			c.SubmitACL, c.AdminACL = qc.SubmitACL, qc.AdministerACL
		}
		// A queue the shared tree holds as configured stays so while it
		// keeps its kind: package queue would refuse to drop it with
		// applications, and the scheduler only changes kinds when empty.
		include := q.inConfig || q.parent == nil ||
			(q.tq != nil && !q.tq.Removed() && !q.tq.IsDynamic() && q.tq.Kind() == kindOf(q) && q.tq.Path().String() == q.path)
		if !q.plan {
			for _, ch := range q.children {
				if cc, ok := build(ch); ok {
					c.Children = append(c.Children, cc)
					include = true
				}
			}
		}
		return c, include
	}
	c, _ := build(s.root)
	return c
}

// syncTree brings the shared tree in line with the live tree: dynamic
// queues that are gone are removed, the configured part is reconfigured,
// and new ad-hoc and reservation queues are added.
func (s *Scheduler) syncTree() {
	s.flushAccounts() // the tree's reconfiguration and removals check its books
	if s.tree == nil {
		t, err := queue.New(queue.TreeConfig[*fsQueue]{Root: s.treeConfig()})
		if err != nil {
			s.noteBug(err)
			return
		}
		s.tree = t
	}
	var all []*tqueue
	for tq := range s.tree.All() {
		all = append(all, tq)
	}
	for _, tq := range slices.Backward(all) {
		if tq.Removed() || !tq.IsDynamic() {
			continue
		}
		if mq := s.queues[tq.Path().String()]; mq != nil && kindOf(mq) == tq.Kind() {
			continue
		}
		var err error
		if tq.Kind() == queue.KindReservation {
			if tq.Path().String() == defaultReservationQueue(tq.Parent().Path().String()) {
				continue // the plan's default queue lives as long as the plan
			}
			err = s.tree.RemoveReservationQueue(tq)
		} else {
			err = s.tree.RemoveDynamicQueue(tq)
		}
		s.noteBug(err)
	}
	if _, err := s.tree.Reconfigure(s.treeConfig()); err != nil {
		s.noteBug(err)
	}
	var link func(q *fsQueue)
	link = func(q *fsQueue) {
		tq := s.tree.Queue(mustPath(q.path))
		if tq == nil && q.parent != nil && q.parent.tq != nil {
			var err error
			if q.reservation {
				tq, err = s.tree.AddReservationQueue(q.parent.tq, shortName(q.path), q)
			} else {
				tq, err = s.tree.AddDynamicQueue(q.parent.tq, shortName(q.path), kindOf(q), q)
			}
			s.noteBug(err)
		}
		if tq != nil {
			tq.Payload = q
		}
		q.tq = tq
		for _, c := range q.children {
			link(c)
		}
	}
	link(s.root)
}

func mustPath(p string) queue.Path {
	qp, _ := queue.ParsePath(p)
	return qp
}

// noteBug keeps the first internal inconsistency for Check to report; it
// never happens unless the two trees disagree.
func (s *Scheduler) noteBug(err error) {
	if err != nil && s.bug == nil {
		s.bug = fmt.Errorf("fair: shared queue tree out of step: %w", err)
	}
}

// account charges a delta to q's books in the shared tree at once. The
// deferred charges (accountApp) need not go first: they carry resources,
// these application counts, and each sum is checked on its own.
func (s *Scheduler) account(q *fsQueue, user string, d queue.Delta) {
	s.accountRef(q, user, nil, d)
}

// accountApp is account for a's containers and reservations, deferred:
// the change is added to a's uncharged amounts and the tree is charged by
// flushAccounts. The scheduler decides from its own mirror (fsQueue,
// app); the tree's books are read only by the tree's own checks and
// moves of an application, Snapshot's tree part, Check, and the tree's
// reconfiguration and queue removals, which charge what was deferred
// first (a move: the application's own). Between two such moments the
// changes of an application are summed, so one given many containers
// costs one tree update (O(depth), with its checks) instead of one per
// container. A sum the tree refuses is noted as a bug as the single
// changes would have been (the tree mirrors the scheduler, which never
// releases what it did not allocate).
func (s *Scheduler) accountApp(a *app, d queue.Delta) {
	if s.eagerAcct {
		s.accountRef(a.q, a.user, &a.uref, d)
		return
	}
	if !a.acctDirty {
		if len(s.acctDirty) > len(s.apps) {
			// Removed applications stay listed until a flush: bound the
			// list (and what it keeps alive) by the live ones, at an
			// amortized O(1) per charge, for hosts that rarely read.
			s.flushAccounts()
		}
		a.acctDirty = true
		s.acctDirty = append(s.acctDirty, a)
	}
	addRes(&a.acctUsed, &d.Used)
	if !d.Reserved.IsZero() {
		addRes(&a.acctReserved, &d.Reserved) // its line is cold: containers change only Used
	}
}

// addRes adds d to *r in place: memory and vcores alone when d has no
// extended types (Resource.Add then keeps r's as they are), as the shared
// tree's own accounting does; this runs for every container.
func addRes(r, d *berth.Resource) {
	if d.HasExtras() {
		*r = r.Add(*d)
		return
	}
	r.Memory += d.Memory
	r.VCores += d.VCores
}

// flushAccounts charges the tree with every application's deferred
// changes (accountApp), in the order of their first deferred change.
func (s *Scheduler) flushAccounts() {
	for i, a := range s.acctDirty {
		s.flushApp(a)
		a.acctDirty = false
		s.acctDirty[i] = nil
	}
	s.acctDirty = s.acctDirty[:0]
}

// flushApp charges the tree with a's deferred changes; a stays in
// s.acctDirty (flushAccounts then finds nothing to charge).
func (s *Scheduler) flushApp(a *app) {
	if !a.acctDirty {
		return
	}
	d := queue.Delta{Used: a.acctUsed, Reserved: a.acctReserved}
	a.acctUsed, a.acctReserved = berth.Resource{}, berth.Resource{}
	if !d.IsZero() {
		s.accountRef(a.q, a.user, &a.uref, d)
	}
}

func (s *Scheduler) accountRef(q *fsQueue, user string, ref *queue.UserRef[*fsQueue], d queue.Delta) {
	if q.tq == nil {
		s.noteBug(kindErr(berth.ErrInvalidState, "queue", q.path, "not in the shared tree"))
		return
	}
	s.noteBug(q.tq.UpdateRef(ref, user, d))
}

// checkTree compares the shared tree's books with the live tree.
func (s *Scheduler) checkTree() error {
	s.flushAccounts() // the tree's books are read below
	if s.bug != nil {
		return s.bug
	}
	for _, path := range sortedKeys(s.queues) {
		q := s.queues[path]
		if q.tq == nil || q.tq.Removed() || q.tq.Path().String() != path {
			return kindErr(berth.ErrInvalidState, "queue", path, "missing from the shared tree")
		}
		if !q.tq.Used().Equal(q.Usage) {
			return kindErr(berth.ErrInvalidState, "queue", path, "shared tree used %v, scheduler %v", q.tq.Used(), q.Usage)
		}
		if q.leaf && (q.tq.ActiveApps() != len(q.runnableApps) || q.tq.PendingApps() != len(q.nonRunnableApps)) {
			return kindErr(berth.ErrInvalidState, "queue", path, "shared tree apps %d+%d, scheduler %d+%d",
				q.tq.ActiveApps(), q.tq.PendingApps(), len(q.runnableApps), len(q.nonRunnableApps))
		}
	}
	// And the converse: no queue the scheduler dropped lingers there. (The
	// tree makes a plan's default queue with the plan; the scheduler may
	// make it only on the plan's first submission.)
	for tq := range s.tree.All() {
		path := tq.Path().String()
		mq := s.queues[path]
		if tq.Removed() || mq != nil && mq.tq == tq {
			continue
		}
		if tp := tq.Parent(); mq == nil && tp != nil {
			if p := s.queues[tp.Path().String()]; p != nil && p.plan && path == defaultReservationQueue(p.path) {
				continue
			}
		}
		return kindErr(berth.ErrInvalidState, "queue", path, "in the shared tree but not the scheduler's")
	}
	return nil
}
