package queue

import (
	"slices"

	"github.com/berthsched/berth"
)

// Diff is what a [Tree.Reconfigure] changed, each list sorted by
// [Path.Compare].
type Diff struct {
	// Added are the queues that did not exist before (including the
	// default reservation queue of a newly reservable queue).
	Added []Path
	// Removed are the queues that no longer exist (including dynamic
	// reservation queues whose plan queue went away).
	Removed []Path
	// Changed are surviving queues whose configuration (kind, capacities,
	// state, ACLs, and Settings when [TreeConfig.SettingsEqual] is set) or
	// derived values (absolute capacities, effective state) changed,
	// including dynamic queues re-derived from a changed parent and ad-hoc
	// queues the configuration now names.
	Changed []Path
}

// IsEmpty reports whether nothing changed.
func (d Diff) IsEmpty() bool { return len(d.Added)+len(d.Removed)+len(d.Changed) == 0 }

// Reconfigure atomically replaces the configuration: it builds and
// validates a new tree from cfg, checks that every queue that would
// disappear (or turn from a leaf into a parent) is idle, then installs it
// and reports the differences. On any error the tree is unchanged.
//
// Queues whose path survives keep their identity (*Queue pointer), their
// accounting and — through [TreeConfig.Merge] — their payload. Dynamic
// reservation queues survive as long as their plan queue stays reservable.
// A queue that holds applications or usage cannot be removed or converted
// from a leaf: such a configuration is refused with an *Error of kind
// berth.ErrInvalidState naming the queue. With
// [TreeConfig.RequireStoppedToRemove] the queue must also be STOPPED.
func (t *Tree[T]) Reconfigure(cfg Config[T]) (Diff, error) {
	nt, err := build(cfg, &t.opts)
	if err != nil {
		return Diff{}, err
	}
	var diff Diff
	survive := make(map[*Queue[T]]bool, len(t.byPath))
	removed, err := decideSurvivors(t, nt, survive, &diff)
	if err != nil {
		return Diff{}, err
	}
	target := make(map[Path]*Queue[T], len(nt.byPath))
	adopted := make(map[*Queue[T]]bool)
	mapTargets(t, nt, survive, target, adopted, &diff)

	// Commit: nothing below can fail. install gives each new path its
	// node, top down. It stays a closure building kids locally: handing the
	// slice to a helper costs the compiler's stack-backed append, one more
	// allocation per parent (5339 to 5672 allocs per reconfigure).
	for _, q := range removed {
		q.removed = true
	}
	var install func(nq, parent *Queue[T]) *Queue[T]
	install = func(nq, parent *Queue[T]) *Queue[T] {
		q := target[nq.path]
		oldKids := q.children
		if q != nq {
			t.takeConfig(q, nq)
		}
		q.parent = parent
		var kids []*Queue[T]
		for _, c := range nq.children {
			if target[c.path] != nil {
				kids = append(kids, install(c, q))
			}
		}
		if q != nq {
			for _, d := range oldKids {
				if followsParent(q, d, survive, adopted, &diff) {
					kids = append(kids, d)
				}
			}
		}
		q.children = kids
		return q
	}
	t.root = install(nt.root, nil)
	t.reweighAll()
	t.index()
	for _, l := range [][]Path{diff.Added, diff.Removed, diff.Changed} {
		slices.SortFunc(l, Path.Compare)
	}
	return diff, nil
}

// decideSurvivors is Reconfigure's first step: which old queues survive
// into the new tree nt, refusing before anything is touched when a queue
// that would go (or turn from a leaf into a parent) is busy. Parents are
// decided before their children. It returns the queues to remove and
// lists them in diff.Removed.
func decideSurvivors[T any](t, nt *Tree[T], survive map[*Queue[T]]bool, diff *Diff) ([]*Queue[T], error) {
	var removed []*Queue[T]
	for old := range t.All() {
		if !survives(old, nt, survive) {
			if err := t.checkIdle(old, "cannot be removed"); err != nil {
				return nil, err
			}
			removed = append(removed, old)
			diff.Removed = append(diff.Removed, old.path)
			continue
		}
		survive[old] = true
		if old.kind == KindLeaf && !kindAfter(old, nt).IsLeaf() {
			if err := t.checkIdle(old, "cannot be converted to a parent queue"); err != nil {
				return nil, err
			}
		}
	}
	return removed, nil
}

// survives reports whether old keeps its place in the new tree nt: root
// always, a reservation queue while its parent stays a plan, a queue the
// configuration names (or an ad-hoc queue it adopts), a dynamic queue
// while its parent survives as a parent.
func survives[T any](old *Queue[T], nt *Tree[T], survive map[*Queue[T]]bool) bool {
	nq := nt.byPath[old.path]
	switch {
	case old.parent == nil:
		return true
	case old.kind == KindReservation:
		return survive[old.parent] && old.parent.kind == KindPlan && kindAfter(old.parent, nt) == KindPlan
	case nq != nil && nq.kind != KindReservation:
		return true
	case old.dynamic:
		return survive[old.parent] && kindAfter(old.parent, nt) == KindParent
	}
	return false
}

