package capacity

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
)

// The cluster's nodes: the host adds and removes them; every change
// re-derives what depends on the cluster resource (clusterChanged).

// AddNode adds a node to the cluster.
func (s *Scheduler) AddNode(n NodeSpec) error { return s.AddNodes(n) }

// AddNodes adds several nodes at once, all or none; the cluster-wide
// recomputation (guarantees, limits, activation) happens once.
func (s *Scheduler) AddNodes(nodes ...NodeSpec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(nodes))
	total := s.cluster
	for i, n := range nodes {
		if err := s.checkNode(n); err != nil {
			return fmt.Errorf("nodes[%d]: %w", i, err)
		}
		if seen[n.ID] {
			return fieldErr(berth.ErrAlreadyExists, fmt.Sprintf("nodes[%d].id", i), n.ID, "node listed twice")
		}
		seen[n.ID] = true
		// The cluster total must stay representable, as the fair
		// scheduler requires: YARN's long arithmetic wraps to a negative
		// cluster, and every guarantee and limit with it.
		if total.AddOverflows(n.Capability) {
			return fmt.Errorf("nodes[%d]: %w", i, fieldErr(berth.ErrCapacityExceeded, "node.capability", n.Capability,
				"the cluster's total would overflow int64"))
		}
		total = total.Add(n.Capability)
	}
	for _, n := range nodes {
		p, _ := s.nodePart(n.Label) // checkNode checked it
		nd := &node{id: n.ID, rack: n.Rack, total: n.Capability, part: p, lastBeat: s.clock.Now()}
		s.nodes[n.ID] = nd
		s.racks.Add(n.Rack)
		s.nodeJoined(nd)
	}
	s.clusterChanged()
	return nil
}

func (s *Scheduler) checkNode(n NodeSpec) error {
	if n.ID == "" || n.ID == AnyResource {
		return berth.InvalidField("node.id", n.ID, "must be a non-empty host name")
	}
	if n.Rack == "" || n.Rack == AnyResource {
		return berth.InvalidField("node.rack", n.Rack, "must be a non-empty rack name")
	}
	if n.Capability.AnyNegative() {
		return berth.InvalidField("node.capability", n.Capability, "must not be negative")
	}
	if _, ok := s.nodes[n.ID]; ok {
		return fieldErr(berth.ErrAlreadyExists, "node.id", n.ID, "node already exists")
	}
	_, err := s.nodePart(n.Label)
	return err
}

// RemoveNode takes a node out of the cluster; its containers end as Lost
// and its reservation is cancelled.
func (s *Scheduler) RemoveNode(id string) ([]Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[id]
	if !ok {
		return nil, notFound("node.id", id)
	}
	var out []Ended
	for c := n.head; c != nil; {
		next := c.nNext
		out = append(out, Ended{Container: c.c, Status: Lost})
		s.releaseContainer(c)
		c = next
	}
	if n.reserved != nil {
		s.unreserve(n.reserved)
	}
	delete(s.nodes, id)
	s.acts.ForgetNode(id)
	s.racks.Remove(n.rack)
	s.nodeLeft(n)
	slices.SortFunc(out, func(a, b Ended) int { return cmpID(a.ID, b.ID) })
	if s.obs != nil {
		s.emitEndedAll(out)
	}
	s.clusterChanged()
	return out, nil
}

func cmpID(a, b ContainerID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ClusterResource returns the sum of the nodes' capabilities, labelled
// or not.
func (s *Scheduler) ClusterResource() berth.Resource {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// isRack tells a rack name from a host name ([queue.Racks.IsRack]).
func (s *Scheduler) isRack(name string) bool {
	_, isNode := s.nodes[name]
	return s.racks.IsRack(name, isNode)
}
