package queue

import (
	"fmt"
	"math"

	"github.com/berthsched/berth"
)

// AddReservationQueue adds a dynamic reservation queue named name under the
// plan queue plan, with entitlement 0% (maximum 100%) and the given payload,
// and returns it. Raise its capacity with [Tree.SetEntitlement]. Fails with
// berth.ErrInvalidArgument when plan is not a plan queue of this tree or the
// name is invalid, berth.ErrAlreadyExists when the name is taken.
func (t *Tree[T]) AddReservationQueue(plan *Queue[T], name string, payload T) (*Queue[T], error) {
	if err := t.checkPlan(plan); err != nil {
		return nil, err
	}
	p, err := plan.path.Child(name)
	if err != nil {
		return nil, err
	}
	if t.byPath[p] != nil {
		return nil, &Error{QueuePath: p.s, Field: "name", Value: name, Reason: "queue already exists", Kind: berth.ErrAlreadyExists}
	}
	q := newReservation(plan, name, Entitlement{Capacity: 0, MaxCapacity: 1}, payload)
	plan.children = append(plan.children, q)
	t.indexAdd(q)
	return q, nil
}

// checkPlan verifies that plan is a live plan queue of t.
func (t *Tree[T]) checkPlan(plan *Queue[T]) error {
	if plan == nil {
		return invalid("", "queue", nil, "nil plan queue")
	}
	if plan.removed || t.byPath[plan.path] != plan {
		return &Error{QueuePath: plan.path.s, Reason: "queue is not part of this tree", Kind: berth.ErrNotFound}
	}
	if plan.kind != KindPlan {
		return invalid(plan.path.s, "reservable", plan.kind.String(), "queue is not a plan (reservable) queue")
	}
	return nil
}

// checkDynamic verifies that q is a live reservation queue of t.
func (t *Tree[T]) checkDynamic(q *Queue[T]) error {
	if q == nil {
		return invalid("", "queue", nil, "nil queue")
	}
	if q.removed || t.byPath[q.path] != q {
		return &Error{QueuePath: q.path.s, Reason: "queue is not part of this tree", Kind: berth.ErrNotFound}
	}
	if q.kind != KindReservation {
		return invalid(q.path.s, "", q.kind.String(), "entitlement can only be changed on a reservation queue")
	}
	return nil
}

// SetEntitlement changes a reservation queue's capacity and maximum
// capacity (fractions of its plan queue). Capacity and maximum must be in
// [0, 1], the maximum at least the capacity, and the plan's children may
// not sum to more than 1 (YARN: new sum in [0, 1+0.0001)). Errors are
// *Error values of kind berth.ErrInvalidArgument (berth.ErrCapacityExceeded
// for the sum); on error nothing changes.
func (t *Tree[T]) SetEntitlement(q *Queue[T], e Entitlement) error {
	if err := t.checkDynamic(q); err != nil {
		return err
	}
	ps := q.path.s
	if !inUnit(e.Capacity) {
		return invalid(ps, "capacity", e.Capacity, "capacity demand is not in the [0,1] range")
	}
	if !inUnit(e.MaxCapacity) {
		return invalid(ps, "maximum-capacity", e.MaxCapacity, "maximum capacity is not in the [0,1] range")
	}
	if e.MaxCapacity < e.Capacity {
		return invalid(ps, "maximum-capacity", e.MaxCapacity, fmt.Sprintf("maximum capacity is below capacity %g", e.Capacity))
	}
	var sum float32
	for _, c := range q.parent.children {
		sum += c.capFrac
	}
	sum = sum - q.capFrac + e.Capacity
	if sum < 0 || sum >= 1+entitlementSumEpsilon {
		return &Error{QueuePath: ps, Field: "capacity", Value: e.Capacity,
			Reason: fmt.Sprintf("sum of the child queues' capacities of plan %s would exceed 100%% (%g)", q.parent.path.s, sum),
			Kind:   berth.ErrCapacityExceeded}
	}
	q.setEntitlement(e)
	return nil
}

func inUnit(f float32) bool { return !math.IsNaN(float64(f)) && f >= 0 && f <= 1 }

// RemoveReservationQueue removes a dynamic reservation queue. YARN's rules:
// it must hold no applications (and here no usage at all) and its capacity
// must be 0; the plan's default queue cannot be removed. Errors are *Error
// values (berth.ErrInvalidState when the queue is busy or still entitled).
func (t *Tree[T]) RemoveReservationQueue(q *Queue[T]) error {
	if err := t.checkDynamic(q); err != nil {
		return err
	}
	ps := q.path.s
	switch {
	case q.path.Name() == q.parent.path.Name()+DefaultReservationSuffix:
		return stateErr(ps, "", nil, "the default reservation queue of a plan cannot be removed")
	case q.acct.Apps() > 0:
		return stateErr(ps, "applications", q.acct.Apps(), "the queue is not empty")
	case !q.acct.IsZero():
		return stateErr(ps, "used", q.acct.Used, "the queue still has resources accounted")
	case q.capFrac != 0:
		return stateErr(ps, "capacity", q.capFrac, "the queue being removed has non zero capacity")
	}
	t.detach(q)
	return nil
}

