package preempt

import (
	"errors"
	"fmt"
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
// (YARN's TempQueuePerPartition tree and the applications under it). Its
// queues, applications and nodes come from one
// [CapacityState.PreemptionState] read at the start of the round;
// containers are read on demand, per application
// ([CapacityView.AppContainers]) or per node ([CapacityView.NodeContainers]),
// only for what the selectors search. Selectors must not modify it.
type CapacityView struct {
	// Time is the state's time.
	Time berth.Time
	// Resource is the cluster's total (the round's budget is a share of
	// it); Calculator compares resources, each partition's relative to
	// its own resource.
	Resource   berth.Resource
	Calculator berth.Calculator
	// Partitions are the cluster's partitions, the default one first:
	// each has its own tree of guarantees and demands, computed
	// separately, as YARN's TempQueuePerPartition trees.
	Partitions []PartitionView
	// MinAllocation is the scheduler's minimum allocation (the intra-queue
	// selector's user-limit slack).
	MinAllocation berth.Resource
	// Root is the queue tree; Queues lists it depth first, Leaves the
	// leaves in the same order (YARN's leafQueueNames).
	Root           *QueueView
	Queues, Leaves []*QueueView
	// Apps lists every application, by submission order.
	Apps []*AppView
	// Nodes lists the nodes holding a reservation, by id: the node-level
	// selectors start from them, and a round does not read every node.
	// Containers on them: [CapacityView.NodeContainers].
	Nodes []*NodeView

	state  CapacityState  // the read side the containers come from
	partOf map[string]int // a label's partition
	nodeOn map[string]int // a labelled node's partition
	ctrs   []Container    // containers read so far (grows; earlier arrays stay valid)
	ptrs   []*Container   // the per-application and per-node lists, back to back
	byPath map[string]*QueueView
	byNode map[string]*NodeView // built on first use
	byApp  map[string]*AppView
}

// PartitionView is one partition of the round's state.
type PartitionView struct {
	// Label names it ("" the default partition); Resource is its nodes'
	// total; NonExclusive tells whether other partitions' queues may
	// borrow it (a queue's maximum there is then the whole partition).
	Label        string
	Resource     berth.Resource
	NonExclusive bool
}

// Queue returns the queue with the full path p, or nil.
func (c *CapacityView) Queue(p string) *QueueView { return c.byPath[p] }

// PartitionOf returns the index in Partitions of the partition labelled
// label (a node's Label); -1 if there is none.
func (c *CapacityView) PartitionOf(label string) int {
	if label == "" {
		return 0
	}
	if p, ok := c.partOf[label]; ok {
		return p
	}
	return -1
}

// PartitionOfNode returns the index in Partitions of the partition of the
// node with id, which a container on it counts in.
func (c *CapacityView) PartitionOfNode(id string) int {
	if p, ok := c.nodeOn[id]; ok {
		return p
	}
	return 0
}

// Node returns the node with id if it holds a reservation, or nil.
func (c *CapacityView) Node(id string) *NodeView {
	if c.byNode == nil {
		c.byNode = make(map[string]*NodeView, len(c.Nodes))
		for _, n := range c.Nodes {
			c.byNode[n.ID] = n
		}
	}
	return c.byNode[id]
}

// nodeByID finds a node by binary search (Nodes is sorted by id).
func (c *CapacityView) nodeByID(id string) *NodeView {
	i, ok := slices.BinarySearchFunc(c.Nodes, id, func(n *NodeView, id string) int { return strings.Compare(n.ID, id) })
	if !ok {
		return nil
	}
	return c.Nodes[i]
}

// App returns the application with id, or nil.
func (c *CapacityView) App(id string) *AppView { return c.byApp[id] }

// QueueView is one queue of the round's state (YARN's
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
	// Partitions is the queue's state on each labelled partition, in the
	// order of CapacityView.Partitions[1:]; the fields above are its
	// state on the default partition.
	Partitions []QueuePartition
	// Borrowed are a leaf's containers of default-partition asks on
	// labelled nodes (YARN's ignore-exclusivity containers), the latest
	// application's first, each newest first.
	Borrowed []*Container

	idx        int
	userLimits map[string]berth.Resource // from the state, built on first use
}

