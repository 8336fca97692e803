package queue

import (
	"fmt"

	"github.com/berthsched/berth"
)

// This file declares the events both schedulers (packages capacity and
// fair) report to a host's Observer, so that one observer serves either
// scheduler. The rules (when an observer is called, what it may do) are in
// the documentation of Observer.

// Observer receives a scheduler's decisions as it makes them: containers
// allocated and ended, applications added, activated, moved and removed,
// queues added, removed and re-entitled. A host sets one per scheduler
// (capacity.Scheduler.SetObserver, fair.Scheduler.SetObserver).
//
// The scheduler calls it synchronously, in decision order, while it holds
// its lock: an observer must return quickly and must not call any method
// of the scheduler that emitted the event (that would deadlock); it may
// record, count, or enqueue the event for later. Events of one scheduler
// are totally ordered and deterministic, so an observer that only one
// scheduler calls needs no lock of its own. Events are values: an
// observer may keep them, and an event allocates nothing. Each describes
// the state right after its decision: a container ends before the
// application that held it finishes, an application is added before it
// is activated, and an application's live containers are its allocated
// events minus its ended ones. Without an observer (nil, the default)
// each decision costs one nil check.
//
// Embed [NopObserver] to implement only the families you need; methods
// added to Observer later for new families then need no change in hosts.
type Observer interface {
	// ObserveContainer reports a container allocated or ended.
	ObserveContainer(ContainerEvent)
	// ObserveApp reports an application's lifecycle.
	ObserveApp(AppEvent)
	// ObserveQueue reports a queue added, removed or re-entitled.
	ObserveQueue(QueueEvent)
}

// NopObserver implements [Observer] and ignores every event. Embed it in
// an observer to implement only some of the methods.
type NopObserver struct{}

// ObserveContainer does nothing.
func (NopObserver) ObserveContainer(ContainerEvent) {}

// ObserveApp does nothing.
func (NopObserver) ObserveApp(AppEvent) {}

// ObserveQueue does nothing.
func (NopObserver) ObserveQueue(QueueEvent) {}

var _ Observer = NopObserver{}

// ContainerEventKind says what happened to a container.
type ContainerEventKind uint8

const (
	// ContainerAllocated: a heartbeat allocated the container (a container
	// reservation on a node is not an allocation and is not reported).
	ContainerAllocated ContainerEventKind = iota + 1
	// ContainerEnded: the container stopped; ContainerEvent.Status says
	// why (completed, released, killed, preempted, lost).
	ContainerEnded
)

// String names the kind.
func (k ContainerEventKind) String() string {
	switch k {
	case ContainerAllocated:
		return "allocated"
	case ContainerEnded:
		return "ended"
	}
	return fmt.Sprintf("ContainerEventKind(%d)", uint8(k))
}

// ContainerEvent is one container allocated or ended.
type ContainerEvent struct {
	Kind ContainerEventKind
	// Container as the scheduler holds it; Container.Queue is the leaf it
	// is charged to at the time of the event.
	Container Container
	// Status is why a ContainerEnded container stopped: [Completed] (its
	// node reported it), [Released] (its application released it),
	// [Killed] (its application finished or was killed, or an
	// administrative kill), [Preempted], [Lost] (its node left).
	Status ExitStatus
	// Time of the event, from the scheduler's clock.
	Time berth.Time
}

// AppEventKind says what happened to an application.
type AppEventKind uint8

const (
	// AppAdded: the application was submitted and accepted into Queue; it
	// is pending there until AppActivated.
	AppAdded AppEventKind = iota + 1
	// AppActivated: the application may now be scheduled (the capacity
	// scheduler activated it within its AM limits; the fair scheduler made
	// it runnable within maxRunningApps).
	AppActivated
	// AppMoved: the application now belongs to Queue; From is the queue it
	// left. AppEvent.Active tells whether it is active there; if not, an
	// AppActivated follows when it may run (usually at once).
	AppMoved
	// AppFinished: the host finished the application (FinishApp); its
	// containers ended as Killed just before.
	AppFinished
	// AppKilled: the application was killed (KillApp, KillAppsInQueue, a
	// plan follower removing an expired reservation's applications).
	AppKilled
)

// String names the kind.
func (k AppEventKind) String() string {
	switch k {
	case AppAdded:
		return "added"
	case AppActivated:
		return "activated"
	case AppMoved:
		return "moved"
	case AppFinished:
		return "finished"
	case AppKilled:
		return "killed"
	}
	return fmt.Sprintf("AppEventKind(%d)", uint8(k))
}

// AppEvent is one step of an application's lifecycle.
type AppEvent struct {
	Kind AppEventKind
	// App is the application id; Queue the full path of its leaf queue;
	// User its user.
	App, Queue, User string
	// From is the queue an AppMoved application left ("" otherwise).
	From string
	// Active tells whether the application may be scheduled after the
	// event: true after AppActivated, false after AppAdded, AppFinished
	// and AppKilled; after AppMoved, whether it is still active in its
	// new queue (the fair scheduler keeps a runnable application runnable;
	// the capacity scheduler activates it again, with an AppActivated).
	Active bool
	// Time of the event, from the scheduler's clock.
	Time berth.Time
}

// QueueEventKind says what happened to a queue.
type QueueEventKind uint8

const (
	// QueueAdded: a queue was created (by a reconfiguration or reload, a
	// plan follower's reservation queue, or the fair scheduler's placement
	// rules creating an ad-hoc queue).
	QueueAdded QueueEventKind = iota + 1
	// QueueRemoved: a queue was removed (reconfiguration, a plan follower,
	// an idle ad-hoc queue).
	QueueRemoved
	// QueueEntitlementChanged: a reservation queue's entitlement changed
	// (a plan follower's SetEntitlement); Entitlement is the new one and
	// Previous the old. Setting the same entitlement again is not
	// reported.
	QueueEntitlementChanged
	// QueueReconfigured: a reconfiguration changed the queue's settings
	// (capacity, maximum, state, ACLs, limits).
	QueueReconfigured
)

// String names the kind.
func (k QueueEventKind) String() string {
	switch k {
	case QueueAdded:
		return "added"
	case QueueRemoved:
		return "removed"
	case QueueEntitlementChanged:
		return "entitlement-changed"
	case QueueReconfigured:
		return "reconfigured"
	}
	return fmt.Sprintf("QueueEventKind(%d)", uint8(k))
}

// QueueEvent is one change of the queue tree.
type QueueEvent struct {
	Kind QueueEventKind
	// Queue is the full path of the queue.
	Queue string
	// Entitlement and Previous are the new and old entitlement of a
	// QueueEntitlementChanged event (the fair scheduler reports a
	// reservation queue's weight as Capacity and 1 as MaxCapacity, as in
	// [ReservationQueueInfo]).
	Entitlement, Previous Entitlement
	// Time of the event, from the scheduler's clock.
	Time berth.Time
}
