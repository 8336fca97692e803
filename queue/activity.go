package queue

import (
	"fmt"

	"github.com/berthsched/berth"
)

// This file is the vocabulary both schedulers' allocation walks share:
// what one step came to (Result: an Outcome and a Reason) and the record
// a scheduler keeps of it when asked to (Activity), after YARN's
// scheduler activities (ActivitiesManager, ActivityDiagnosticConstant).

// Outcome is what one step of an allocation walk came to for a node.
type Outcome uint8

const (
	// Skipped: nothing; the Reason says why.
	Skipped Outcome = iota
	// Allocated: a container.
	Allocated
	// Reserved: the node was reserved for a container that does not fit
	// yet (or a reservation on it was kept for a later heartbeat).
	Reserved
	// Unreserved: a reservation was given up; the Reason says why.
	Unreserved
)

// String names the outcome as YARN's ActivityState does.
func (o Outcome) String() string {
	switch o {
	case Skipped:
		return "SKIPPED"
	case Allocated:
		return "ALLOCATED"
	case Reserved:
		return "RESERVED"
	case Unreserved:
		return "UNRESERVED"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Reason says why a step of the walk gave the node nothing (or gave up a
// reservation). Each is one of YARN's ActivityDiagnosticConstant
// diagnostics, named after the limit that applied; the walk computes them
// anyway to decide, and records them only when asked to.
type Reason uint8

const (
	// ReasonNone: nothing stopped the step.
	ReasonNone Reason = iota
	// ReasonQueueLimit: the queue, or one of its ancestors (Activity.Limited),
	// is at its maximum: maxResources or maxChildResources for the fair
	// scheduler, maximum-capacity for the capacity scheduler
	// (QUEUE_HIT_MAX_CAPACITY_LIMIT).
	ReasonQueueLimit
	// ReasonQueueHeadroom: the queue's headroom is smaller than the
	// request (QUEUE_DO_NOT_HAVE_ENOUGH_HEADROOM).
	ReasonQueueHeadroom
	// ReasonUserLimit: the application's user is at the queue's user limit
	// (QUEUE_HIT_USER_MAX_CAPACITY_LIMIT).
	ReasonUserLimit
	// ReasonPartition: the node's partition is not for this queue or
	// request: the queue cannot access it (QUEUE_NOT_ABLE_TO_ACCESS_PARTITION),
	// the request asks for another partition, or a non-exclusive partition
	// does not lend itself to the request (never to an AM; to another
	// once it missed as many scheduling opportunities as there are nodes).
	ReasonPartition
	// ReasonNodeReserved: the node holds a reservation, and a heartbeat of
	// a reserved node serves only its reservation
	// (QUEUE_SKIPPED_BECAUSE_SINGLE_NODE_RESERVED).
	ReasonNodeReserved
	// ReasonOrder: the walk did not reach the application: those before
	// it in the queues' order took what the heartbeat could assign (one
	// container by default). YARN records nothing for them.
	ReasonOrder
	// ReasonAMLimit: the application's AM would pass its queue's share
	// for AMs (maxAMShare of the fair scheduler).
	ReasonAMLimit
	// ReasonNoDemand: nothing is outstanding at this request
	// (REQUEST_DO_NOT_NEED_RESOURCE).
	ReasonNoDemand
	// ReasonLocality: the request names other nodes or racks and does not
	// relax its locality to this node (NODE_SKIPPED_BECAUSE_OF_RELAX_LOCALITY).
	ReasonLocality
	// ReasonLocalityDelay: delay scheduling holds the request back for a
	// more local node (NODE_SKIPPED_BECAUSE_OF_OFF_SWITCH_DELAY).
	ReasonLocalityDelay
	// ReasonNodeTooSmall: the node's whole capability is smaller than the
	// request (NODE_TOTAL_RESOURCE_INSUFFICIENT_FOR_REQUEST).
	ReasonNodeTooSmall
	// ReasonNodeFull: the request does not fit in what the node has free,
	// and the scheduler does not reserve it for this request
	// (NODE_DO_NOT_HAVE_SUFFICIENT_RESOURCE).
	ReasonNodeFull
	// ReasonReservation: the request would reserve the node, but the
	// reservation rules refuse: another application holds the node, or
	// the application holds as many reservations as it may
	// (REQUEST_SKIPPED_BECAUSE_OF_RESERVATION).
	ReasonReservation
	// ReasonNoUnreserve: the request fits only by giving up one of the
	// application's reservations elsewhere, and none is big enough
	// (NODE_CAN_NOT_FIND_CONTAINER_TO_BE_UNRESERVED_WHEN_NEEDED).
	ReasonNoUnreserve

	numReasons
)

var reasonNames = [numReasons]string{
	ReasonNone:          "none",
	ReasonQueueLimit:    "queue-limit",
	ReasonQueueHeadroom: "queue-headroom",
	ReasonUserLimit:     "user-limit",
	ReasonPartition:     "partition",
	ReasonNodeReserved:  "node-reserved",
	ReasonOrder:         "order",
	ReasonAMLimit:       "am-limit",
	ReasonNoDemand:      "no-demand",
	ReasonLocality:      "locality",
	ReasonLocalityDelay: "locality-delay",
	ReasonNodeTooSmall:  "node-too-small",
	ReasonNodeFull:      "node-full",
	ReasonReservation:   "reservation",
	ReasonNoUnreserve:   "no-unreserve",
}

var reasonText = [numReasons]string{
	ReasonNone:          "",
	ReasonQueueLimit:    "the queue is at its maximum",
	ReasonQueueHeadroom: "the queue's headroom is smaller than the request",
	ReasonUserLimit:     "the user is at the queue's user limit",
	ReasonPartition:     "the node's partition is not for this queue or request",
	ReasonNodeReserved:  "the node is reserved: its heartbeat serves only the reservation",
	ReasonOrder:         "applications before it in the queues' order took the heartbeat",
	ReasonAMLimit:       "its AM would pass the queue's share for AMs",
	ReasonNoDemand:      "the request has nothing outstanding",
	ReasonLocality:      "the request does not relax its locality to this node",
	ReasonLocalityDelay: "delay scheduling waits for a more local node",
	ReasonNodeTooSmall:  "the node is smaller than the request",
	ReasonNodeFull:      "the node has too little free for the request",
	ReasonReservation:   "the reservation rules refuse to reserve the node",
	ReasonNoUnreserve:   "no reservation of the application is big enough to give up",
}

// String is the reason's short name ("queue-limit", "locality-delay", …).
func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Text is the reason as a sentence for a person ("" for ReasonNone).
func (r Reason) Text() string {
	if r < numReasons {
		return reasonText[r]
	}
	return r.String()
}

// Reasons lists every reason but ReasonNone, in declaration order.
func Reasons() []Reason {
	out := make([]Reason, 0, numReasons-1)
	for r := ReasonNone + 1; r < numReasons; r++ {
		out = append(out, r)
	}
	return out
}

// Result is what one step of an allocation walk came to: the one result
// type of both schedulers' walks (a queue, an application, a request).
type Result struct {
	Outcome Outcome
	// Reason is why the step came to Skipped or Unreserved; ReasonNone
	// otherwise.
	Reason Reason
}

// Activity is one recorded step of an allocation walk: a queue the walk
// did not enter (App empty), or one offer of the node to an application
// (YARN's NodeAllocation and AppAllocation entries). Explaining an
// application returns its activities; a recorded heartbeat is the list of
// its node's. Activities are values: a host may keep them.
type Activity struct {
	// Time of the heartbeat, from the scheduler's clock.
	Time berth.Time
	// Node offered: the heartbeat's node, or, in a walk over a set of
	// candidate nodes (multi-node placement), the candidate allocated or
	// reserved, "" where the walk chose none (as YARN's EMPTY_NODE_ID).
	Node string
	// Partition walked: the node label of the heartbeat's node or of the
	// candidate set, "" for the default partition (as YARN's activities
	// carry the node's partition).
	Partition string
	// Queue is the queue skipped, or the application's leaf queue.
	Queue string
	// App is the application offered the node; "" when a whole queue
	// was skipped.
	App string
	// Result is what came of it.
	Result
	// Limited is, for an application stopped by a queue's limit
	// (ReasonQueueLimit, ReasonNodeReserved at the root), the queue whose
	// limit applied: the leaf or one of its ancestors.
	Limited string
	// Priority and Resource are the request the result concerns: the one
	// allocated or reserved, or the one the Reason held back.
	Priority int32
	Resource berth.Resource
	// Locality of an allocation or reservation.
	Locality Locality
	// Container is the container allocated, or the reservation's id.
	Container ContainerID
	// Requests are the application's requests passed over on the node, in
	// the order tried (most important first), each with its reason.
	Requests []RequestActivity
}

// RequestActivity is one request of an application passed over for a node.
type RequestActivity struct {
	Priority int32
	Resource berth.Resource
	Reason   Reason
}

// String is a one-line account of the activity.
func (a Activity) String() string {
	who := a.Queue
	if a.App != "" {
		who = a.App + " in " + a.Queue
	}
	where := "node " + a.Node
	if a.Node == "" {
		where = "candidates"
	}
	if a.Partition != "" {
		where += " (" + a.Partition + ")"
	}
	s := fmt.Sprintf("t=%d %s: %s %s", a.Time, where, who, a.Outcome)
	if a.Outcome == Allocated || a.Outcome == Reserved {
		s += fmt.Sprintf(" %v at priority %d (%v)", a.Resource, a.Priority, a.Locality)
	}
	if a.Reason != ReasonNone {
		s += ": " + a.Reason.Text()
		if a.Limited != "" {
			s += " (" + a.Limited + ")"
		}
	}
	return s
}

// DryRun is what a heartbeat of a node would do now, asked without
// changing anything (the schedulers' DryRun methods): the containers it
// would allocate, in order, and the activities of its walk.
type DryRun struct {
	Allocations []Allocation
	Activities  []Activity
}

// ActivityObserver is the optional family of an [Observer] that receives
// the activities a scheduler records: an observer that implements it gets
// every activity of the heartbeats and applications recorded (see the
// schedulers' RecordHeartbeat and RecordApp), in walk order, when the
// heartbeat ends. Nothing is recorded, and nothing reported, unless a host
// asked for it.
type ActivityObserver interface {
	ObserveActivity(Activity)
}
