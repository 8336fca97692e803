package fair

import (
	"slices"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// QueueInfo is one queue in a snapshot.
type QueueInfo struct {
	// Path is the full path; Parent the parent's ("" for root).
	Path, Parent string
	Leaf         bool // a leaf (holds applications)
	// Dynamic marks a queue created ad hoc by placement; Plan a
	// reservable queue; Reservation a reservation queue.
	Dynamic, Plan, Reservation bool
	Policy                     Policy         // built-in scheduling policy (0 for a host's)
	PolicyName                 string         // the scheduling policy's Name
	Weight                     float64        // weight
	MinShare, MaxShare         berth.Resource // min share and effective max share
	Demand, Usage              berth.Resource // demand as of the last update; usage now
	FairShare, SteadyFairShare berth.Resource // instantaneous (last update) and steady fair shares
	// AMUsage and MaxAMResource (leaves); MaxAMShare as configured.
	AMUsage, MaxAMResource berth.Resource
	MaxAMShare             float32 // maxAMShare as configured
	// NumRunnable counts runnable applications in the subtree;
	// NumPending the waiting ones (leaves).
	NumRunnable, NumPending, MaxRunningApps int
	// Preemption settings after inheritance.
	MinSharePreemptionTimeout, FairSharePreemptionTimeout berth.Duration // ms
	FairSharePreemptionThreshold                          float32        // in [0, 1]
	Preemptable                                           bool           // allowPreemptionFrom here and above
}

// AppInfo is one application in a snapshot.
type AppInfo struct {
	ID, Queue, User string // id, leaf queue path and user
	// Runnable is false while the application waits for maxRunningApps.
	Runnable bool
	Start    berth.Time // submission time (the FIFO order)
	Weight   float64    // weight (1, or size-based)
	// Usage, Demand and FairShare as of the last update (usage is live).
	Usage, Demand, FairShare, Reserved berth.Resource
	// FairShareStarvation and MinShareStarvation (with preemption on).
	FairShareStarvation, MinShareStarvation berth.Resource
	AMResource                              berth.Resource // the AM container, once allocated
	AMRunning                               bool           // the AM container is allocated
	Containers                              int            // live containers
}

// ContainerInfo is a live container in a snapshot.
type ContainerInfo struct {
	Container
	// Preemptable reports whether its queue allows preemption from it.
	Preemptable bool
	// MarkedForPreemption is set by [Scheduler.MarkForPreemption].
	MarkedForPreemption bool
}

// ReservationInfo is a container reserved on a node (package queue's
// record, shared with the capacity scheduler).
type ReservationInfo = queue.ReservedContainer

// NodeInfo is a node in a snapshot (package queue's record).
type NodeInfo = queue.NodeInfo

// Snapshot is a deep copy of the scheduler's state at one moment, for a
// preemption policy and for reporting. It does not change afterwards.
type Snapshot struct {
	Time         berth.Time        // the clock when taken
	Cluster      berth.Resource    // sum of the nodes' capabilities
	Queues       []QueueInfo       // depth first, children in creation order
	Apps         []AppInfo         // by submission order
	Containers   []ContainerInfo   // by id
	Reservations []ReservationInfo // by id
	Nodes        []NodeInfo        // by id
	// Tree is the shared queue tree's view (package queue): kinds, ACLs,
	// and the books per queue and per user.
	Tree *queue.Snapshot[struct{}]
}

// Queue returns the queue at path, or nil.
func (sn *Snapshot) Queue(path string) *QueueInfo {
	for i := range sn.Queues {
		if sn.Queues[i].Path == path {
			return &sn.Queues[i]
		}
	}
	return nil
}

// App returns the application id, or nil.
func (sn *Snapshot) App(id string) *AppInfo {
	for i := range sn.Apps {
		if sn.Apps[i].ID == id {
			return &sn.Apps[i]
		}
	}
	return nil
}

// SnapshotParts selects the sections a partial snapshot copies
// ([Scheduler.SnapshotOf]).
type SnapshotParts uint8

// Sections of a snapshot.
const (
	SnapshotQueues       SnapshotParts = 1 << iota // Queues
	SnapshotApps                                   // Apps
	SnapshotContainers                             // Containers
	SnapshotReservations                           // Reservations
	SnapshotNodes                                  // Nodes
	SnapshotTree                                   // Tree
	// SnapshotAll is every section ([Scheduler.Snapshot]).
	SnapshotAll = SnapshotQueues | SnapshotApps | SnapshotContainers | SnapshotReservations | SnapshotNodes | SnapshotTree
)

// Snapshot copies the scheduler's state.
func (s *Scheduler) Snapshot() *Snapshot { return s.SnapshotOf(SnapshotAll) }

// SnapshotOf copies the sections parts selects; the others stay empty
// (Time and Cluster are always set). A preemption policy on a large
// cluster reads queues, applications and nodes this way and the
// containers of the few nodes it examines with [Scheduler.NodeContainers],
// rather than copying every container.
func (s *Scheduler) SnapshotOf(parts SnapshotParts) *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &Snapshot{Time: s.clock.Now(), Cluster: s.cluster}
	if s.tree != nil && parts&SnapshotTree != 0 {
		s.flushAccounts() // the tree's books are read below
		out.Tree = s.tree.Snapshot()
	}
	if parts&SnapshotQueues != 0 {
		s.snapQueues(out)
	}
	if parts&SnapshotApps != 0 {
		s.snapApps(out)
	}
	if parts&SnapshotContainers != 0 {
		out.Containers = make([]ContainerInfo, 0, s.live.Len())
		for _, c := range s.live.All() {
			out.Containers = append(out.Containers, containerInfo(c))
		}
	}
	if parts&SnapshotReservations != 0 {
		for _, id := range sortedIDs(s.resvByID) {
			r := s.resvByID[id]
			out.Reservations = append(out.Reservations, ReservationInfo{ID: r.id, App: r.app.id, Node: r.node.ID, Queue: r.app.q.path,
				Resource: r.res, Priority: r.prio, Time: r.time})
		}
	}
	if parts&SnapshotNodes != 0 {
		out.Nodes = make([]NodeInfo, 0, len(s.nodes))
		for _, n := range s.byID {
			ni := NodeInfo{ID: n.ID, Rack: n.Rack, Capability: n.Capability, Allocated: n.allocated}
			if n.reserved != nil {
				ni.Reserved = n.reserved.id
			}
			out.Nodes = append(out.Nodes, ni)
		}
	}
	return out
}

