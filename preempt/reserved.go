package preempt

import (
	"slices"

	"github.com/berthsched/berth"
)

// ReservedSelector is YARN's ReservedContainerCandidatesSelector
// (select_based_on_reserved_containers): rather than taking small
// containers everywhere, it frees one node for a large reserved
// container, choosing first the nodes where the least must be preempted.
// It computes the ideal assignment counting reservations as demand and
// without natural termination; AM containers are never taken.
type ReservedSelector struct {
	// Wait is the kill wait (0: max_wait_before_kill).
	Wait berth.Duration
}

// Name is "reserved".
func (ReservedSelector) Name() string { return "reserved" }

// KillWait returns Wait.
func (s ReservedSelector) KillWait() berth.Duration { return s.Wait }

type nodeCost struct {
	n    *NodeView
	cost float32
	i    int
}

// onPart is a leaf on one partition, the key of what it may still give.
type onPart struct {
	q *QueueView
	p int
}

// Select chooses, node by node, containers that let a reservation fit.
func (ReservedSelector) Select(r *ProportionalRound) error {
	if err := checkRound(r); err != nil {
		return err
	}
	r.ComputeIdeal(IdealOptions{IncludeReserved: true, SkipNaturalTermination: true})
	quota := make(map[onPart]berth.Resource)
	for p := range r.Cluster.Partitions {
		for _, l := range r.Cluster.Leaves {
			if a := r.ToObtainOn(l, p); !a.IsZero() {
				quota[onPart{l, p}] = a
			}
		}
	}
	if len(quota) == 0 {
		return nil
	}
	calc := r.Cluster.Calculator
	var cands []nodeCost
	for i, n := range r.Cluster.Nodes {
		if n.Reservation == nil {
			continue
		}
		size, ok, err := reservedFree(r, n, quota, true)
		if err != nil {
			return err
		}
		if ok {
			cands = append(cands, nodeCost{n: n, cost: calc.Ratio(size, n.Reservation.Resource), i: i})
		}
	}
	slices.SortStableFunc(cands, func(a, b nodeCost) int {
		switch {
		case a.cost < b.cost:
			return -1
		case a.cost > b.cost:
			return 1
		}
		return compareInts(a.i, b.i)
	})
	for _, c := range cands {
		if _, _, err := reservedFree(r, c.n, quota, false); err != nil {
			return err
		}
	}
	return nil
}

// reservedFree walks n's containers newest first and takes (or, in a
// dry run, counts) those whose queue may still give them until the
// node's reservation fits; it reports the size taken and success. A
// failed real run gives back the quota it consumed.
func reservedFree(r *ProportionalRound, n *NodeView, quota map[onPart]berth.Resource, dry bool) (berth.Resource, bool, error) {
	calc := r.Cluster.Calculator
	want := n.Reservation.Resource
	cur := n.Unallocated()
	if calc.FitsIn(want, cur) {
		return noResource, false, nil
	}
	part := r.Cluster.PartitionOf(n.Label) // the node's containers count there
	budget := r.budget
	local := map[onPart]berth.Resource{}
	get := func(q onPart) (berth.Resource, bool) {
		if v, ok := local[q]; ok {
			return v, true
		}
		v, ok := quota[q]
		return v, ok
	}
	var taken []*Container
	var size berth.Resource
	onNode, err := r.Cluster.NodeContainers(n)
	if err != nil {
		return noResource, false, err
	}
	cs := slices.Clone(onNode)
	slices.SortFunc(cs, func(x, y *Container) int { return compareInts(uint64(y.ID), uint64(x.ID)) })
	for _, c := range cs {
		if c.AM {
			continue
		}
		leaf := r.Cluster.Queue(c.Queue)
		if leaf == nil || leaf.DisablePreemption {
			continue
		}
		q := onPart{leaf, part}
		left, ok := get(q)
		if !ok || !calc.FitsIn(c.Resource, left) || !calc.FitsIn(c.Resource, budget) {
			continue
		}
		local[q] = left.Sub(c.Resource)
		budget = budget.Sub(c.Resource)
		taken = append(taken, c)
		size = size.Add(c.Resource)
		cur = cur.Add(c.Resource)
		if calc.FitsIn(want, cur) {
			if !dry {
				for q, v := range local {
					quota[q] = v
				}
				for _, c := range taken {
					r.Take(c)
				}
			}
			return size, true, nil
		}
	}
	return size, false, nil
}
