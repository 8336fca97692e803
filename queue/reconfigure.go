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

	// 1. Decide which old queues survive, and refuse, before touching
	// anything. Parents are decided before their children.
	survive := make(map[*Queue[T]]bool, len(t.byPath))
	newKind := func(old *Queue[T]) Kind { // kind a surviving old queue will have
		if nq := nt.byPath[old.path]; nq != nil && nq.kind != KindReservation {
			return nq.kind
		}
		return old.kind
	}
	var removed []*Queue[T]
	for old := range t.All() {
		nq := nt.byPath[old.path]
		ok := false
		switch {
		case old.parent == nil:
			ok = true
		case old.kind == KindReservation:
			ok = survive[old.parent] && old.parent.kind == KindPlan && newKind(old.parent) == KindPlan
		case nq != nil && nq.kind != KindReservation:
			ok = true // configured, or an ad-hoc queue the configuration adopts
		case old.dynamic:
			ok = survive[old.parent] && newKind(old.parent) == KindParent
		}
		if !ok {
			if err := t.checkIdle(old, "cannot be removed"); err != nil {
				return Diff{}, err
			}
			removed = append(removed, old)
			diff.Removed = append(diff.Removed, old.path)
			continue
		}
		survive[old] = true
		if old.kind == KindLeaf && !newKind(old).IsLeaf() {
			if err := t.checkIdle(old, "cannot be converted to a parent queue"); err != nil {
				return Diff{}, err
			}
		}
	}

	// 2. Map each new path to the node that will hold it: the surviving old
	// queue (identity kept) or the freshly built one.
	target := make(map[Path]*Queue[T], len(nt.byPath))
	adopted := make(map[*Queue[T]]bool)
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

	// 3. Commit: nothing below can fail.
	for _, q := range removed {
		q.removed = true
	}
	var commit func(nq, parent *Queue[T]) *Queue[T]
	commit = func(nq, parent *Queue[T]) *Queue[T] {
		q := target[nq.path]
		oldKids := q.children
		if q != nq {
			q.copyConfig(nq)
			q.dynamic = false
			if t.opts.Merge != nil {
				q.Payload = t.opts.Merge(q.path, q.Payload, nq.Payload)
			} else {
				q.Payload = nq.Payload
			}
		}
		q.parent = parent
		var kids []*Queue[T]
		for _, c := range nq.children {
			if target[c.path] != nil {
				kids = append(kids, commit(c, q))
			}
		}
		if q != nq {
			// Surviving dynamic children (reservation or ad-hoc) that no
			// configuration adopted follow their parent, in their old order.
			for _, d := range oldKids {
				if survive[d] && !adopted[d] {
					d.parent = q
					absCap, absMax, stopped := d.absCap, d.absMax, d.stopped
					d.rederive()
					if absCap != d.absCap || absMax != d.absMax || stopped != d.stopped {
						diff.Changed = append(diff.Changed, d.path)
					}
					kids = append(kids, d)
				}
			}
		}
		q.children = kids
		return q
	}
	t.root = commit(nt.root, nil)
	t.reweighAll()
	t.index()
	for _, l := range [][]Path{diff.Added, diff.Removed, diff.Changed} {
		slices.SortFunc(l, Path.Compare)
	}
	return diff, nil
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
