package capacity

import (
	"fmt"

	"github.com/berthsched/berth"
)

// AnyResource is the resource name of an ask that may run anywhere (YARN's
// ResourceRequest.ANY).
const AnyResource = "*"

// Locality is how close a container landed to what its ask named.
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
	}
	return "OFF_SWITCH"
}

// NodeSpec describes a node joining the cluster.
type NodeSpec struct {
	// ID is the node's unique name; asks name it as a host.
	ID string
	// Rack is the node's rack (e.g. "/default-rack").
	Rack string
	// Capability is the node's total resource.
	Capability berth.Resource
}

// AppSpec describes an application being submitted.
type AppSpec struct {
	// ID is the application's unique id. Applications are ordered by
	// submission, not by id.
	ID string
	// Queue names the target queue: its full path ("root.a.b") or its short
	// name when unique.
	Queue string
	// User submitting; Groups the user's groups, for ACLs.
	User   string
	Groups []string
	// Priority is the application priority; higher runs first under FIFO.
	Priority int32
	// ReservationID, when set, names the reservation (the reservation
	// queue) under the plan queue Queue.
	ReservationID string
	// AMResource, when non-zero, makes the scheduler ask for the AM
	// container (priority 0, anywhere) and counts it against AM limits.
	AMResource berth.Resource
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
	// Capability of each container; normalized to the minimum allocation.
	Capability berth.Resource
	// Count of containers outstanding.
	Count int
	// StrictLocality is YARN's relaxLocality=false: the scheduler may not
	// fall back past this level (rack or any).
	StrictLocality bool
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
// the application is told alongside it (YARN's allocate response headroom).
type Allocation struct {
	Container
	Headroom berth.Resource
}

// ExitStatus tells why a container ended.
type ExitStatus uint8

const (
	// Killed: the application finished or was killed, or the container was
	// killed by an administrator call.
	Killed ExitStatus = iota
	// Preempted: killed for preemption.
	Preempted
	// Lost: its node left the cluster.
	Lost
)

// String names the status.
func (e ExitStatus) String() string {
	switch e {
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
	Status ExitStatus
}

// Change lists what a reconfiguration changed.
type Change struct {
	// Added, Removed and Modified hold full queue paths, sorted.
	Added, Removed, Modified []string
	// Global is true when a scheduler-wide setting changed.
	Global bool
}

// notFound builds a FieldError of kind ErrNotFound.
func notFound(field string, v any) error {
	return &berth.FieldError{Field: field, Value: v, Reason: "not found", Kind: berth.ErrNotFound}
}

func fieldErr(kind error, field string, v any, format string, args ...any) error {
	return &berth.FieldError{Field: field, Value: v, Reason: fmt.Sprintf(format, args...), Kind: kind}
}