// QueuePartition is a queue's state on one labelled partition.
type QueuePartition struct {
	// Guaranteed and Maximum on the partition; on a non-exclusive one a
	// queue without a maximum of its own there may use all of it.
	Guaranteed, Maximum berth.Resource
	// Used (borrowed containers included) and Reserved there; Pending
	// and PendingDeductReserved are the asks labelled with it that the
	// users' limits there let through.
	Used, Reserved, Pending, PendingDeductReserved berth.Resource
	// UsedCapacity is used over guaranteed there.
	UsedCapacity float32
}

// On returns q's state on partition p (0 the default); a partition q does
// not know has the zero state.
func (q *QueueView) On(p int) QueuePartition {
	if p < 0 || p > len(q.Partitions) {
		return QueuePartition{}
	}
	if p == 0 {
		return QueuePartition{Guaranteed: q.Guaranteed, Maximum: q.Maximum, Used: q.Used, Reserved: q.Reserved,
			Pending: q.Pending, PendingDeductReserved: q.PendingDeductReserved, UsedCapacity: q.UsedCapacity}
	}
	return q.Partitions[p-1]
}

// IsLeaf reports whether the queue has no children.
func (q *QueueView) IsLeaf() bool { return len(q.Children) == 0 }

// AppView is an application in the round's state.
type AppView struct {
	// ID, User and Queue of the application.
	ID, User string
	Queue    *QueueView
	// Priority is the application priority; Order its submission number.
	Priority int32
	Order    uint64
	Start    berth.Time
	// Used (live containers), Reserved, Pending (outstanding asks), and
	// AMUsed (its live AM container's resource), on every partition.
	Used, Reserved, Pending, AMUsed berth.Resource
	// Partitions are its usage and demand per labelled partition, in the
	// order of CapacityView.Partitions[1:]; AMPartition is its AM's.
	Partitions  []capacity.AppPartition
	AMPartition int
	// Reservations are its reserved containers, by id. Its live containers
	// are read on demand: [CapacityView.AppContainers].
	Reservations []*Reservation

	idx                 int
	userLimit           berth.Resource
	containerPriorities int // distinct request priorities of its containers
	containers          []*Container
	loaded              bool
}

// NodeView is a node in the round's state.
type NodeView struct {
	// ID of the node and its Label (its partition); Capability and
	// Allocated (live containers).
	ID, Label             string
	Capability, Allocated berth.Resource
	// Reservation is the container reserved on the node, or nil.
	Reservation *Reservation
	containers  []*Container
	loaded      bool
	idx         int
}

// AppContainers lists a's live containers, by id. They are read from the
// scheduler on first use, so a round pays only for the applications its
// selectors search; an application that ended meanwhile has none.
func (c *CapacityView) AppContainers(a *AppView) ([]*Container, error) {
	if err := c.readable(a == nil, "app"); err != nil {
		return nil, err
	}
	if a.loaded {
		return a.containers, nil
	}
	cs, err := c.read(func(dst []Container) ([]Container, error) { return c.state.AppendAppContainers(dst, a.ID) })
	if err != nil {
		return nil, fmt.Errorf("reading the containers of application %s: %w", a.ID, err)
	}
	a.containers, a.loaded = cs, true
	return cs, nil
}

// appContainersBefore reads up to limit of a's live containers with an id
// below before (all when 0), newest first.
func (c *CapacityView) appContainersBefore(a *AppView, before ContainerID, limit int) ([]*Container, error) {
	cs, err := c.read(func(dst []Container) ([]Container, error) {
		return c.state.AppendAppContainersBefore(dst, a.ID, before, limit)
	})
	if err != nil {
		return nil, fmt.Errorf("reading the containers of application %s: %w", a.ID, err)
	}
	return cs, nil
}

