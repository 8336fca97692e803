package preempt

import (
	"slices"
	"strings"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/capacity"
	"github.com/berthsched/berth/queue"
)

// Container is a live container as the policy sees it (package queue's
// record, shared with the schedulers).
type Container = queue.Container

// ContainerID identifies a container or a container reservation.
type ContainerID = queue.ContainerID

// Reservation is a container reserved on a node for an application.
type Reservation = queue.ReservedContainer

// CapacityView is the read-only view of the scheduler that one round works on
// (YARN's TempQueuePerPartition tree and the applications under it). It is
// built from one snapshot at the start of the round; selectors must not
// modify it.
type CapacityView struct {
	// Time is the snapshot's time.
	Time berth.Time
	// Resource is the cluster's total; Calculator compares through it.
	Resource   berth.Resource
	Calculator berth.Calculator
	// MinAllocation is the scheduler's minimum allocation (the intra-queue
	// selector's user-limit slack).
	MinAllocation berth.Resource
	// Root is the queue tree; Queues lists it depth first, Leaves the
	// leaves in the same order (YARN's leafQueueNames).
	Root           *QueueView
	Queues, Leaves []*QueueView
	// Apps lists every application, by submission order.
	Apps []*AppView
	// Nodes lists the nodes by id.
	Nodes []*NodeView

	snap       *capacity.Snapshot
	nodeOf     []int32 // node index of each snapshot container, -1 if none
	nodesBuilt bool
	byPath     map[string]*QueueView
	byNode     map[string]*NodeView
	byApp      map[string]*AppView
}

// Queue returns the queue with the full path p, or nil.
func (c *CapacityView) Queue(p string) *QueueView { return c.byPath[p] }

// Node returns the node with id, or nil.
func (c *CapacityView) Node(id string) *NodeView { return c.byNode[id] }

// App returns the application with id, or nil.
func (c *CapacityView) App(id string) *AppView { return c.byApp[id] }

// QueueView is one queue of the round's snapshot (YARN's
// TempQueuePerPartition, default partition).
type QueueView struct {
	// Path is the full path; Parent is nil for root.
	Path     string
	Parent   *QueueView
	Children []*QueueView
	// Guaranteed and Maximum are the effective minimum and maximum.
	Guaranteed, Maximum berth.Resource
	// Used includes reserved containers, as the capacity scheduler counts.
	Used, Reserved berth.Resource
	// Pending is the demand the users' limits let through;
	// PendingDeductReserved the same less what applications reserved.
	// A parent's are the sums of its children's.
	Pending, PendingDeductReserved berth.Resource
	// UsedCapacity is used over guaranteed (the intra-queue threshold).
	UsedCapacity float32
	// DisablePreemption and DisableIntraQueue are the inherited per-queue
	// switches of the configuration.
	DisablePreemption, DisableIntraQueue bool
	// Priority is the queue's priority; RelativePriority is it when the
	// parent orders children by priority-utilization, else 0.
	Priority, RelativePriority int
	// MaxAMCapacity is the guarantee times the leaf's AM share: the FIFO
	// selector keeps AM containers while the queue's skipped AMs stay
	// within it.
	MaxAMCapacity berth.Resource
	// Apps are a leaf's applications in scheduling order (most important
	// first); the preemption order is the reverse.
	Apps []*AppView

	idx int
}

// IsLeaf reports whether the queue has no children.
func (q *QueueView) IsLeaf() bool { return len(q.Children) == 0 }

// AppView is an application in the round's snapshot.
type AppView struct {
	// ID, User and Queue of the application.
	ID, User string
	Queue    *QueueView
	// Priority is the application priority; Order its submission number.
	Priority int32
	Order    uint64
	Start    berth.Time
	// Used (live containers), Reserved, Pending (outstanding asks), and
	// AMUsed (its live AM container's resource).
	Used, Reserved, Pending, AMUsed berth.Resource
	// Containers are the live containers, by id; Reservations its reserved
	// containers, by id.
	Containers   []*Container
	Reservations []*Reservation

	idx int
}

// NodeView is a node in the round's snapshot.
type NodeView struct {
	// ID of the node; Capability and Allocated (live containers).
	ID                    string
	Capability, Allocated berth.Resource
	// Reservation is the container reserved on the node, or nil.
	Reservation *Reservation
	containers  []*Container
	idx         int
}

// NodeContainers lists n's live containers, by id. The lists are built on
// first use (only the node-level selectors need them).
func (c *CapacityView) NodeContainers(n *NodeView) []*Container {
	if !c.nodesBuilt {
		c.buildNodeLists()
	}
	return n.containers
}