// AddDynamicQueue adds an ad-hoc queue of kind KindLeaf or KindParent under
// the parent queue parent, as the fair scheduler does for placement rules
// with create="true". The queue has no configured capacity (0%, maximum
// 100%), inherits its parent's state, and its own ACLs allow nobody (access
// comes from ancestors). It survives Reconfigure while its parent stays a
// parent; a configuration that names it adopts it as a configured queue.
// Fails with berth.ErrInvalidArgument (parent not a KindParent queue of
// this tree, bad name or kind) or berth.ErrAlreadyExists.
func (t *Tree[T]) AddDynamicQueue(parent *Queue[T], name string, kind Kind, payload T) (*Queue[T], error) {
	if parent == nil {
		return nil, invalid("", "queue", nil, "nil parent queue")
	}
	if parent.removed || t.byPath[parent.path] != parent {
		return nil, &Error{QueuePath: parent.path.s, Reason: "queue is not part of this tree", Kind: berth.ErrNotFound}
	}
	p, err := parent.path.Child(name)
	if err != nil {
		return nil, err
	}
	if err := t.checkAdHoc(parent, p, kind); err != nil {
		return nil, err
	}
	q := newAdHoc(parent, p, kind, payload)
	parent.children = append(parent.children, q)
	t.indexAdd(q)
	return q, nil
}

// checkAdHoc validates adding an ad-hoc queue at p under parent.
func (t *Tree[T]) checkAdHoc(parent *Queue[T], p Path, kind Kind) error {
	if kind != KindLeaf && kind != KindParent {
		return invalid(p.s, "kind", kind.String(), "ad-hoc queues are leaves or parents")
	}
	if parent.kind != KindParent {
		return invalid(parent.path.s, "kind", parent.kind.String(), "ad-hoc queues can only be added under a parent queue")
	}
	if t.byPath[p] != nil {
		return &Error{QueuePath: p.s, Field: "name", Value: p.Name(), Reason: "queue already exists", Kind: berth.ErrAlreadyExists}
	}
	return nil
}

func newAdHoc[T any](parent *Queue[T], p Path, kind Kind, payload T) *Queue[T] {
	q := &Queue[T]{path: p, kind: kind, dynamic: true, parent: parent, Payload: payload,
		submitACL: Nobody(), adminACL: Nobody(), maxFrac: 1}
	q.rederive()
	return q
}

// rederive recomputes the values a dynamic subtree takes from its parent.
func (q *Queue[T]) rederive() {
	q.absCap = q.capFrac * q.parent.absCap
	q.absMax = q.maxFrac * q.parent.absMax
	q.stopped = q.confState == StateStopped || (q.confState == StateUnset && q.parent.stopped)
	for _, c := range q.children {
		c.rederive()
	}
}

// EnsureLeaf returns the leaf at path p, creating it and any missing
// ancestors as ad-hoc queues (ancestors as parents, p as a leaf), like the
// fair scheduler's getLeafQueue(name, create=true). payload gives each new
// queue's payload. All-or-nothing: it fails, creating nothing, when p
// exists as a non-leaf (berth.ErrInvalidArgument), when an existing
// ancestor is not a KindParent queue (berth.ErrInvalidArgument, e.g. a
// leaf), or p is invalid.
func (t *Tree[T]) EnsureLeaf(p Path, payload func(p Path, kind Kind) T) (*Queue[T], error) {
	if p.IsZero() {
		return nil, invalid("", "queue-path", "", "empty queue path")
	}
	if q := t.byPath[p]; q != nil {
		if !q.IsLeaf() {
			return nil, invalid(p.s, "queue-path", q.kind.String(), "queue exists and is not a leaf")
		}
		return q, nil
	}
	// Find the deepest existing ancestor.
	var missing []Path
	cur := p
	var anc *Queue[T]
	for {
		missing = append(missing, cur)
		par, ok := cur.Parent()
		if !ok {
			return nil, invalid(p.s, "queue-path", p.s, "no existing ancestor") // unreachable: root exists
		}
		if anc = t.byPath[par]; anc != nil {
			break
		}
		cur = par
	}
	if anc.kind != KindParent {
		return nil, invalid(anc.path.s, "kind", anc.kind.String(), "cannot create queues under a queue that is not a parent")
	}
	var leafQ *Queue[T]
	for i := len(missing) - 1; i >= 0; i-- {
		kind := KindParent
		if i == 0 {
			kind = KindLeaf
		}
		var pl T
		if payload != nil {
			pl = payload(missing[i], kind)
		}
		q := newAdHoc(anc, missing[i], kind, pl)
		anc.children = append(anc.children, q)
		t.indexAdd(q)
		anc, leafQ = q, q
	}
	return leafQ, nil
}

// RemoveDynamicQueue removes an idle ad-hoc queue (no children, no
// applications, no usage), as the fair scheduler drops empty ad-hoc queues.
// Reservation queues go through [Tree.RemoveReservationQueue].
func (t *Tree[T]) RemoveDynamicQueue(q *Queue[T]) error {
	if q == nil {
		return invalid("", "queue", nil, "nil queue")
	}
	if q.removed || t.byPath[q.path] != q {
		return &Error{QueuePath: q.path.s, Reason: "queue is not part of this tree", Kind: berth.ErrNotFound}
	}
	ps := q.path.s
	switch {
	case !q.dynamic || q.kind == KindReservation:
		return invalid(ps, "", q.kind.String(), "only ad-hoc queues can be removed this way")
	case len(q.children) > 0:
		return stateErr(ps, "queues", len(q.children), "the queue still has child queues")
	case q.acct.Apps() > 0:
		return stateErr(ps, "applications", q.acct.Apps(), "the queue is not empty")
	case !q.acct.IsZero():
		return stateErr(ps, "used", q.acct.Used, "the queue still has resources accounted")
	}
	t.detach(q)
	return nil
}

// detach unlinks a childless queue from its parent and the indexes.
func (t *Tree[T]) detach(q *Queue[T]) {
	p := q.parent
	for i, c := range p.children {
		if c == q {
			p.children = append(p.children[:i:i], p.children[i+1:]...)
			break
		}
	}
	t.indexRemove(q)
	q.removed = true
}