// kindAfter is the kind a surviving old queue will have in the new tree.
func kindAfter[T any](old *Queue[T], nt *Tree[T]) Kind {
	if nq := nt.byPath[old.path]; nq != nil && nq.kind != KindReservation {
		return nq.kind
	}
	return old.kind
}

// mapTargets is Reconfigure's second step: the node that will hold each
// new path, the surviving old queue (identity kept) or the freshly built
// one, with the added and changed paths listed in diff.
func mapTargets[T any](t, nt *Tree[T], survive map[*Queue[T]]bool, target map[Path]*Queue[T], adopted map[*Queue[T]]bool, diff *Diff) {
	for nq := range nt.All() {
		old := t.byPath[nq.path]
		switch {
		case old != nil && survive[old] && old.kind != KindReservation:
			if old.dynamic || t.changed(old, nq) {
				diff.Changed = append(diff.Changed, nq.path)
			}
			target[nq.path] = old
			adopted[old] = true
		case old != nil && survive[old] && nq.kind == KindReservation:
			// the surviving plan keeps its own default queue
		default:
			target[nq.path] = nq
			diff.Added = append(diff.Added, nq.path)
		}
	}
}

// takeConfig gives a surviving queue q the configuration and payload of
// its freshly built counterpart nq.
func (t *Tree[T]) takeConfig(q, nq *Queue[T]) {
	q.copyConfig(nq)
	q.dynamic = false
	if t.opts.Merge != nil {
		q.Payload = t.opts.Merge(q.path, q.Payload, nq.Payload)
	} else {
		q.Payload = nq.Payload
	}
}

// followsParent reports whether d, an old child of the surviving queue q,
// stays under it: a surviving dynamic child (reservation or ad-hoc) that no
// configuration adopted follows its parent, in its old order. It is
// re-derived from q and listed as changed when its derived values moved.
func followsParent[T any](q, d *Queue[T], survive, adopted map[*Queue[T]]bool, diff *Diff) bool {
	if !survive[d] || adopted[d] {
		return false
	}
	d.parent = q
	absCap, absMax, stopped := d.absCap, d.absMax, d.stopped
	d.rederive()
	if absCap != d.absCap || absMax != d.absMax || stopped != d.stopped {
		diff.Changed = append(diff.Changed, d.path)
	}
	return true
}

// checkIdle refuses to drop or convert a busy queue.
func (t *Tree[T]) checkIdle(q *Queue[T], what string) error {
	ps := q.path.s
	if q.acct.Apps() > 0 {
		return &Error{QueuePath: ps, Field: "applications", Value: q.acct.Apps(),
			Reason: "queue has applications and " + what, Kind: berth.ErrInvalidState}
	}
	if !q.acct.IsZero() {
		return &Error{QueuePath: ps, Field: "used", Value: q.acct.Used,
			Reason: "queue has resources accounted and " + what, Kind: berth.ErrInvalidState}
	}
	if t.opts.RequireStoppedToRemove && !q.dynamic && q.State() != StateStopped {
		return &Error{QueuePath: ps, Field: "state", Value: q.State(),
			Reason: "queue is not in STOPPED state and " + what, Kind: berth.ErrInvalidState}
	}
	return nil
}

// changed reports whether a surviving queue's configuration or derived
// values differ.
func (t *Tree[T]) changed(old, nq *Queue[T]) bool {
	if old.kind != nq.kind || !old.capacity.Equal(nq.capacity) || !old.maxCapacity.Equal(nq.maxCapacity) ||
		old.capFrac != nq.capFrac || old.maxFrac != nq.maxFrac || old.absCap != nq.absCap || old.absMax != nq.absMax ||
		old.confState != nq.confState || old.stopped != nq.stopped ||
		old.submitSet != nq.submitSet || old.adminSet != nq.adminSet ||
		!old.submitACL.Equal(nq.submitACL) || !old.adminACL.Equal(nq.adminACL) || old.forcedParent != nq.forcedParent {
		return true
	}
	return t.opts.SettingsEqual != nil && !t.opts.SettingsEqual(old.Payload, nq.Payload)
}

// copyConfig copies configuration and derived values, not accounting.
func (q *Queue[T]) copyConfig(n *Queue[T]) {
	q.kind = n.kind
	q.capacity, q.maxCapacity = n.capacity, n.maxCapacity
	q.capFrac, q.maxFrac, q.absCap, q.absMax = n.capFrac, n.maxFrac, n.absCap, n.absMax
	q.confState, q.stopped = n.confState, n.stopped
	q.submitACL, q.adminACL = n.submitACL, n.adminACL
	q.submitSet, q.adminSet = n.submitSet, n.adminSet
	q.forcedParent = n.forcedParent
}
