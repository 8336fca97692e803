package metrics

import (
	"fmt"
	"slices"

	"github.com/berthsched/berth"
)

// EventKind says what happened at one point of a run's timeline.
type EventKind uint8

// The kinds of timeline events. The engine records them from the
// components' observer events and its own node events; package report
// marks them on its time axes and tells the run's story from them.
const (
	// NodeLost: a node left the cluster. Containers counts the containers
	// its loss ended, AMs how many of those were application masters (each
	// an application attempt restarted); Resource is the node's capability.
	NodeLost EventKind = iota + 1
	// NodeReturned: a lost node came back (Resource is its capability).
	NodeReturned
	// QueueReconfigured: a reconfiguration changed Queue's settings.
	QueueReconfigured
	// PlanReplanned: the plan follower found Queue's plan over-committed
	// and replanned or shrank its reservations (Detail says which);
	// Resource is what the scheduler now guarantees the plan. A plan that
	// stays over-committed step after step is recorded when that starts
	// and whenever its resources change.
	PlanReplanned
	// Preempted: one preemption round killed Containers containers of
	// Queue, holding Resource between them.
	Preempted
	// ReservationAccepted: the plan of Queue accepted Reservation;
	// Resource is the most it holds at one time.
	ReservationAccepted
	// ReservationRejected: the plan refused Reservation (Detail says why).
	ReservationRejected
	// ReservationRemoved: the replanner deleted Reservation before its end.
	ReservationRemoved
	// Stalled: the run stopped because nothing could progress; Containers
	// counts the jobs left unfinished.
	Stalled
)

var kindNames = []string{
	NodeLost: "node-lost", NodeReturned: "node-returned", QueueReconfigured: "queue-reconfigured",
	PlanReplanned: "plan-replanned", Preempted: "preempted", ReservationAccepted: "reservation-accepted",
	ReservationRejected: "reservation-rejected", ReservationRemoved: "reservation-removed", Stalled: "stalled",
}

// String names the kind as the timeline's CSV and JSON spell it.
func (k EventKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// MarshalText spells the kind by name, so saved runs stay readable and
// survive a reordering of the constants.
func (k EventKind) MarshalText() ([]byte, error) {
	if int(k) >= len(kindNames) || kindNames[k] == "" {
		return nil, fmt.Errorf("metrics: unknown event kind %d", uint8(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText reads a kind's name.
func (k *EventKind) UnmarshalText(b []byte) error {
	if i := slices.Index(kindNames, string(b)); i > 0 {
		*k = EventKind(i)
		return nil
	}
	return fmt.Errorf("metrics: unknown event kind %q", b)
}

// Event is one entry of a run's timeline: what happened, when, and to
// what. Which fields are set depends on Kind (see the kinds).
type Event struct {
	Time berth.Time
	Kind EventKind
	// Node and Rack of node events.
	Node string `json:",omitempty"`
	Rack string `json:",omitempty"`
	// Queue is the reported queue (Run.Queues) the event is about: the
	// victims' queue of a preemption, a reservation's plan, the
	// reconfigured queue.
	Queue string `json:",omitempty"`
	// Reservation is the reservation id of reservation events.
	Reservation string `json:",omitempty"`
	// Containers and AMs count containers the event ended (see the kinds).
	Containers int `json:",omitempty"`
	AMs        int `json:",omitempty"`
	// Resource is the amount the event is about (see the kinds).
	Resource berth.Resource
	// Detail says more, in words.
	Detail string `json:",omitempty"`
}
