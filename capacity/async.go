package capacity

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Asynchronous and multi-node scheduling, YARN 3.x's global scheduler,
// driven by the host.
//
// With schedule-asynchronously.enable, YARN's node heartbeats allocate
// nothing: scheduling threads visit every node at an interval
// (CapacityScheduler.schedule) and make one allocation attempt per node,
// whose proposal a committer thread checks and applies. Berth runs that
// pass when the host calls [Scheduler.ScheduleRound] (at Async.Interval
// of its clock, as the simulator does): nodes in id order, starting at a
// node that advances by one each round where YARN starts at a random one,
// the start node visited twice as YARN's two loops do; a node that has
// not heartbeated for SkipNodeAfter is skipped. Each proposal is
// committed before the next is made, as if YARN's committer kept up:
// the proposals never go stale. [Scheduler.ScheduleRoundOn] takes the
// host's own candidate nodes, in its order.
//
// With multi-node-placement-enabled, an allocation looks at a candidate
// set of nodes (every node that heartbeated recently) instead of one: a
// heartbeat or a round serves the reservations of the candidates, then
// walks the queues once; an application tries each of its request
// priorities on the candidates in the order of its leaf's node sorting
// policy (YARN's MultiNodeLookupPolicy; the built-in is
// ResourceUsageMultiNodeLookupPolicy, least allocated first) and takes
// the first node that allocates or reserves; every node tried counts as
// a scheduling opportunity for delay scheduling, as in YARN. A policy's
// order is a snapshot refreshed every sorting interval of the host's
// clock (every use when the interval is 0), over the nodes known then,
// as YARN's sorter threads keep it. A proposal for a node that another
// application has reserved is refused at commit, as YARN's committer
// refuses it. A synchronous heartbeat then allocates on any candidate,
// not just on the heartbeating node, until the heartbeat's limits
// (maximum-container-assignments, off-switch assignments) stop it. The
// activity log records a multi-node walk as one (explain.go).

// AsyncScheduling is the asynchronous scheduling configuration.
type AsyncScheduling struct {
	// Enabled is schedule-asynchronously.enable: heartbeats only report
	// completed containers, and allocation happens in ScheduleRound.
	Enabled bool
	// Interval is schedule-asynchronously.scheduling-interval-ms (5):
	// how often YARN's threads pass over the nodes. Berth does not time
	// rounds; the host (the simulator) calls ScheduleRound this often.
	Interval berth.Duration
	// Threads (maximum-threads, 1) and MaxPendingBacklogs
	// (maximum-pending-backlogs, 100) are read and kept: Berth runs one
	// round at a time and commits each proposal as it is made.
	Threads, MaxPendingBacklogs int
	// SkipNodeAfter is how long a node may go without a heartbeat before
	// rounds and multi-node candidate sets skip it (YARN: the NodeManager
	// heartbeat interval times yarn.scheduler.skip.node.multiplier, 1000
	// × 2 ms); 0 never skips.
	SkipNodeAfter berth.Duration
}

// DefaultAsyncScheduling returns YARN's defaults: off, 5 ms interval,
// one thread, 100 backlogs, nodes skipped after 2 s without heartbeat.
func DefaultAsyncScheduling() AsyncScheduling {
	return AsyncScheduling{Interval: 5, Threads: 1, MaxPendingBacklogs: 100, SkipNodeAfter: 2000}
}

// MultiNodePlacement is the multi-node placement configuration.
type MultiNodePlacement struct {
	// Enabled is multi-node-placement-enabled.
	Enabled bool
	// Policy is multi-node-sorting.policy, the name of the policy of
	// leaves that name none. With neither, YARN tries the first candidate
	// node only; so does Berth (the first in the candidates' order).
	Policy string
	// Policies are the named policies (multi-node-sorting.policy.names,
	// with .<name>.class and .<name>.sorting-interval.ms).
	Policies map[string]NodeSorting
}

// DefaultMultiNodePlacement returns YARN's default: off, no policy.
func DefaultMultiNodePlacement() MultiNodePlacement { return MultiNodePlacement{} }

// NodeSorting is one named multi-node sorting policy.
type NodeSorting struct {
	// Policy orders the nodes.
	Policy NodeSortingPolicy
	// Interval is how often the order is refreshed (sorting-interval.ms,
	// 1000); 0 sorts the candidates on every use.
	Interval berth.Duration
}

