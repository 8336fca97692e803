package queue

import (
	"fmt"

	"github.com/berthsched/berth"
)

// Capacities of ad-hoc queues a scheduler creates at run time (the
// capacity scheduler's auto-created queues): a weight, whose share of the
// parent follows the siblings' weights, or a percentage of the parent.

// SetDynamicCapacity sets the configured capacity and maximum capacity of
// an ad-hoc queue made with [Tree.AddDynamicQueue] or [Tree.EnsureLeaf]:
// a weight (every weight sibling's share changes with it) or a
// percentage, and an unset or percentage maximum. The percentages of the
// parent's children may not sum above 100% (kind
// berth.ErrCapacityExceeded); on error nothing changes.
func (t *Tree[T]) SetDynamicCapacity(q *Queue[T], c, maxC Capacity) error {
	if q == nil || q.removed || t.byPath[q.path] != q || !q.dynamic || q.kind == KindReservation {
		return invalid(pathOf(q), "capacity", nil, "not an ad-hoc queue of this tree")
	}
	ps := q.path.s
	if err := checkCapacity(ps, "capacity", c); err != nil {
		return err
	}
	if err := checkCapacity(ps, "maximum-capacity", maxC); err != nil {
		return err
	}
	switch c.Kind {
	case CapacityWeight, CapacityPercent, CapacityUnset:
	default:
		return invalid(ps, "capacity", c, "an ad-hoc queue's capacity is a weight or a percentage")
	}
	if maxC.Kind == CapacityAbsolute {
		return invalid(ps, "maximum-capacity", maxC, "an ad-hoc queue's maximum capacity is a percentage")
	}
	if c.Kind == CapacityPercent {
		var sum float32
		for _, s := range q.parent.children {
			if s != q {
				sum += fraction(s.capacity, 0)
			}
		}
		sum += c.Percent / 100
		if sum >= 1+entitlementSumEpsilon {
			return &Error{QueuePath: ps, Field: "capacity", Value: c.Percent, Kind: berth.ErrCapacityExceeded,
				Reason: fmt.Sprintf("the children of %s would have %g%% together", q.parent.path.s, sum*100)}
		}
	}
	q.capacity, q.maxCapacity = c, maxC
	q.maxFrac = fraction(maxC, 1)
	if c.Kind == CapacityWeight {
		q.parent.reweigh()
		return nil
	}
	q.capFrac = fraction(c, 0)
	q.rederive()
	q.parent.reweigh() // q may have been a weight before
	return nil
}

// RemoveAutoQueue removes an idle ad-hoc queue as [Tree.RemoveDynamicQueue]
// does and gives its weight back to its siblings.
func (t *Tree[T]) RemoveAutoQueue(q *Queue[T]) error {
	if err := t.RemoveDynamicQueue(q); err != nil {
		return err
	}
	q.parent.reweigh()
	return nil
}

// reweigh recomputes the shares of p's weight children from their
// weights, and their subtrees' absolute capacities.
func (p *Queue[T]) reweigh() {
	var sum float32
	weights := false
	for _, c := range p.children {
		if c.capacity.Kind == CapacityWeight {
			sum += c.capacity.Weight
			weights = true
		}
	}
	p.childWeights = sum
	if !weights {
		return
	}
	for _, c := range p.children {
		if c.capacity.Kind == CapacityWeight {
			c.capFrac = p.weightShare(c.capacity.Weight)
			c.rederive()
		}
	}
}

// reweighAll re-shares the weights of every parent that has ad-hoc
// children, after a reconfiguration kept them beside configured ones.
func (t *Tree[T]) reweighAll() {
	for q := range t.All() {
		for _, c := range q.children {
			if c.dynamic && c.capacity.Kind == CapacityWeight {
				q.reweigh()
				break
			}
		}
	}
}

func pathOf[T any](q *Queue[T]) string {
	if q == nil {
		return ""
	}
	return q.path.s
}
