package follower

import (
	"fmt"

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

// QueueState is one child queue of a plan queue, as the scheduler reports
// it to the follower.
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
// queues. Errors for an unknown or non-plan queue should wrap
// berth.ErrNotFound or berth.ErrInvalidArgument.
type PlanQueues interface {
	// ClusterResource is the cluster's total resource (the calculator's
	// reference for dominant shares).
	ClusterResource() berth.Resource
	// PlanResources is what the scheduler guarantees the plan queue now:
	// cluster × absolute capacity for the capacity scheduler (YARN's
	// getPlanResources), the steady fair share for the fair scheduler.
	PlanResources(planQueue string) (berth.Resource, error)
	// ReservationQueues lists the plan queue's children, the default
	// reservation queue included, in a deterministic order.
	ReservationQueues(planQueue string) ([]QueueState, error)
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
// reservation's queue.
type AppMover interface {
	// AppsInQueue lists the applications of queue, in a deterministic
	// order (e.g. submission order).
	AppsInQueue(queue string) ([]string, error)
	// MoveApp moves an application to another leaf queue.
	MoveApp(appID, queue string) error
	// KillApp kills an application.
	KillApp(appID string) error
}

// Scheduler is everything the follower needs from a queue scheduler.
// Package capacity and package fair provide the operations under slightly
// different signatures; adapt them with [Funcs] (see the package example
// and the integration tests).
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
	// Queues is ReservationQueues.
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
	Move func(appID, queue string) error
	// Kill is KillApp.
	Kill func(appID string) error
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

// ReservationQueues calls Queues.
func (f Funcs) ReservationQueues(planQueue string) ([]QueueState, error) {
	if f.Queues == nil {
		return nil, unsupported("reservation-queues")
	}
	return f.Queues(planQueue)
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
func (f Funcs) MoveApp(appID, queue string) error {
	if f.Move == nil {
		return unsupported("move-app")
	}
	return f.Move(appID, queue)
}

// KillApp calls Kill.
func (f Funcs) KillApp(appID string) error {
	if f.Kill == nil {
		return unsupported("kill-app")
	}
	return f.Kill(appID)
}

// opError wraps a scheduler error with the operation and its subject, so
// the joined error of a run tells what failed where.
func opError(op, subject string, err error) error {
	return fmt.Errorf("follower: %s %s: %w", op, subject, err)
}
