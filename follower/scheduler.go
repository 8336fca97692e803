package follower

import (
	"github.com/berthsched/berth"
	"github.com/berthsched/berth/queue"
)

// Entitlement is a reservation queue's share of its plan queue, as
// fractions in [0, 1] (YARN's QueueEntitlement): package queue's type,
// shared with the schedulers. The capacity scheduler applies it as the
// queue's capacity and maximum capacity, the fair scheduler as the queue's
// weight. Fractions are float32, as in YARN, so the follower's arithmetic
// rounds exactly as YARN's does.
type Entitlement = queue.Entitlement

// Ended is a container that ended because the follower killed its
// application: package queue's record, shared with the schedulers.
type Ended = queue.Ended

// QueueState is one child queue of a plan queue, as the scheduler reports
// it to the follower; [Funcs] takes a list of them.
type QueueState struct {
	// Queue is the queue's name as the scheduler reports it: the bare
	// reservation name for the capacity scheduler ("reservation_1_0001",
	// "dedicated-default"), the full path for the fair scheduler
	// ("root.dedicated.reservation_1_0001"). The [Flavor] recovers the
	// reservation name from it.
	Queue string
	// Entitlement is the queue's current entitlement (the fair scheduler
	// reports its weight as Capacity).
	Entitlement Entitlement
	// Resources is what the queue is guaranteed now: cluster × absolute
	// capacity for the capacity scheduler, the steady fair share for the
	// fair scheduler. The follower orders entitlement changes by it.
	Resources berth.Resource
}

// PlanQueues is what the follower reads from a scheduler about plan
// queues: YARN's getPlanResources, getChildReservationQueues and
// getReservationQueueResourceIfExists. Each takes plain values, so that a
// scheduler satisfies it with its own methods. Errors for an unknown or
// non-plan queue should wrap berth.ErrNotFound or berth.ErrInvalidArgument.
type PlanQueues interface {
	// ClusterResource is the cluster's total resource (the calculator's
	// reference for dominant shares).
	ClusterResource() berth.Resource
	// PlanResources is what the scheduler guarantees the plan queue now:
	// cluster × absolute capacity for the capacity scheduler (YARN's
	// getPlanResources), the steady fair share for the fair scheduler.
	PlanResources(planQueue string) (berth.Resource, error)
	// ReservationQueueNames lists the plan queue's children, the default
	// reservation queue included, in a deterministic order, by the names
	// the [Flavor] gives (short names or full paths: the follower reads
	// the reservation from the last component).
	ReservationQueueNames(planQueue string) ([]string, error)
	// ReservationQueueState returns a child's current entitlement and what
	// it is guaranteed now (cluster × absolute capacity, or the steady
	// fair share); queue is the name the [Flavor] gives. The follower asks
	// only for queues listed by ReservationQueueNames.
	ReservationQueueState(planQueue, queue string) (Entitlement, berth.Resource, error)
}

// QueueEditor is how the follower changes a plan queue's children.
type QueueEditor interface {
	// AddReservationQueue creates the child reservation (a reservation id
	// or "<plan>-default") under planQueue with a zero entitlement.
	AddReservationQueue(planQueue, reservation string) error
	// SetEntitlement sets a reservation queue's entitlement; queue is the
	// name given by the [Flavor].
	SetEntitlement(queue string, e Entitlement) error
	// RemoveReservationQueue removes an empty reservation queue whose
	// entitlement is zero.
	RemoveReservationQueue(queue string) error
}

// AppMover is how the follower deals with the applications of an expired
// reservation's queue. The signatures are the schedulers' own: both
// report a move's destination and a kill's ended containers in package
// queue's records.
type AppMover interface {
	// AppsInQueue lists the applications of queue, in a deterministic
	// order (e.g. submission order).
	AppsInQueue(queue string) ([]string, error)
	// MoveApp moves an application to another leaf queue and returns the
	// queue it now runs in.
	MoveApp(appID, queue string) (string, error)
	// KillApp kills an application and returns the containers that ended
	// with it, which the follower hands to the host in [Result.Ended].
	KillApp(appID string) ([]Ended, error)
}

// Scheduler is everything the follower needs from a queue scheduler.
// *capacity.Scheduler and *fair.Scheduler satisfy it as they are; a
// scheduler lacking some operation can be adapted with [Funcs].
type Scheduler interface {
	PlanQueues
	QueueEditor
	AppMover
}

