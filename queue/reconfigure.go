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
	// state, ACLs, and Settings when [Options.SettingsEqual] is set) or
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
// accounting and — through [Options.Merge] — their payload. Dynamic
// reservation queues survive as long as their plan queue stays reservable.
// A queue that holds applications or usage cannot be removed or converted
// from a leaf: such a configuration is refused with an *Error of kind
// berth.ErrInvalidState naming the queue. With
// [Options.RequireStoppedToRemove] the queue must also be STOPPED.
func (t *Tree[T]) Reconfigure(cfg Config[T]) (Diff, error) {
	nt, err := build(cfg, &t.opts)
	if err != nil {
		return Diff{}, err
	}
	rc := &reconfiguration[T]{old: t, next: nt, survive: make(map[*Queue[T]]bool, len(t.byPath))}
	if err := rc.decideSurvivors(); err != nil {
		return Diff{}, err
	}
	rc.mapTargets()
	// Commit: nothing below can fail.
	for _, q := range rc.removed {
		q.removed = true
	}
	t.root = rc.install(nt.root, nil)
	t.index()
	for _, l := range [][]Path{rc.diff.Added, rc.diff.Removed, rc.diff.Changed} {
		slices.SortFunc(l, Path.Compare)
	}
	return rc.diff, nil
}

// reconfiguration is one Reconfigure's work: the installed tree, the one
// built from the new configuration, and what is decided between them.
type reconfiguration[T any] struct {
	old, next *Tree[T]
	survive   map[*Queue[T]]bool // old queues that stay
	removed   []*Queue[T]        // old queues that go
	target    map[Path]*Queue[T] // the node that will hold each new path
	adopted   map[*Queue[T]]bool // surviving queues the new configuration names
	diff      Diff
}

// newKind is the kind a surviving old queue will have.
func (rc *reconfiguration[T]) newKind(old *Queue[T]) Kind {
	if nq := rc.next.byPath[old.path]; nq != nil && nq.kind != KindReservation {
		return nq.kind
	}
	return old.kind
}

// decideSurvivors decides which old queues survive, parents before their
// children, and refuses to remove or convert a busy queue, before
// anything is touched.
func (rc *reconfiguration[T]) decideSurvivors() error {
	for old := range rc.old.All() {
		nq := rc.next.byPath[old.path]
		ok := false
		switch {
		case old.parent == nil:
			ok = true
		case old.kind == KindReservation:
			ok = rc.survive[old.parent] && old.parent.kind == KindPlan && rc.newKind(old.parent) == KindPlan
		case nq != nil && nq.kind != KindReservation:
			ok = true // configured, or an ad-hoc queue the configuration adopts
		case old.dynamic:
			ok = rc.survive[old.parent] && rc.newKind(old.parent) == KindParent
		}
		if !ok {
			if err := rc.old.checkIdle(old, "cannot be removed"); err != nil {
				return err
			}
			rc.removed = append(rc.removed, old)
			rc.diff.Removed = append(rc.diff.Removed, old.path)
			continue
		}
		rc.survive[old] = true
		if old.kind == KindLeaf && !rc.newKind(old).IsLeaf() {
			if err := rc.old.checkIdle(old, "cannot be converted to a parent queue"); err != nil {
				return err
			}
		}
	}
	return nil
}

// mapTargets maps each new path to the node that will hold it: the
// surviving old queue (identity kept) or the freshly built one.
func (rc *reconfiguration[T]) mapTargets() {
	rc.target = make(map[Path]*Queue[T], len(rc.next.byPath))
	rc.adopted = make(map[*Queue[T]]bool)
	for nq := range rc.next.All() {
		old := rc.old.byPath[nq.path]
		switch {
		case old != nil && rc.survive[old] && old.kind != KindReservation:
			if old.dynamic || rc.old.changed(old, nq) {
				rc.diff.Changed = append(rc.diff.Changed, nq.path)
			}
			rc.target[nq.path] = old
			rc.adopted[old] = true
		case old != nil && rc.survive[old] && nq.kind == KindReservation:
			// the surviving plan keeps its own default queue
		default:
			rc.target[nq.path] = nq
			rc.diff.Added = append(rc.diff.Added, nq.path)
		}
	}
}

// install puts the node for new queue nq under parent, with its
// configuration and merged payload, and its children after it.
func (rc *reconfiguration[T]) install(nq, parent *Queue[T]) *Queue[T] {
	q := rc.target[nq.path]
	oldKids := q.children
	if q != nq {
		q.copyConfig(nq)
		q.dynamic = false
		if merge := rc.old.opts.Merge; merge != nil {
			q.Payload = merge(q.path, q.Payload, nq.Payload)
		} else {
			q.Payload = nq.Payload
		}
	}
	q.parent = parent
	var kids []*Queue[T]
	for _, c := range nq.children {
		if rc.target[c.path] != nil {
			kids = append(kids, rc.install(c, q))
		}
	}
	if q != nq {
		kids = rc.keepDynamicChildren(q, oldKids, kids)
	}
	q.children = kids
	return q
}

// keepDynamicChildren appends to kids the surviving dynamic children
// (reservation or ad-hoc) of q that no configuration adopted: they follow
// their parent, in their old order, their capacities derived anew.
func (rc *reconfiguration[T]) keepDynamicChildren(q *Queue[T], oldKids, kids []*Queue[T]) []*Queue[T] {
	for _, d := range oldKids {
		if rc.survive[d] && !rc.adopted[d] {
			d.parent = q
			absCap, absMax, stopped := d.absCap, d.absMax, d.stopped
			d.rederive()
			if absCap != d.absCap || absMax != d.absMax || stopped != d.stopped {
				rc.diff.Changed = append(rc.diff.Changed, d.path)
			}
			kids = append(kids, d)
		}
	}
	return kids
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
