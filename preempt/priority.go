package preempt

import (
	"slices"

	"github.com/berthsched/berth"
)

// PrioritySelector is YARN's QueuePriorityContainerCandidateSelector
// (…priority-utilization.underutilized-preemption.enabled): a reserved
// container of a queue below its guarantee may take, on its node, the
// non-AM containers of queues of lower priority (compared at the children
// of the two queues' lowest common ancestor), once the reservation is
// older than reserved-container-delay-ms.
type PrioritySelector struct {
	// Wait is the kill wait (0: max_wait_before_kill).
	Wait berth.Duration
}

// Name is "queue-priority".
func (PrioritySelector) Name() string { return "queue-priority" }

// KillWait returns Wait.
func (s PrioritySelector) KillWait() berth.Duration { return s.Wait }

// mayPreempt reports whether leaf a outranks leaf b at the children of
// their lowest common ancestor.
func mayPreempt(a, b *QueueView) bool {
	if a == b {
		return false
	}
	da, db := queueDepth(a), queueDepth(b)
	for da > db {
		if a.Parent == b {
			return false
		}
		a, da = a.Parent, da-1
	}
	for db > da {
		if b.Parent == a {
			return false
		}
		b, db = b.Parent, db-1
	}
	for a.Parent != b.Parent {
		a, b = a.Parent, b.Parent
	}
	return a.RelativePriority > b.RelativePriority
}

func queueDepth(q *QueueView) int {
	d := 0
	for ; q.Parent != nil; q = q.Parent {
		d++
	}
	return d
}

// Select takes, for old enough reservations of under-served queues, the
// lower-priority containers on the reserved node that make it fit.
func (PrioritySelector) Select(r *ProportionalRound) error {
	if err := checkRound(r); err != nil {
		return err
	}
	c := r.Cluster
	outgoing := outgoingLeaves(c)
	if len(outgoing) == 0 {
		return nil
	}
	fromOthers := map[onPart]berth.Resource{}
	touched := map[*NodeView]bool{}
	for _, x := range priorityReservations(c, outgoing) {
		if c.Time-x.res.Time < r.Config.PriorityReservedContainerDelay || touched[x.n] {
			continue
		}
		// The demanding queue's satisfaction on the node's partition.
		p := c.PartitionOf(x.n.Label)
		if p < 0 {
			continue
		}
		dq, cluster := x.q.On(p), c.Partitions[p].Resource
		if berth.GreaterOrEqual(c.Calculator, cluster, dq.Used.Sub(dq.Reserved).Add(fromOthers[onPart{x.q, p}]), dq.Guaranteed) {
			continue
		}
		take, fits, err := x.victims(r, cluster)
		if err != nil {
			return err
		}
		if !fits {
			continue // not enough here; Berth cannot move the reservation
		}
		touched[x.n] = true
		fromOthers[onPart{x.q, p}] = fromOthers[onPart{x.q, p}].Add(x.res.Resource)
		for _, ct := range take {
			r.Take(ct)
		}
	}
	return nil
}

// outgoingLeaves are the leaves that may preempt some other leaf.
func outgoingLeaves(c *CapacityView) []*QueueView {
	var outgoing []*QueueView
	for _, a := range c.Leaves {
		for _, b := range c.Leaves {
			if mayPreempt(a, b) {
				outgoing = append(outgoing, a)
				break
			}
		}
	}
	return outgoing
}

// reservedNode is a node's reservation and the leaf that made it.
type reservedNode struct {
	res *Reservation
	q   *QueueView
	n   *NodeView
}

// priorityReservations are the reservations of outgoing leaves, those of
// leaves that may preempt the others' first, then oldest first.
func priorityReservations(c *CapacityView, outgoing []*QueueView) []reservedNode {
	var rs []reservedNode
	for _, n := range c.Nodes {
		if n.Reservation == nil {
			continue
		}
		q := c.Queue(n.Reservation.Queue)
		if q != nil && slices.Contains(outgoing, q) {
			rs = append(rs, reservedNode{n.Reservation, q, n})
		}
	}
	slices.SortStableFunc(rs, func(x, y reservedNode) int {
		switch {
		case mayPreempt(x.q, y.q):
			return -1
		case mayPreempt(y.q, x.q):
			return 1
		}
		if d := compareInts(x.res.Time, y.res.Time); d != 0 {
			return d
		}
		return compareInts(uint64(x.res.ID), uint64(y.res.ID))
	})
	return rs
}

// victims are the containers of lower-priority leaves on x's node that,
// with its free room and what is already selected there, make the
// reservation fit within the round's budget; fits is false if they
// cannot.
func (x reservedNode) victims(r *ProportionalRound, cluster berth.Resource) (take []*Container, fits bool, err error) {
	c := r.Cluster
	calc := c.Calculator
	lacking := x.res.Resource.Sub(x.n.Unallocated())
	onNode, err := c.NodeContainers(x.n)
	if err != nil {
		return nil, false, err
	}
	for _, ct := range onNode {
		if r.IsSelected(ct.ID) {
			lacking = lacking.Sub(ct.Resource)
		}
	}
	budget := r.budget
	for _, ct := range sortedForPreemption(r, onNode) {
		if berth.LessOrEqual(calc, cluster, lacking, noResource) {
			break
		}
		if ct.AM || r.IsSelected(ct.ID) {
			continue
		}
		victim := c.Queue(ct.Queue)
		if victim == nil || victim.DisablePreemption || !mayPreempt(x.q, victim) || !calc.FitsIn(ct.Resource, budget) {
			continue
		}
		budget = budget.Sub(ct.Resource)
		lacking = lacking.Sub(ct.Resource)
		take = append(take, ct)
	}
	return take, !berth.GreaterThan(calc, cluster, lacking, noResource), nil
}