func (c *CapacityView) buildNodeLists() {
	c.nodesBuilt = true
	nodeN := make([]int32, len(c.Nodes))
	for _, ni := range c.nodeOf {
		if ni >= 0 {
			nodeN[ni]++
		}
	}
	back := make([]*Container, len(c.nodeOf))
	off := 0
	for i, n := range c.Nodes {
		n.containers = back[off : off : off+int(nodeN[i])]
		off += int(nodeN[i])
	}
	for i, ni := range c.nodeOf {
		if ni >= 0 {
			n := c.Nodes[ni]
			n.containers = append(n.containers, &c.snap.Containers[i].Container)
		}
	}
}

// Unallocated is the node's free resource.
func (n *NodeView) Unallocated() berth.Resource { return n.Capability.Sub(n.Allocated) }

// pendingFunc reads a leaf's pending within user limits.
type pendingFunc func(path string, deductReserved bool) (berth.Resource, error)

// buildCluster turns a capacity snapshot into the round's view. cfg gives
// the calculator, the minimum allocation, child ordering and AM shares.
func buildCluster(snap *capacity.Snapshot, cfg capacity.Config, pc *ProportionalConfig, pending pendingFunc) (*CapacityView, error) {
	rc := cfg.Calculator
	if rc == nil {
		rc = berth.MemoryCalculator{}
	}
	c := &CapacityView{Time: snap.Time, Resource: snap.Cluster, Calculator: rc, MinAllocation: cfg.MinAllocation, snap: snap}
	settings := map[string]capacity.QueueSettings{}
	var walk func(qc *capacity.QueueConfig, path string)
	walk = func(qc *capacity.QueueConfig, path string) {
		settings[path] = qc.Settings
		for i := range qc.Children {
			walk(&qc.Children[i], path+"."+qc.Children[i].Name)
		}
	}
	walk(&cfg.Root, "root")
	qs := snap.Queues.Queues
	views := make([]QueueView, len(qs))
	c.Queues = make([]*QueueView, len(qs))
	c.byPath = make(map[string]*QueueView, len(qs))
	for i := range qs {
		s := &qs[i]
		v := &views[i]
		v.idx = i
		v.Path = s.Path.String()
		v.Guaranteed, v.Maximum = s.Extra.Guaranteed, s.Extra.Maximum
		v.Used, v.Reserved = s.Extra.Used, s.Extra.Reserved
		v.UsedCapacity = s.Extra.UsedCapacity
		v.Priority = s.Extra.Priority
		c.Queues[i] = v
		c.byPath[v.Path] = v
	}
	for i := range qs {
		v := c.Queues[i]
		if p := qs[i].Parent; !p.IsZero() {
			v.Parent = c.byPath[p.String()]
		}
		if len(qs[i].Children) > 0 {
			v.Children = make([]*QueueView, 0, len(qs[i].Children))
			for _, ch := range qs[i].Children {
				v.Children = append(v.Children, c.byPath[ch.String()])
			}
		}
	}
	c.Root = c.Queues[0]
	for _, v := range c.Queues { // parents come first: inheritance flows down
		dis, intra := false, false
		if v.Parent != nil {
			dis, intra = v.Parent.DisablePreemption, v.Parent.DisableIntraQueue
			set, ok := settings[v.Parent.Path]
			if !ok {
				set, ok = settings[planOf(v.Parent.Path)]
			}
			if ok && set.ChildOrdering == capacity.OrderPriorityUtilization {
				v.RelativePriority = v.Priority
			}
		}
		if qp, ok := pc.Queues[v.Path]; ok {
			if qp.DisablePreemption != nil {
				dis = *qp.DisablePreemption
			}
			if qp.DisableIntraQueuePreemption != nil {
				intra = *qp.DisableIntraQueuePreemption
			}
		}
		v.DisablePreemption, v.DisableIntraQueue = dis, intra || dis
		if v.IsLeaf() {
			c.Leaves = append(c.Leaves, v)
			set, ok := settings[v.Path]
			if !ok { // a reservation queue uses its plan's settings
				set = settings[planOf(v.Path)]
			}
			amPct := set.MaxAMResourcePercent
			if amPct < 0 {
				amPct = cfg.MaximumAMResourcePercent
			}
			v.MaxAMCapacity = v.Guaranteed.Mul(amPct)
			var err error
			if v.Pending, err = pending(v.Path, false); err != nil {
				return nil, err
			}
			if v.PendingDeductReserved, err = pending(v.Path, true); err != nil {
				return nil, err
			}
		}
	}
	for i := len(c.Queues) - 1; i >= 0; i-- { // children after parents: sum upwards
		v := c.Queues[i]
		if v.Parent != nil {
			v.Parent.Pending = v.Parent.Pending.Add(v.Pending)
			v.Parent.PendingDeductReserved = v.Parent.PendingDeductReserved.Add(v.PendingDeductReserved)
		}
	}

	apps := make([]AppView, len(snap.Apps))
	c.Apps = make([]*AppView, len(snap.Apps))
	c.byApp = make(map[string]*AppView, len(snap.Apps))
	counts := make(map[*QueueView]int, len(c.Leaves))
	for i := range snap.Apps {
		a := &snap.Apps[i]
		v := &apps[i]
		*v = AppView{ID: a.ID, User: a.User, Queue: c.byPath[a.Queue], Priority: a.Priority, Order: a.Order, Start: a.Start,
			Used: a.Used, Reserved: a.Reserved, Pending: a.Pending}
		v.idx = i
		c.Apps[i] = v
		c.byApp[a.ID] = v
		if v.Queue != nil {
			counts[v.Queue]++
		}
	}
	for _, q := range c.Leaves {
		q.Apps = make([]*AppView, 0, counts[q])
	}
	for _, a := range c.Apps {
		if a.Queue != nil {
			a.Queue.Apps = append(a.Queue.Apps, a)
		}
	}
	for _, q := range c.Leaves {
		set, ok := settings[q.Path]
		if !ok {
			set = settings[planOf(q.Path)]
		}
		sortApps(q.Apps, set.AppOrdering)
	}

	c.Nodes = make([]*NodeView, len(snap.Nodes))
	nodes := make([]NodeView, len(snap.Nodes))
	c.byNode = make(map[string]*NodeView, len(snap.Nodes))
	for i := range snap.Nodes {
		n := &snap.Nodes[i]
		nodes[i] = NodeView{ID: n.ID, Capability: n.Capability, Allocated: n.Allocated, idx: i}
		c.Nodes[i] = &nodes[i]
		c.byNode[n.ID] = &nodes[i]
	}
	// Containers: count per application, then fill from one backing slice,
	// so a round allocates per queue, application and node, not per
	// container; node lists wait for NodeContainers. Consecutive
	// containers often share their node, so the last lookup is remembered.
	appOf := make([]int32, len(snap.Containers))
	nodeOf := make([]int32, len(snap.Containers))
	appN := make([]int32, len(c.Apps))
	lastApp, lastNode := "", ""
	ai, ni := int32(-1), int32(-1)
	for i := range snap.Containers {
		ct := &snap.Containers[i].Container
		if ct.App != lastApp || ai < 0 {
			lastApp, ai = ct.App, -1
			if a := c.byApp[ct.App]; a != nil {
				ai = int32(a.idx)
			}
		}
		if ct.Node != lastNode || ni < 0 {
			lastNode, ni = ct.Node, -1
			if n := c.byNode[ct.Node]; n != nil {
				ni = int32(n.idx)
			}
		}
		appOf[i], nodeOf[i] = ai, ni
		if ai >= 0 {
			appN[ai]++
			if ct.AM {
				a := c.Apps[ai]
				a.AMUsed = a.AMUsed.Add(ct.Resource)
			}
		}
	}
	appBack := make([]*Container, len(snap.Containers))
	off := 0
	for i, a := range c.Apps {
		a.Containers = appBack[off : off : off+int(appN[i])]
		off += int(appN[i])
	}
	for i := range snap.Containers {
		ct := &snap.Containers[i].Container
		if ai := appOf[i]; ai >= 0 {
			a := c.Apps[ai]
			a.Containers = append(a.Containers, ct)
		}
	}
	c.nodeOf = nodeOf
	for i := range snap.Reservations {
		r := &snap.Reservations[i]
		if a := c.byApp[r.App]; a != nil {
			a.Reservations = append(a.Reservations, r)
		}
		if n := c.byNode[r.Node]; n != nil && n.Reservation == nil {
			n.Reservation = r
		}
	}
	return c, nil
}

// planOf is the plan queue of a reservation queue's path.
func planOf(path string) string {
	if i := strings.LastIndexByte(path, '.'); i > 0 {
		return path[:i]
	}
	return path
}

// sortApps puts a leaf's applications in the scheduler's order: FIFO is
// application priority (higher first) then submission; fair is used memory
// (smaller first) then start time, then submission.
func sortApps(apps []*AppView, o capacity.AppOrdering) {
	slices.SortStableFunc(apps, func(x, y *AppView) int {
		if o == capacity.OrderFair {
			if c := compareInts(x.Used.Memory, y.Used.Memory); c != 0 {
				return c
			}
			if c := compareInts(x.Start, y.Start); c != 0 {
				return c
			}
		} else if x.Priority != y.Priority {
			return compareInts(y.Priority, x.Priority)
		}
		return compareInts(x.Order, y.Order)
	})
}

func compareInts[T int | int32 | int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
