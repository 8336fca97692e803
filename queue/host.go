package queue

import (
	"fmt"

	"github.com/berthsched/berth"
)

// This file is the vocabulary a host speaks with either scheduler: the
// nodes it adds, the applications it submits and their asks, and the
// containers it gets back. YARN's two schedulers share these records
// (SchedulerNode's identity, ApplicationSubmissionContext,
// ResourceRequest, Container, ContainerStatus), so Berth declares them once
// here and packages capacity and fair re-export them under their old names.

// AnyResource is the resource name of an ask that may run anywhere (YARN's
// ResourceRequest.ANY).
const AnyResource = "*"

// DefaultRack is the rack of a node whose topology is unknown (YARN's
// NetworkTopology.DEFAULT_RACK).
const DefaultRack = "/default-rack"

// Locality is how close a container landed to what its ask named (YARN's
// NodeType). The order matters: a larger value is less local, so
// "relax to the next level" is loc+1.
type Locality uint8

const (
	// NodeLocal: on a host the ask named.
	NodeLocal Locality = iota
	// RackLocal: on a rack the ask named.
	RackLocal
	// OffSwitch: anywhere.
	OffSwitch
)

// String returns YARN's NodeType spelling.
func (l Locality) String() string {
	switch l {
	case NodeLocal:
		return "NODE_LOCAL"
	case RackLocal:
		return "RACK_LOCAL"
	case OffSwitch:
		return "OFF_SWITCH"
	}
	return fmt.Sprintf("Locality(%d)", uint8(l))
}

// NodeSpec describes a node joining the cluster.
type NodeSpec struct {
	// ID is the node's unique name; asks name it as a host.
	ID string
	// Rack is the node's rack (e.g. [DefaultRack]). The fair scheduler
	// reads "" as DefaultRack; the capacity scheduler requires a rack.
	Rack string
	// Capability is the node's total resource.
	Capability berth.Resource
	// Label is the node's node label: the partition it belongs to (the
	// capacity scheduler's; it must be one of the cluster's labels). ""
	// is the default partition. The fair scheduler, as YARN's, has no
	// partitions and ignores it.
	Label string
}

// AppSpec describes an application being submitted.
type AppSpec struct {
	// ID is the application's unique id. Applications are ordered by
	// submission, not by id; the fair scheduler's policies use the id as
	// their last tie-break (YARN compares attempt names).
	ID string
	// Queue names the queue the application asks for. The capacity
	// scheduler takes a full path ("root.a.b") or a unique short name; the
	// fair scheduler hands it to its placement policy, where "" or
	// "default" let the rules choose.
	Queue string
	// User submitting.
	User string
	// Name is the application's name (YARN's applicationName); the
	// capacity scheduler's app-name queue mappings match it.
	Name string
	// Groups are the user's groups as the host resolved them, for ACLs
	// and group placement (the fair scheduler's rules, the capacity
	// scheduler's queue mappings). Nil means the
	// host did not resolve them here: either scheduler then asks its
	// Config.Groups mapping (none when that is nil too).
	Groups []string
	// Priority is the application priority; higher runs first under FIFO.
	Priority int32
	// NoPriority submits without a priority (Priority is then ignored):
	// the capacity scheduler gives the user's default from the leaf's
	// priority ACLs, else the leaf's default-application-priority, as YARN
	// does for a submission context without one.
	NoPriority bool
	// LifetimeSeconds is the lifetime the application asks for (YARN's
	// LIFETIME application timeout); 0 or less asks none. The capacity
	// scheduler caps it by the leaf's maximum and uses the leaf's default
	// when none is asked.
	LifetimeSeconds int64
	// Tags are the application's tags (YARN's applicationTags), which a
	// host's placement rule may read; the built-in rules ignore them.
	Tags []string
	// ReservationID, when set, names the reservation (the reservation
	// queue) under the plan queue the application lands in.
	ReservationID string
	// AMResource, when non-zero, makes the scheduler ask for the AM
	// container (priority 0, anywhere) and count it against its AM limits
	// (maximum-am-resource-percent, maxAMShare); zero means an unmanaged
	// AM.
	AMResource berth.Resource
	// NodeLabelExpression is the application's node label expression
	// (YARN's ApplicationSubmissionContext): the partition of its asks
	// that name none, and of its AM unless AMNodeLabelExpression names
	// one. "" leaves it to the queue's default; [NoLabel] names the
	// default partition. Only the capacity scheduler reads it.
	NodeLabelExpression string
	// AMNodeLabelExpression is the AM container's node label expression
	// (YARN's AM resource request's); "" falls back to
	// NodeLabelExpression.
	AMNodeLabelExpression string
}