// NodeContainers lists n's live containers, by id, read from the
// scheduler on first use (only the node-level selectors need them); a node
// removed meanwhile has none.
func (c *CapacityView) NodeContainers(n *NodeView) ([]*Container, error) {
	if err := c.readable(n == nil, "node"); err != nil {
		return nil, err
	}
	if n.loaded {
		return n.containers, nil
	}
	cs, err := c.read(func(dst []Container) ([]Container, error) { return c.state.AppendNodeContainers(dst, n.ID) })
	if err != nil {
		return nil, fmt.Errorf("reading the containers of node %s: %w", n.ID, err)
	}
	n.containers, n.loaded = cs, true
	return cs, nil
}

// readable refuses a read with a nil argument, or of a view that is not
// a round's (the zero CapacityView reads from no scheduler).
func (c *CapacityView) readable(nilArg bool, arg string) error {
	switch {
	case nilArg:
		return berth.InvalidField(arg, nil, "must not be nil")
	case c.state == nil:
		return &berth.FieldError{Field: "CapacityView", Reason: "not a round's view", Kind: berth.ErrInvalidState}
	}
	return nil
}

// read appends one list to the round's container slab and returns
// pointers to it, carved from the round's pointer slab: a round allocates
// O(log containers read) times for containers, not once per container.
// When a slab grows, earlier lists keep pointing into the old array,
// which is never written again.
func (c *CapacityView) read(appendTo func([]Container) ([]Container, error)) ([]*Container, error) {
	start := len(c.ctrs)
	out, err := appendTo(c.ctrs)
	if err != nil {
		if errors.Is(err, berth.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	c.ctrs = out
	n := len(c.ctrs) - start
	if n == 0 {
		return nil, nil
	}
	if cap(c.ptrs)-len(c.ptrs) < n {
		c.ptrs = make([]*Container, 0, max(2*cap(c.ptrs), n, 256))
	}
	p0 := len(c.ptrs)
	for i := start; i < len(c.ctrs); i++ {
		c.ptrs = append(c.ptrs, &c.ctrs[i])
	}
	return c.ptrs[p0:len(c.ptrs):len(c.ptrs)], nil
}

// Unallocated is the node's free resource.
func (n *NodeView) Unallocated() berth.Resource { return n.Capability.Sub(n.Allocated) }

// UsedOn is a's usage on partition p (0 the default, which holds what the
// labelled ones do not); zero on a partition a does not know.
func (a *AppView) UsedOn(p int) berth.Resource {
	return a.onPart(p, a.Used, func(x *capacity.AppPartition) berth.Resource { return x.Used })
}

// PendingOn is a's demand on partition p, as [AppView.UsedOn].
func (a *AppView) PendingOn(p int) berth.Resource {
	return a.onPart(p, a.Pending, func(x *capacity.AppPartition) berth.Resource { return x.Pending })
}

func (a *AppView) onPart(p int, total berth.Resource, field func(*capacity.AppPartition) berth.Resource) berth.Resource {
	if p < 0 || p > len(a.Partitions) {
		return berth.Resource{}
	}
	if p != 0 {
		return field(&a.Partitions[p-1])
	}
	for i := range a.Partitions {
		total = total.Sub(field(&a.Partitions[i]))
	}
	return total
}

// buildCluster turns the scheduler's preemption state into the round's
// view. cfg gives the calculator, the minimum allocation, child ordering
// and AM shares.
func buildCluster(st *capacity.PreemptionState, cfg capacity.Config, pc *ProportionalConfig, state CapacityState) (*CapacityView, error) {
	calc := cfg.Calculator
	if calc == nil {
		calc = berth.MemoryCalculator{}
	}
	c := &CapacityView{Time: st.Time, Resource: st.Cluster, Calculator: calc, MinAllocation: cfg.MinAllocation, state: state}
	if err := c.addPartitions(st); err != nil {
		return nil, err
	}
	if err := c.addQueues(st.Queues); err != nil {
		return nil, err
	}
	conf := configsOf(&cfg.Root, st.Queues)
	c.settleQueues(st.Queues, conf, cfg.MaximumAMResourcePercent, pc)
	c.sumPendingUpwards()
	if err := c.addApps(st.Apps, conf); err != nil {
		return nil, err
	}
	c.addNodes(st)
	return c, nil
}

// addPartitions lists the state's partitions (the default one alone when
// the state names none) and, with labels, which partition each labelled
// node is on.
func (c *CapacityView) addPartitions(st *capacity.PreemptionState) error {
	c.Partitions = make([]PartitionView, 0, max(len(st.Partitions), 1))
	for _, p := range st.Partitions {
		c.Partitions = append(c.Partitions, PartitionView{Label: p.Label, Resource: p.Resource, NonExclusive: p.NonExclusive})
	}
	if len(c.Partitions) == 0 { // a scheduler of the host's that lists none
		c.Partitions = append(c.Partitions, PartitionView{Resource: st.Cluster})
	}
	if len(c.Partitions) == 1 {
		return nil
	}
	c.partOf = make(map[string]int, len(c.Partitions))
	for i, p := range c.Partitions[1:] {
		c.partOf[p.Label] = i + 1
	}
	c.nodeOn = make(map[string]int, len(st.LabelledNodes))
	for _, n := range st.LabelledNodes {
		p := c.PartitionOf(n.Label)
		if p < 0 {
			return berth.InvalidField("labelled-nodes["+n.ID+"].label", n.Label, "not a partition of the state")
		}
		c.nodeOn[n.ID] = p
	}
	return nil
}

// addQueues makes one view per queue of the state, parents before
// children, each parent's children in one shared backing array.
func (c *CapacityView) addQueues(qs []capacity.PreemptionQueue) error {
	if len(qs) == 0 {
		return berth.InvalidField("queues", 0, "the scheduler reported no root queue")
	}
	views := make([]QueueView, len(qs))
	c.Queues = make([]*QueueView, len(qs))
	c.byPath = make(map[string]*QueueView, len(qs))
	nChildren := make([]int32, len(qs))
	for i := range qs {
		if p := qs[i].Parent; p >= 0 && p < i {
			nChildren[p]++
		} else if i > 0 || p >= 0 {
			return berth.InvalidField(fmt.Sprintf("queues[%d].parent", i), p, "must precede the queue")
		}
	}
	children := make([]*QueueView, 0, len(qs))
	for i := range qs {
		s := &qs[i]
		v := &views[i]
		v.idx = i
		v.Path = s.Path
		v.Guaranteed, v.Maximum = s.Guaranteed, s.Maximum
		v.Used, v.Reserved = s.Used, s.Reserved
		v.UsedCapacity = s.UsedCapacity
		v.Priority = s.Priority
		if err := c.queuePartitions(v, s); err != nil {
			return err
		}
		if n := int(nChildren[i]); n > 0 {
			v.Children = children[len(children) : len(children) : len(children)+n]
			children = children[:len(children)+n]
		}
		if s.Parent >= 0 {
			v.Parent = &views[s.Parent]
			v.Parent.Children = append(v.Parent.Children, v)
		}
		c.Queues[i] = v
		c.byPath[v.Path] = v
	}
	c.Root = c.Queues[0]
	return nil
}

// queueConfigs holds each queue's configuration, by queue index; nil for
// a queue missing from the configuration (a reservation queue).
type queueConfigs []*capacity.QueueConfig

// configsOf finds each queue's configuration by walking the
// configuration tree alongside the queues (no path strings are built).
func configsOf(root *capacity.QueueConfig, qs []capacity.PreemptionQueue) queueConfigs {
	conf := make(queueConfigs, len(qs))
	conf[0] = root
	for i := 1; i < len(qs); i++ {
		if pc := conf[qs[i].Parent]; pc != nil {
			name := qs[i].Path[strings.LastIndexByte(qs[i].Path, '.')+1:]
			for j := range pc.Children {
				if pc.Children[j].Name == name {
					conf[i] = &pc.Children[j]
					break
				}
			}
		}
	}
	return conf
}

// settings are v's configured settings, or its parent's (its plan's) for
// a queue missing from the configuration; false if neither is there.
func (conf queueConfigs) settings(v *QueueView) (*capacity.QueueSettings, bool) {
	if qc := conf[v.idx]; qc != nil {
		return &qc.Settings, true
	}
	if v.Parent != nil && conf[v.Parent.idx] != nil {
		return &conf[v.Parent.idx].Settings, true
	}
	return nil, false
}

// settleQueues gives each queue what it inherits and what the policy's
// per-queue settings override (preemption switches, relative priority),
// and each leaf its AM limit, pending demand and borrowed resources.
func (c *CapacityView) settleQueues(qs []capacity.PreemptionQueue, conf queueConfigs, amPercent float64, pc *ProportionalConfig) {
	for i, v := range c.Queues { // parents come first: inheritance flows down
		dis, intra := false, false
		if v.Parent != nil {
			dis, intra = v.Parent.DisablePreemption, v.Parent.DisableIntraQueue
			if set, ok := conf.settings(v.Parent); ok && set.ChildOrdering == capacity.OrderPriorityUtilization {
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
			c.settleLeaf(v, &qs[i], conf, amPercent)
		}
	}
}

// settleLeaf sets a leaf's AM limit (amPercent when its own is unset),
// its pending demand within limits, overall and per partition, and what
// it borrowed.
func (c *CapacityView) settleLeaf(v *QueueView, s *capacity.PreemptionQueue, conf queueConfigs, amPercent float64) {
	var amPct float64 // a queue missing from the configuration has zero settings
	if set, ok := conf.settings(v); ok {
		amPct = set.MaxAMResourcePercent
	}
	if amPct < 0 {
		amPct = amPercent
	}
	v.MaxAMCapacity = v.Guaranteed.Mul(amPct)
	v.Pending, v.PendingDeductReserved = s.PendingWithinLimits, s.PendingWithinLimitsDeductReserved
	for j, pp := range s.PartitionPending {
		if j < len(v.Partitions) {
			v.Partitions[j].Pending, v.Partitions[j].PendingDeductReserved = pp.All, pp.DeductReserved
		}
	}
	if n := len(s.Borrowed); n > 0 {
		c.borrowed(v, s.Borrowed)
	}
}

// sumPendingUpwards adds each queue's pending demand, overall and per
// partition, to its parent's.
func (c *CapacityView) sumPendingUpwards() {
	for i := len(c.Queues) - 1; i >= 0; i-- { // children after parents
		v := c.Queues[i]
		if p := v.Parent; p != nil {
			p.Pending = p.Pending.Add(v.Pending)
			p.PendingDeductReserved = p.PendingDeductReserved.Add(v.PendingDeductReserved)
			for j := range v.Partitions {
				p.Partitions[j].Pending = p.Partitions[j].Pending.Add(v.Partitions[j].Pending)
				p.Partitions[j].PendingDeductReserved = p.Partitions[j].PendingDeductReserved.Add(v.Partitions[j].PendingDeductReserved)
			}
		}
	}
}

// addApps makes one view per application and lists each leaf's
// applications, in one shared backing array, in the leaf's ordering.
func (c *CapacityView) addApps(as []capacity.PreemptionApp, conf queueConfigs) error {
	apps := make([]AppView, len(as))
	c.Apps = make([]*AppView, len(as))
	c.byApp = make(map[string]*AppView, len(as))
	counts := make([]int32, len(c.Queues))
	for i := range as {
		a := &as[i]
		v := &apps[i]
		*v = AppView{ID: a.ID, User: a.User, Queue: c.byPath[a.Queue], Priority: a.Priority, Order: a.Order, Start: a.Start,
			Used: a.Used, Reserved: a.Reserved, Pending: a.Pending, AMUsed: a.AMUsed, userLimit: a.UserLimit,
			containerPriorities: a.ContainerPriorities, Partitions: a.Partitions, AMPartition: a.AMPartition}
		if len(a.Partitions) != len(c.Partitions)-1 || a.AMPartition < 0 || a.AMPartition >= len(c.Partitions) {
			return berth.InvalidField(fmt.Sprintf("apps[%d].partitions", i), len(a.Partitions), "do not match the partitions")
		}
		v.idx = i
		c.Apps[i] = v
		c.byApp[a.ID] = v
		if v.Queue != nil && v.Queue.IsLeaf() {
			counts[v.Queue.idx]++
		}
	}
	appPtrs := make([]*AppView, 0, len(c.Apps))
	for _, q := range c.Leaves {
		n := int(counts[q.idx])
		q.Apps = appPtrs[len(appPtrs) : len(appPtrs) : len(appPtrs)+n]
		appPtrs = appPtrs[:len(appPtrs)+n]
	}
	for _, a := range c.Apps {
		if a.Queue != nil && a.Queue.IsLeaf() {
			a.Queue.Apps = append(a.Queue.Apps, a)
		}
	}
	for _, q := range c.Leaves {
		o := capacity.OrderFIFO
		if set, ok := conf.settings(q); ok {
			o = set.AppOrdering
		}
		sortApps(q.Apps, o)
	}
	return nil
}

// addNodes makes one view per node and hangs each reservation on its
// application and, the first on each, on its node.
func (c *CapacityView) addNodes(st *capacity.PreemptionState) {
	c.Nodes = make([]*NodeView, len(st.Nodes))
	nodes := make([]NodeView, len(st.Nodes))
	for i := range st.Nodes {
		n := &st.Nodes[i]
		nodes[i] = NodeView{ID: n.ID, Label: n.Label, Capability: n.Capability, Allocated: n.Allocated, idx: i}
		c.Nodes[i] = &nodes[i]
	}
	if !slices.IsSortedFunc(c.Nodes, func(x, y *NodeView) int { return strings.Compare(x.ID, y.ID) }) {
		c.Node("") // not sorted: look nodes up through the map
	}
	for i := range st.Reservations {
		r := &st.Reservations[i]
		if a := c.byApp[r.App]; a != nil {
			a.Reservations = append(a.Reservations, r)
		}
		var n *NodeView
		if c.byNode != nil {
			n = c.byNode[r.Node]
		} else {
			n = c.nodeByID(r.Node)
		}
		if n != nil && n.Reservation == nil {
			n.Reservation = r
		}
	}
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

// queuePartitions copies queue v's labelled partitions from the state:
// on a non-exclusive partition a queue's maximum is the whole partition
// unless its own is set (YARN's cloneQueues takes absMaxCapacity as 1).
func (c *CapacityView) queuePartitions(v *QueueView, s *capacity.PreemptionQueue) error {
	if len(s.Partitions) != len(c.Partitions)-1 {
		return berth.InvalidField("queues["+v.Path+"].partitions", len(s.Partitions), "do not match the cluster's partitions")
	}
	if len(s.Partitions) == 0 {
		return nil
	}
	v.Partitions = make([]QueuePartition, len(s.Partitions))
	for j, p := range s.Partitions {
		qp := QueuePartition{Guaranteed: p.Guaranteed, Maximum: p.Maximum, Used: p.Used, Reserved: p.Reserved, UsedCapacity: p.UsedCapacity}
		if pv := c.Partitions[j+1]; qp.Maximum.IsZero() && pv.NonExclusive {
			qp.Maximum = pv.Resource
		}
		v.Partitions[j] = qp
	}
	return nil
}

// borrowed installs leaf v's borrowed containers from the state.
func (c *CapacityView) borrowed(v *QueueView, cs []capacity.Container) {
	start := len(c.ctrs)
	c.ctrs = append(c.ctrs, cs...)
	v.Borrowed = make([]*Container, len(cs))
	for i := range cs {
		v.Borrowed[i] = &c.ctrs[start+i]
	}
}