func containerInfo(c *container) ContainerInfo {
	return ContainerInfo{Container: c.Container, Preemptable: c.app.q.preemptable, MarkedForPreemption: c.marked}
}

// NodeContainers returns the live containers on a node, by id.
func (s *Scheduler) NodeContainers(nodeID string) ([]ContainerInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[nodeID]
	if !ok {
		return nil, notFound("node.id", nodeID)
	}
	return appendNodeContainers(make([]ContainerInfo, 0, n.live.n), n), nil
}

// AppendNodeContainers appends the live containers on a node, by id, to
// dst and returns the extended slice: [Scheduler.NodeContainers] into a
// buffer the caller reuses (a preemption round reads hundreds of nodes).
func (s *Scheduler) AppendNodeContainers(dst []ContainerInfo, nodeID string) ([]ContainerInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.nodes[nodeID]
	if !ok {
		return dst, notFound("node.id", nodeID)
	}
	return appendNodeContainers(dst, n), nil
}

// appendNodeContainers copies n's containers, kept in id order.
func appendNodeContainers(dst []ContainerInfo, n *node) []ContainerInfo {
	for c := n.live.head; c != nil; c = c.links[nodeList].next {
		dst = append(dst, containerInfo(c))
	}
	return dst
}

func (s *Scheduler) snapQueues(out *Snapshot) {
	out.Queues = make([]QueueInfo, 0, len(s.queues)) // sized once: the records are large
	var walk func(q *fsQueue)
	walk = func(q *fsQueue) {
		qi := QueueInfo{Path: q.path, Leaf: q.leaf, Dynamic: q.dynamic, Plan: q.plan, Reservation: q.reservation,
			Policy: builtinOf(q.policy), PolicyName: q.policy.Name(), Weight: q.Weight, MinShare: q.MinShare, MaxShare: q.MaxShare, Demand: q.Demand,
			Usage: q.Usage, FairShare: q.FairShare, SteadyFairShare: q.SteadyFairShare, AMUsage: q.amUsage,
			MaxAMShare: q.settings.MaxAMShare, NumRunnable: q.numRunnable, NumPending: len(q.nonRunnableApps),
			MaxRunningApps: q.maxRunningApps(), MinSharePreemptionTimeout: q.minShareTimeout,
			FairSharePreemptionTimeout: q.fairShareTimeout, FairSharePreemptionThreshold: q.fairShareThreshold,
			Preemptable: q.preemptable}
		if q.parent != nil {
			qi.Parent = q.parent.path
		}
		if q.leaf {
			qi.MaxAMResource = s.maxAMResource(q)
		}
		out.Queues = append(out.Queues, qi)
		for _, c := range q.children {
			walk(c)
		}
	}
	walk(s.root)
}

