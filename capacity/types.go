package capacity

import (
	"fmt"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// The host's vocabulary is package queue's, shared with package fair (a
// plan follower or a host can then drive either scheduler with the same
// records); the names below keep capacity's spelling.

// AnyResource is the resource name of an ask that may run anywhere (YARN's
// ResourceRequest.ANY).
const AnyResource = queue.AnyResource

type (
	// Locality is how close a container landed to what its ask named.
	Locality = queue.Locality
	// NodeSpec describes a node joining the cluster; the capacity
	// scheduler requires a rack.
	NodeSpec = queue.NodeSpec
	// AppSpec describes an application being submitted; Queue is a full
	// path ("root.a.b") or a unique short name (the queue mappings may
	// place it elsewhere), Groups the user's groups for the mappings and
	// ACLs (nil: Config.Groups, else none), Name the application's name
	// for the app-name mappings.
	AppSpec = queue.AppSpec
	// Ask is one resource request of an application; its capability is
	// normalized to the minimum allocation.
	Ask = queue.Ask
	// ContainerID identifies a container (or a container reservation);
	// ids grow with allocation order.
	ContainerID = queue.ContainerID
	// Container is an allocated container.
	Container = queue.Container
	// Allocation is a container handed out by a heartbeat, with the
	// headroom the application is told alongside it.
	Allocation = queue.Allocation
	// ExitStatus tells why a container ended.
	ExitStatus = queue.ExitStatus
	// Ended is a container that stopped, and why.
	Ended = queue.Ended
)

const (
	// NodeLocal: on a host the ask named.
	NodeLocal = queue.NodeLocal
	// RackLocal: on a rack the ask named.
	RackLocal = queue.RackLocal
	// OffSwitch: anywhere.
	OffSwitch = queue.OffSwitch
	// Completed: the node reported the container finished.
	Completed = queue.Completed
	// Released: the application released it.
	Released = queue.Released
	// Killed: the application finished or was killed, or the container
	// was killed by an administrator call.
	Killed = queue.Killed
	// Preempted: killed for preemption.
	Preempted = queue.Preempted
	// Lost: its node left the cluster.
	Lost = queue.Lost
)

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