// NoLabel is the node label expression that names the default partition
// explicitly (YARN's empty expression, as opposed to none): an ask, an
// application or a queue default with it runs on unlabelled nodes even
// when the application or its queue names a label by default. It is what
// YARN's interfaces call the default partition; no node label can be
// spelt so.
const NoLabel = "<DEFAULT_PARTITION>"

// Validate checks what every scheduler requires of a submission before
// it looks at its queue: an id, a user and a non-negative AM resource.
func (a AppSpec) Validate() error {
	switch {
	case a.ID == "":
		return berth.InvalidField("app.id", a.ID, "must not be empty")
	case a.User == "":
		return berth.InvalidField("app.user", a.User, "must not be empty")
	case a.AMResource.AnyNegative():
		return berth.InvalidField("app.am-resource", a.AMResource, "must not be negative")
	}
	return nil
}

// Ask is one resource request of an application: Count containers of
// Capability at Priority on ResourceName (a host, a rack or [AnyResource]).
// Count is the new outstanding total for (Priority, ResourceName), as in
// YARN, not an increment; 0 cancels.
type Ask struct {
	// Priority of the request; a lower number is more important.
	Priority int32
	// ResourceName is a host, a rack, or AnyResource.
	ResourceName string
	// Capability of each container; the scheduler normalizes it (the
	// capacity scheduler to multiples of the minimum allocation, the fair
	// scheduler to multiples of the increment).
	Capability berth.Resource
	// Count of containers outstanding.
	Count int
	// StrictLocality is YARN's relaxLocality=false: the scheduler may not
	// fall back past this level (rack or any).
	StrictLocality bool
	// NodeLabelExpression is the partition the containers must run on
	// (YARN's node label expression), read from the ANY ask of a priority
	// as YARN does; "" leaves it to the application's, then the queue's
	// default; [NoLabel] names the default partition. Only the capacity
	// scheduler reads it.
	NodeLabelExpression string
}

// Validate checks what every scheduler requires of an ask before it
// normalizes the capability; field prefixes the field names in the error
// (e.g. "asks[2]").
func (a Ask) Validate(field string) error {
	switch {
	case a.ResourceName == "":
		return berth.InvalidField(field+".resource-name", a.ResourceName, "must be a host, a rack or *")
	case a.Count < 0:
		return berth.InvalidField(field+".count", a.Count, "must not be negative")
	case a.Capability.AnyNegative():
		return berth.InvalidField(field+".capability", a.Capability, "must not be negative")
	}
	return nil
}

// CheckRelease checks the container ids an application releases in an
// allocate call: each must be one of its live containers or container
// reservations, as owned reports. The first that is not is an ErrNotFound
// *berth.FieldError naming "release[i]". A scheduler checks the whole list
// before releasing anything, so that the call stays all-or-nothing (YARN
// logs and skips ids it does not know). A nil owned owns nothing.
func CheckRelease(release []ContainerID, owned func(ContainerID) bool) error {
	for i, id := range release {
		if owned == nil || !owned(id) { // nil: the application owns nothing
			return &berth.FieldError{Field: fmt.Sprintf("release[%d]", i), Value: id, Reason: "not found", Kind: berth.ErrNotFound}
		}
	}
	return nil
}

// ContainerID identifies a container (or a container reservation); ids grow
// with allocation order.
type ContainerID uint64

// Container is an allocated container.
type Container struct {
	// ID is unique and grows with allocation order.
	ID ContainerID
	// App, Node and User it belongs to; Queue is the full path of its leaf
	// queue (it changes when the application moves).
	App, Node, Queue, User string
	// Resource is the normalized capability of the ask it served.
	Resource berth.Resource
	// Priority is the request priority of the ask it served.
	Priority int32
	// Locality is how close to the ask it landed.
	Locality Locality
	// AM marks the application's master container.
	AM bool
	// Time of allocation, from the scheduler's clock.
	Time berth.Time
}

