package fair

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
	// Rack is the node's rack (e.g. "/default-rack"); empty means
	// "/default-rack".
	Rack string
	// Capability is the node's total resource.
	Capability berth.Resource
}

// AppSpec describes an application being submitted.
type AppSpec struct {
	// ID is the application's unique id; it also breaks the policies' last
	// ties (YARN compares attempt names).
	ID string
	// Queue is the queue the application asks for ("" or "default" let the
	// placement policy choose); the placement policy decides.
	Queue string
	// User submitting. Groups come from Config.Groups.
	User string
	// Priority is the application priority; higher runs first under FIFO.
	Priority int32
	// ReservationID, when set, names the reservation (the reservation
	// queue) under the plan queue the application is placed in.
	ReservationID string
	// AMResource, when non-zero, makes the scheduler ask for the AM
	// container (priority 0, anywhere) and counts it against maxAMShare;
	// zero means an unmanaged AM.
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
	// Capability of each container; normalized to the increment.
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
	ID       ContainerID    // unique, growing with allocation order
	App      string         // owning application
	Node     string         // node it runs on
	Queue    string         // full path of the leaf queue
	User     string         // the application's user
	Resource berth.Resource // its size
	Priority int32          // the ask's priority
	Locality Locality       // how local the placement was
	// AM marks the application's master container.
	AM bool
	// Time of allocation, from the scheduler's clock.
	Time berth.Time
}

// Allocation is a container handed out by a heartbeat, with the headroom
// the application is told alongside it.
type Allocation struct {
	Container
	Headroom berth.Resource // the application's headroom after this allocation
}

// ExitStatus tells why a container ended.
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
	if int(e) < 5 {
		return [...]string{"COMPLETED", "RELEASED", "KILLED", "PREEMPTED", "LOST"}[e]
	}
	return fmt.Sprintf("ExitStatus(%d)", uint8(e))
}

// Ended is a container that stopped, and why.
type Ended struct {
	Container
	Status ExitStatus // why it ended
}

// notFound builds a FieldError of kind ErrNotFound.
func notFound(field string, v any) error {
	return &berth.FieldError{Field: field, Value: v, Reason: "not found", Kind: berth.ErrNotFound}
}

// kindErr builds a FieldError of the given kind.
func kindErr(kind error, field string, v any, format string, args ...any) error {
	return &berth.FieldError{Field: field, Value: v, Reason: fmt.Sprintf(format, args...), Kind: kind}
}
