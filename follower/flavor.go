package follower

import "strings"

// DefaultSuffix is appended to a plan queue's short name to name its
// default reservation queue (YARN's ReservationConstants.DEFAULT_QUEUE_SUFFIX):
// plan "dedicated" → "dedicated-default".
const DefaultSuffix = "-default"

// Flavor is the scheduler-specific part of the follower: YARN's
// CapacitySchedulerPlanFollower and FairSchedulerPlanFollower differ in how
// reservation queues are named and in whether the plan's capacity follows
// the scheduler (in Berth both built-in flavors make it follow). Use
// [CapacityFlavor] or [FairFlavor].
type Flavor interface {
	// QueueName is the name the scheduler knows the reservation queue of
	// reservation (an id or "<plan>-default") under planQueue by.
	QueueName(planQueue, reservation string) string
	// ReservationName recovers the reservation from a queue name (or a plan
	// queue's short name from its path).
	ReservationName(queue string) string
	// PublishesCapacity reports whether each run sets the plan's capacity
	// to the plan queue's resources. Both built-in flavors do (YARN's fair
	// follower does not, so its plans keep the capacity they were created
	// with whatever happens to the cluster).
	PublishesCapacity() bool
	// String names the flavor.
	String() string
}

// CapacityFlavor is the capacity scheduler's follower: reservation queues
// are named by the bare reservation id (capacity scheduler queue names are
// unique), the default queue "<plan>-default", and every run sets the
// plan's capacity to cluster × the plan queue's absolute capacity.
var CapacityFlavor Flavor = capacityFlavor{}

// FairFlavor is the fair scheduler's follower: reservation queues are full
// paths "root.<plan>.<id>" (YARN-2773), the default queue
// "root.<plan>.<plan>-default", and every run sets the plan's capacity to
// the plan resources, the plan queue's steady fair share (YARN's
// FairSchedulerPlanFollower leaves the capacity alone: see the package's
// differences from YARN).
var FairFlavor Flavor = fairFlavor{}

// FlavorReporter is implemented by a scheduler that names the built-in
// flavor whose queue names it takes: *capacity.Scheduler reports
// "capacity", *fair.Scheduler "fair". [New] takes the reported flavor when
// Config.Flavor is nil and refuses the other built-in one (a host's own
// flavor is the host's business).
type FlavorReporter interface {
	FollowerFlavor() string
}

// builtinFlavor returns the built-in flavor named name, or nil.
func builtinFlavor(name string) Flavor {
	switch name {
	case CapacityFlavor.String():
		return CapacityFlavor
	case FairFlavor.String():
		return FairFlavor
	}
	return nil
}

type capacityFlavor struct{}

func (capacityFlavor) QueueName(_, reservation string) string { return reservation }
func (capacityFlavor) ReservationName(queue string) string    { return lastName(queue) }
func (capacityFlavor) PublishesCapacity() bool                { return true }
func (capacityFlavor) String() string                         { return "capacity" }

type fairFlavor struct{}

func (fairFlavor) QueueName(planQueue, reservation string) string {
	full := planQueue
	if full != "root" && !strings.HasPrefix(full, "root.") {
		full = "root." + full
	}
	if strings.HasPrefix(reservation, full+".") {
		return reservation
	}
	return full + "." + reservation
}
func (fairFlavor) ReservationName(queue string) string { return lastName(queue) }
func (fairFlavor) PublishesCapacity() bool             { return true }
func (fairFlavor) String() string                      { return "fair" }

// lastName is the part after the last '.' (the whole name without one).
func lastName(q string) string { return q[strings.LastIndexByte(q, '.')+1:] }

// defaultReservation names a plan's default reservation: its short name
// plus [DefaultSuffix].
func defaultReservation(fl Flavor, planQueue string) string {
	return fl.ReservationName(planQueue) + DefaultSuffix
}