// NodeSortingPolicy orders candidate nodes for multi-node placement
// (YARN's MultiNodeLookupPolicy): an application tries the nodes in this
// order. The built-in [ResourceUsageNodes] goes through it; a host's
// policy is registered under its class name in [XMLOptions].NodeSortings
// or set in Go in Config.MultiNode.Policies. Calls come with the
// scheduler's lock held: Compare must not call back and must be
// deterministic.
type NodeSortingPolicy interface {
	// Name is the policy's name, by which a snapshot records it.
	Name() string
	// Compare orders a before b (negative). The scheduler breaks ties by
	// node id.
	Compare(a, b NodeView) int
}

// NodeView is a read-only view of a node for sorting policies. Its zero
// value is an empty node.
type NodeView struct{ n *node }

// node is the viewed node, an empty one for the zero value.
func (v NodeView) node() *node {
	if v.n == nil {
		return &node{}
	}
	return v.n
}

// ID is the node's id.
func (v NodeView) ID() string { return v.node().id }

// Rack is the node's rack.
func (v NodeView) Rack() string { return v.node().rack }

// Capability is the node's total resource.
func (v NodeView) Capability() berth.Resource { return v.node().total }

// Allocated is what its containers hold.
func (v NodeView) Allocated() berth.Resource { return v.node().allocated }

// Available is what is left (capability less allocated).
func (v NodeView) Available() berth.Resource { n := v.node(); return n.total.Sub(n.allocated) }

// Reserved reports whether an application holds a container reservation
// on the node.
func (v NodeView) Reserved() bool { return v.node().reserved != nil }

// ResourceUsageNodes is YARN's ResourceUsageMultiNodeLookupPolicy, the
// default policy: least allocated first, comparing memory, then vcores,
// then other resource types by name.
type ResourceUsageNodes struct{}

// ResourceUsageClass is the class name capacity-scheduler.xml gives
// ResourceUsageNodes (the "default" policy's class when none is named).
const ResourceUsageClass = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.ResourceUsageMultiNodeLookupPolicy"

// Name returns YARN's class name.
func (ResourceUsageNodes) Name() string { return ResourceUsageClass }

// Compare orders by allocated resource, as Resource.compareTo does.
func (ResourceUsageNodes) Compare(a, b NodeView) int {
	return cmpResource(a.Allocated(), b.Allocated())
}