// Funcs adapts plain functions to a [Scheduler], so that a host can wire a
// scheduler with closures instead of declaring a type. A nil function
// makes its operation fail with berth.ErrInvalidState.
type Funcs struct {
	// Cluster is ClusterResource.
	Cluster func() berth.Resource
	// Plan is PlanResources.
	Plan func(planQueue string) (berth.Resource, error)
	// Queues lists the plan queue's children with their state; it serves
	// ReservationQueueNames and ReservationQueueState.
	Queues func(planQueue string) ([]QueueState, error)
	// Add is AddReservationQueue.
	Add func(planQueue, reservation string) error
	// Entitle is SetEntitlement.
	Entitle func(queue string, e Entitlement) error
	// Remove is RemoveReservationQueue.
	Remove func(queue string) error
	// Apps is AppsInQueue.
	Apps func(queue string) ([]string, error)
	// Move is MoveApp.
	Move func(appID, queue string) (string, error)
	// Kill is KillApp.
	Kill func(appID string) ([]Ended, error)
}

var _ Scheduler = Funcs{}

func unsupported(op string) error {
	return &berth.FieldError{Field: "scheduler." + op, Value: nil, Kind: berth.ErrInvalidState,
		Reason: "operation not provided by the scheduler adapter"}
}

// ClusterResource calls Cluster (berth.None() when nil).
func (f Funcs) ClusterResource() berth.Resource {
	if f.Cluster == nil {
		return berth.None()
	}
	return f.Cluster()
}

// PlanResources calls Plan.
func (f Funcs) PlanResources(planQueue string) (berth.Resource, error) {
	if f.Plan == nil {
		return berth.None(), unsupported("plan-resources")
	}
	return f.Plan(planQueue)
}

// ReservationQueueNames calls Queues and returns the queues' names.
func (f Funcs) ReservationQueueNames(planQueue string) ([]string, error) {
	if f.Queues == nil {
		return nil, unsupported("reservation-queues")
	}
	qs, err := f.Queues(planQueue)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Queue
	}
	return out, nil
}

// ReservationQueueState calls Queues and returns the entry named queue
// (an error of kind berth.ErrNotFound when there is none).
func (f Funcs) ReservationQueueState(planQueue, queue string) (Entitlement, berth.Resource, error) {
	if f.Queues == nil {
		return Entitlement{}, berth.None(), unsupported("reservation-queues")
	}
	qs, err := f.Queues(planQueue)
	if err != nil {
		return Entitlement{}, berth.None(), err
	}
	for _, q := range qs {
		if q.Queue == queue {
			return q.Entitlement, q.Resources, nil
		}
	}
	return Entitlement{}, berth.None(), &berth.FieldError{Field: "queue", Value: queue, Kind: berth.ErrNotFound,
		Reason: "not a reservation queue of " + planQueue}
}

// AddReservationQueue calls Add.
func (f Funcs) AddReservationQueue(planQueue, reservation string) error {
	if f.Add == nil {
		return unsupported("add-reservation-queue")
	}
	return f.Add(planQueue, reservation)
}

// SetEntitlement calls Entitle.
func (f Funcs) SetEntitlement(queue string, e Entitlement) error {
	if f.Entitle == nil {
		return unsupported("set-entitlement")
	}
	return f.Entitle(queue, e)
}

// RemoveReservationQueue calls Remove.
func (f Funcs) RemoveReservationQueue(queue string) error {
	if f.Remove == nil {
		return unsupported("remove-reservation-queue")
	}
	return f.Remove(queue)
}

// AppsInQueue calls Apps.
func (f Funcs) AppsInQueue(queue string) ([]string, error) {
	if f.Apps == nil {
		return nil, unsupported("apps-in-queue")
	}
	return f.Apps(queue)
}

// MoveApp calls Move.
func (f Funcs) MoveApp(appID, queue string) (string, error) {
	if f.Move == nil {
		return "", unsupported("move-app")
	}
	return f.Move(appID, queue)
}

// KillApp calls Kill.
func (f Funcs) KillApp(appID string) ([]Ended, error) {
	if f.Kill == nil {
		return nil, unsupported("kill-app")
	}
	return f.Kill(appID)
}

// opError wraps a scheduler error with the operation and its subject, so
// the joined error of a run tells what failed where.
func opError(op, subject string, err error) error {
	return berth.Wrap(err, "follower: "+op, subject)
}