// Allocation is a container handed out by a heartbeat, with the headroom
// the application is told alongside it (YARN's allocate response
// headroom), as computed right after this allocation.
type Allocation struct {
	Container
	Headroom berth.Resource
}

// ExitStatus tells why a container ended (YARN's container exit status as
// the scheduler reports it).
type ExitStatus uint8

const (
	// Completed: the node reported the container finished.
	Completed ExitStatus = iota
	// Released: the application released it.
	Released
	// Killed: the application finished or was killed, or the container was
	// killed by an administrator call.
	Killed
	// Preempted: killed for preemption.
	Preempted
	// Lost: its node left the cluster.
	Lost
)

// String names the status.
func (e ExitStatus) String() string {
	switch e {
	case Completed:
		return "COMPLETED"
	case Released:
		return "RELEASED"
	case Killed:
		return "KILLED"
	case Preempted:
		return "PREEMPTED"
	case Lost:
		return "LOST"
	}
	return fmt.Sprintf("ExitStatus(%d)", uint8(e))
}

// Ended is a container that stopped, and why.
type Ended struct {
	Container
	Status ExitStatus // why it ended
}

// The records below are what both schedulers' snapshots and reports say
// about nodes, container reservations and reservation queues.

// NodeInfo is a node in a scheduler snapshot.
type NodeInfo struct {
	// ID and Rack of the node.
	ID, Rack string
	// Capability is the node's total; Allocated what containers hold.
	Capability, Allocated berth.Resource
	// Reserved is the id of the container reserved on the node, 0 if none.
	Reserved ContainerID
	// Label is the node's node label ("" the default partition).
	Label string
}

// ReservedContainer is a container reserved on a node for an application
// (YARN's RMContainer in state RESERVED), in a scheduler snapshot.
type ReservedContainer struct {
	// ID of the reserved container.
	ID ContainerID
	// App, Node and Queue (full path of the application's leaf) it
	// belongs to.
	App, Node, Queue string
	// Resource reserved, for the ask of request priority Priority.
	Resource berth.Resource
	Priority int32
	// Time the node was first reserved, from the scheduler's clock.
	Time berth.Time
}

// ReservationQueueInfo describes one reservation queue of a plan queue,
// as a scheduler reports it to a plan follower.
type ReservationQueueInfo struct {
	// Name is the reservation id (or "<plan>-default"); Path the full path.
	Name, Path string
	// Entitlement is the queue's share of its plan (the fair scheduler
	// reports its weight as Capacity and 1 as MaxCapacity).
	Entitlement
	// Default marks the plan's default queue.
	Default bool
	// NumApps counts applications in the queue.
	NumApps int
	// Used is the queue's used resource as its scheduler counts it: the
	// capacity scheduler's includes reserved containers, the fair
	// scheduler's does not.
	Used berth.Resource
}

// Racks counts a cluster's nodes per rack, so that a scheduler can tell a
// rack name from a host name in an ask and size rack-level limits. The
// zero value is empty; it is not safe for concurrent use.
type Racks struct{ nodes map[string]int }

// Add counts one more node on rack.
func (r *Racks) Add(rack string) {
	if r.nodes == nil {
		r.nodes = map[string]int{}
	}
	r.nodes[rack]++
}

// Remove counts one node less on rack; a rack left without nodes is
// forgotten. Removing from an unknown rack does nothing.
func (r *Racks) Remove(rack string) {
	n, ok := r.nodes[rack]
	if !ok {
		return
	}
	if n <= 1 {
		delete(r.nodes, rack)
		return
	}
	r.nodes[rack] = n - 1
}

// Nodes returns how many nodes sit on rack.
func (r *Racks) Nodes(rack string) int { return r.nodes[rack] }

// IsRack tells whether an ask's resource name is a rack: a name starting
// with "/" as YARN's rack names do, or, unless a node has that name
// (isNode), a rack some node sits on. Anything else is taken for a host,
// possibly one that has not joined yet.
func (r *Racks) IsRack(name string, isNode bool) bool {
	if len(name) > 0 && name[0] == '/' {
		return true
	}
	return !isNode && r.nodes[name] > 0
}