func (s *Scheduler) snapApps(out *Snapshot) {
	apps := make([]*app, 0, len(s.apps))
	for _, a := range s.apps {
		apps = append(apps, a)
	}
	slices.SortFunc(apps, func(x, y *app) int { return cmpInt64(int64(x.seq), int64(y.seq)) })
	out.Apps = make([]AppInfo, 0, len(apps))
	for _, a := range apps {
		out.Apps = append(out.Apps, AppInfo{ID: a.id, Queue: a.q.path, User: a.user, Runnable: a.runnable, Start: a.StartTime,
			Weight: a.Weight, Usage: a.Usage, Demand: a.Demand, FairShare: a.FairShare, Reserved: a.reservedRes,
			FairShareStarvation: a.fairStarvation, MinShareStarvation: a.minStarvation, AMResource: a.amRes,
			AMRunning: a.amRunning, Containers: a.live.n})
	}
}

// MarkForPreemption flags a live container as about to be preempted (YARN's
// trackContainerForPreemption: the application can be told); nothing is
// freed until PreemptContainer.
func (s *Scheduler) MarkForPreemption(id ContainerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.live.Get(id)
	if !ok {
		return notFound("container.id", id)
	}
	c.marked = true
	return nil
}

// PreemptContainer kills a live container for preemption (status
// Preempted); the preemption policy (a later package) decides which.
func (s *Scheduler) PreemptContainer(id ContainerID) (Ended, error) {
	return s.endContainer(id, Preempted)
}

// KillContainer kills a live container (status Killed).
func (s *Scheduler) KillContainer(id ContainerID) (Ended, error) {
	return s.endContainer(id, Killed)
}

func (s *Scheduler) endContainer(id ContainerID, st ExitStatus) (Ended, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.live.Get(id)
	if !ok {
		return Ended{}, notFound("container.id", id)
	}
	s.releaseContainer(c)
	if s.obs != nil {
		s.emitEnded(c.Container, st)
	}
	return Ended{Container: c.Container, Status: st}, nil
}

// KillReservation cancels a container reservation on a node.
func (s *Scheduler) KillReservation(id ContainerID) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.resvByID[id]
	if !ok {
		return notFound("reservation.id", id)
	}
	s.unreserve(r)
	return nil
}

// Check verifies the scheduler's books: every queue's usage is the sum of
// its children's (or applications'), nodes' allocations match their
// containers, and runnable counts match. Tests and fuzzers call it.
func (s *Scheduler) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var walk func(q *fsQueue) (berth.Resource, int, error)
	walk = func(q *fsQueue) (berth.Resource, int, error) {
		var sum berth.Resource
		n := 0
		if q.leaf {
			for _, a := range append(slices.Clone(q.runnableApps), q.nonRunnableApps...) {
				sum = sum.Add(a.Usage)
			}
			n = len(q.runnableApps)
		}
		for _, c := range q.children {
			u, k, err := walk(c)
			if err != nil {
				return u, k, err
			}
			sum = sum.Add(u)
			n += k
		}
		if !sum.Equal(q.Usage) {
			return sum, n, kindErr(berth.ErrInvalidState, "queue", q.path, "usage %v is not the sum %v", q.Usage, sum)
		}
		if n != q.numRunnable {
			return sum, n, kindErr(berth.ErrInvalidState, "queue", q.path, "runnable count %d is not %d", q.numRunnable, n)
		}
		return sum, n, nil
	}
	if _, _, err := walk(s.root); err != nil {
		return err
	}
	if err := s.checkTree(); err != nil {
		return err
	}
	if !slices.Equal(s.nodeIDs, sortedKeys(s.nodes)) || len(s.byID) != len(s.nodeIDs) {
		return kindErr(berth.ErrInvalidState, "nodes", len(s.nodes), "the sorted node ids are out of step")
	}
	for i, n := range s.byID {
		if s.nodes[s.nodeIDs[i]] != n {
			return kindErr(berth.ErrInvalidState, "node", s.nodeIDs[i], "the nodes in id order are out of step")
		}
	}
	for _, id := range s.nodeIDs {
		n := s.nodes[id]
		var sum berth.Resource
		for c := n.live.head; c != nil; c = c.links[nodeList].next {
			sum = sum.Add(c.Resource)
		}
		if !sum.Equal(n.allocated) || !n.allocated.FitsIn(n.Capability) {
			return kindErr(berth.ErrInvalidState, "node", id, "allocated %v, containers %v, capability %v", n.allocated, sum, n.Capability)
		}
	}
	return nil
}
