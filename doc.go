// Package berth is the shared vocabulary of Berth, an embeddable Go library
// that re-creates the scheduling machinery of Apache Hadoop YARN's
// ResourceManager: the reservation system and the hierarchical capacity and
// fair schedulers. This root package holds only what every other package
// speaks: resources and resource calculators, time and intervals, the clock,
// and the error kinds. It imports no other package of Berth.
//
// # The pipeline
//
// A user asks for resources in advance with a reservation definition
// (stages of containers, joined by an interpreter such as R_ALL or R_ORDER,
// between an arrival and a deadline). An agent (package agent) searches the
// plan for a placement in time; a sharing policy (package policy) admits or
// rejects it; the plan (package plan) records it in run-length-encoded
// resource series (package rle). A plan follower (package follower)
// publishes the plan to a queue scheduler as dynamic reservation queues, and
// the scheduler (package capacity or fair, on the queue model of package
// queue) hands out containers when nodes heartbeat:
//
//	definition → agent → sharing policy → plan → plan follower → scheduler ← node heartbeats
//
// # Host-driven
//
// Berth is a library, not a server. The host program owns the clock and the
// events: it implements [Clock] (or uses a [ManualClock]), adds and removes
// nodes, and calls the scheduler on every node heartbeat. Berth never reads
// the wall clock, starts no goroutine of its own and keeps no package-level
// mutable state, so a simulation replays exactly and a test controls time.
// Decisions are deterministic: ties break on (time, sequence number), never
// on map iteration order.
//
// # Glossary
//
// YARN's names and Berth's:
//
//	Resource, ResourceInformation         berth.Resource, berth.Quantity
//	DefaultResourceCalculator             berth.MemoryCalculator
//	DominantResourceCalculator            berth.DominantCalculator
//	ReservationInterval                   berth.Interval (half-open)
//	Clock / UTCClock / ControlledClock    berth.Clock, berth.ManualClock
//	RLESparseResourceAllocation           rle.Series
//	PeriodicRLESparseResourceAllocation   rle.Periodic
//	ReservationDefinition / Request       plan.Definition, plan.Stage
//	InMemoryPlan                          plan.Plan
//	ReservationAgent, Planner             agent.*, policy.SimpleCapacityReplanner
//	SharingPolicy                         policy.NoOverCommit, policy.CapacityOverTime
//	CapacityScheduler, FairScheduler      capacity.Scheduler, fair.Scheduler
//
// # Errors
//
// Every error wraps one of the kinds declared here ([ErrInvalidArgument],
// [ErrNotFound], …), usable with errors.Is; bad input is reported as a
// [*FieldError] naming the field and value. Mutations are all-or-nothing: a
// failed call leaves state as it was.
package berth
