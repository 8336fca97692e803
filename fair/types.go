package fair

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The host-facing vocabulary is package queue's, shared with the capacity
// scheduler; these aliases keep the fair scheduler's own names working.
type (
	// Locality is how close a container landed to what its ask named.
	Locality = queue.Locality
	// NodeSpec describes a node joining the cluster; an empty Rack means
	// queue.DefaultRack.
	NodeSpec = queue.NodeSpec
	// AppSpec describes an application being submitted. Its Queue goes to
	// the placement policy; its Groups, when nil, come from Config.Groups.
	AppSpec = queue.AppSpec
	// Ask is one resource request of an application; its capability is
	// normalized to the increment.
	Ask = queue.Ask
	// ContainerID identifies a container or a container reservation.
	ContainerID = queue.ContainerID
	// Container is an allocated container.
	Container = queue.Container
	// Allocation is a container handed out by a heartbeat, with the
	// application's headroom.
	Allocation = queue.Allocation
	// ExitStatus tells why a container ended.
	ExitStatus = queue.ExitStatus
	// Ended is a container that stopped, and why.
	Ended = queue.Ended
)

// AnyResource is the resource name of an ask that may run anywhere.
const AnyResource = queue.AnyResource

// Localities, from the most local.
const (
	NodeLocal = queue.NodeLocal // on a host the ask named
	RackLocal = queue.RackLocal // on a rack the ask named
	OffSwitch = queue.OffSwitch // anywhere
)

// Exit statuses of ended containers.
const (
	Completed = queue.Completed // the node reported it finished
	Released  = queue.Released  // the application released it
	Killed    = queue.Killed    // killed with its application or by an administrator
	Preempted = queue.Preempted // killed for preemption
	Lost      = queue.Lost      // its node left the cluster
)

// notFound builds a FieldError of kind ErrNotFound.
func notFound(field string, v any) error {
	return &berth.FieldError{Field: field, Value: v, Reason: "not found", Kind: berth.ErrNotFound}
}

// kindErr builds a FieldError of the given kind.
func kindErr(kind error, field string, v any, format string, args ...any) error {
	return &berth.FieldError{Field: field, Value: v, Reason: fmt.Sprintf(format, args...), Kind: kind}
}