// cmpResource is YARN's Resource.compareTo: memory, vcores, then the
// other types (Berth keeps them by name).
func cmpResource(a, b berth.Resource) int {
	if c := cmp.Compare(a.Memory, b.Memory); c != 0 {
		return c
	}
	if c := cmp.Compare(a.VCores, b.VCores); c != 0 {
		return c
	}
	ae, be := a.Extras(), b.Extras()
	for i := 0; i < len(ae) || i < len(be); i++ {
		var x, y int64
		switch {
		case i >= len(ae):
			y = be[i].Value
		case i >= len(be):
			x = ae[i].Value
		case ae[i].Name != be[i].Name:
			return cmp.Compare(ae[i].Name, be[i].Name)
		default:
			x, y = ae[i].Value, be[i].Value
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// NodeSortings maps multi-node sorting class names to a host's policies
// (see [XMLOptions]).
type NodeSortings = queue.Registry[NodeSortingPolicy]

// nodeSorter is one policy's kept order (YARN's MultiNodeSorter).
type nodeSorter struct {
	order []*node
	at    berth.Time
	valid bool
}

// multiWalk is the state of one walk over a candidate set.
type multiWalk struct {
	cands  []*node            // in the host's or id order
	orders map[string][]*node // per policy, the candidates in its order
}

// ScheduleRound runs one pass of YARN's asynchronous scheduling thread
// and returns the containers allocated, in commit order. Without
// multi-node placement every node is visited once (the start node
// twice), from a start that advances each round, and gets at most one
// allocation attempt; with it, one attempt is made over the candidate
// set of all recently heartbeated nodes. Nodes that have not heartbeated
// within Async.SkipNodeAfter are left out. A round can be run whether or
// not Async.Enabled is set.
func (s *Scheduler) ScheduleRound() ([]Allocation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	nodes := s.sortedNodes()
	out := s.allocBuf[:0]
	if len(nodes) > 0 {
		if s.cfg.MultiNode.Enabled {
			for _, cands := range s.byPartition(s.heartbeated(nodes)) {
				out = s.multiAttempt(cands, "", out)
			}
		} else {
			start := int(s.rounds % uint64(len(nodes)))
			// YARN's two loops: [start, end), then [0, start].
			for _, n := range nodes[start:] {
				out = s.roundAttempt(n, out)
			}
			for _, n := range nodes[:start+1] {
				out = s.roundAttempt(n, out)
			}
		}
	}
	s.rounds++
	return s.handOut(out), nil
}

// ScheduleRoundOn runs a round over the host's candidate nodes, in the
// order given: one attempt per node, or one attempt over the set with
// multi-node placement. Unknown ids are an error (kind
// berth.ErrNotFound) and nothing is allocated; nodes are not skipped for
// missing heartbeats, the host chose them.
func (s *Scheduler) ScheduleRoundOn(nodeIDs []string) ([]Allocation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cands := make([]*node, 0, len(nodeIDs))
	for i, id := range nodeIDs {
		n, ok := s.nodes[id]
		if !ok {
			return nil, notFound("nodes["+strconv.Itoa(i)+"]", id)
		}
		cands = append(cands, n)
	}
	out := s.allocBuf[:0]
	if s.cfg.MultiNode.Enabled {
		for _, c := range s.byPartition(cands) {
			out = s.multiAttempt(c, "", out)
		}
	} else {
		for _, n := range cands {
			out = s.roundAttempt(n, out)
		}
	}
	return s.handOut(out), nil
}

// handOut returns an exact-size copy of a round's allocations and keeps
// the buffer (as Heartbeat does).
func (s *Scheduler) handOut(out []Allocation) []Allocation {
	if len(out) == 0 {
		s.allocBuf = out
		return nil
	}
	res := slices.Clone(out)
	clear(out)
	s.allocBuf = out[:0]
	return res
}

// roundAttempt is allocateContainersToNode(node, withNodeHeartbeat=false)
// without multi-node placement: one allocation attempt, unless the node
// has not heartbeated recently.
func (s *Scheduler) roundAttempt(n *node, out []Allocation) []Allocation {
	if !s.beatRecently(n) {
		return out
	}
	t := s.begin(n)
	p, _ := t.once()
	if p.st.assigned() {
		if al, ok := s.commit(&t, p); ok {
			out = append(out, al)
		}
	}
	t.end()
	return out
}

// beatRecently is YARN's shouldSkipNodeSchedule, inverted.
func (s *Scheduler) beatRecently(n *node) bool {
	d := s.cfg.Async.SkipNodeAfter
	return d <= 0 || s.clock.Now()-n.lastBeat <= d
}

// heartbeated filters nodes to those that beat recently.
func (s *Scheduler) heartbeated(nodes []*node) []*node {
	if s.cfg.Async.SkipNodeAfter <= 0 {
		return nodes
	}
	out := make([]*node, 0, len(nodes))
	for _, n := range nodes {
		if s.beatRecently(n) {
			out = append(out, n)
		}
	}
	return out
}

// sortedNodes returns the nodes in id order, rebuilt only when the set
// of nodes changed.
func (s *Scheduler) sortedNodes() []*node {
	if s.nodeList == nil || s.nodeListGen != s.nodesGen {
		s.nodeList = s.nodeList[:0]
		for _, id := range sortedKeys(s.nodes) {
			s.nodeList = append(s.nodeList, s.nodes[id])
		}
		s.nodeListGen = s.nodesGen
	}
	return s.nodeList
}

// byPartition splits nodes by partition, each keeping their order, the
// partitions in the scheduler's order: a multi-node walk's candidates are
// the nodes of one partition (YARN's getCandidateNodeSet). Without
// labels it is nodes itself.
func (s *Scheduler) byPartition(nodes []*node) [][]*node {
	if len(s.parts) <= 1 {
		return [][]*node{nodes}
	}
	out := make([][]*node, len(s.parts))
	for _, n := range nodes {
		out[n.part] = append(out[n.part], n)
	}
	return out
}

// multiHeartbeat is a synchronous heartbeat with multi-node placement
// (allocateContainersToNode(node, true)): the candidates are every node
// of its partition that heartbeated recently (the heartbeating node alone
// when none did), and attempts repeat while the heartbeat's limits allow.
func (s *Scheduler) multiHeartbeat(n *node, out []Allocation) []Allocation {
	cands := s.byPartition(s.heartbeated(s.sortedNodes()))[n.part]
	if len(cands) == 0 {
		cands = []*node{n}
	}
	return s.multiAttempt(cands, n.id, out)
}

// multiAttempt is allocateContainersOnMultiNodes: serve the candidates'
// reservations, then walk the queues once over the candidates; with a
// heartbeat (of node beat; "" for a round), walk again while
// canAllocateMore allows. It is recorded as one walk filed under beat,
// its activities naming the candidate allocated or reserved on.
func (s *Scheduler) multiAttempt(cands []*node, beat string, out []Allocation) []Allocation {
	if len(cands) == 0 {
		return out
	}
	part := cands[0].part
	w := attempt{s: s, home: part}
	if s.acts.BeginCandidates(beat, s.parts[part].name, s.clock.Now()) {
		w.rec = &s.acts
	}
	out = s.multiAttempts(&w, cands, beat != "", out)
	w.end()
	return out
}

// multiAttempts is multiAttempt's loop; w is the walk's attempt, with no
// node of its own.
func (s *Scheduler) multiAttempts(w *attempt, cands []*node, heartbeat bool, out []Allocation) []Allocation {
	var c assignCount
	for {
		// The root at or over its capacity on the partition: nothing to do
		// (no killable containers: preemption kills at once).
		if s.partTotal(w.home).IsZero() || s.root.on(w.home).usedCap >= 1 {
			return out
		}
		for _, n := range cands {
			if r := n.reserved; r != nil {
				t := attempt{s: s, n: n, from: r, rec: w.rec}
				if p := t.serveReservation(r); p.st.assigned() {
					if al, ok := s.commit(&t, p); ok {
						out = append(out, al)
					}
				}
			}
		}
		p := s.multiWalkOnce(*w, cands)
		if !p.st.assigned() {
			return out
		}
		t := attempt{s: s, n: p.node, rec: w.rec}
		if al, ok := s.commit(&t, p); ok {
			out = append(out, al)
		}
		if !heartbeat || p.st == stReserved || !s.canAllocateMore(&c, p) {
			return out
		}
	}
}

// multiWalkOnce walks the queues once over cands, all of one partition,
// with t, an attempt with no node of its own.
func (s *Scheduler) multiWalkOnce(t attempt, cands []*node) proposal {
	s.walk = &multiWalk{cands: cands}
	defer func() { s.walk = nil }()
	if t.home != 0 {
		return t.labelled(t.home)
	}
	return t.parent(s.root, s.cluster)
}

// candidatesFor returns the walk's candidates in the order of q's node
// sorting policy; without a policy, YARN tries the first candidate only.
func (s *Scheduler) candidatesFor(q *qnode) []*node {
	w := s.walk
	name := q.set().NodeSortingPolicy
	if name == "" {
		name = s.cfg.MultiNode.Policy
	}
	spec, ok := s.cfg.MultiNode.Policies[name]
	if !ok || spec.Policy == nil {
		return w.cands[:1]
	}
	if o, ok := w.orders[name]; ok {
		return o
	}
	var order []*node
	if spec.Interval <= 0 {
		order = s.sortNodes(spec.Policy, slices.Clone(w.cands))
	} else {
		order = s.keptOrder(name, spec, w.cands)
	}
	if w.orders == nil {
		w.orders = map[string][]*node{}
	}
	w.orders[name] = order
	return order
}

// sortNodes sorts nodes by the policy, ties by id.
func (s *Scheduler) sortNodes(pol NodeSortingPolicy, nodes []*node) []*node {
	slices.SortStableFunc(nodes, func(x, y *node) int {
		if c := pol.Compare(NodeView{x}, NodeView{y}); c != 0 {
			return c
		}
		return cmp.Compare(x.id, y.id)
	})
	return nodes
}

// keptOrder returns the policy's snapshot order, refreshed when its
// interval has passed on the host's clock, restricted to the candidates
// still present.
func (s *Scheduler) keptOrder(name string, spec NodeSorting, cands []*node) []*node {
	if s.sorters == nil {
		s.sorters = map[string]*nodeSorter{}
	}
	so := s.sorters[name]
	if so == nil {
		so = &nodeSorter{}
		s.sorters[name] = so
	}
	now := s.clock.Now()
	if !so.valid || now-so.at >= spec.Interval {
		so.order = s.sortNodes(spec.Policy, slices.Clone(s.sortedNodes()))
		so.at, so.valid = now, true
	}
	s.walkGen++
	for _, n := range cands {
		n.candGen = s.walkGen
	}
	out := make([]*node, 0, len(cands))
	for _, n := range so.order {
		if n.candGen == s.walkGen && s.nodes[n.id] == n {
			out = append(out, n)
		}
	}
	return out
}
