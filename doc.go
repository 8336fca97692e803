// Package berth holds the resources, time, clock and errors that every Berth package shares.
//
// Berth re-creates the scheduling machinery of Apache Hadoop YARN's
// ResourceManager as Go packages: the reservation system (rle, plan, agent,
// policy, follower) and the hierarchical queue schedulers driven by node
// heartbeats (queue, capacity with preempt, fair). It decides as YARN 3.x
// does on the same inputs, except where YARN is wrong; each package's doc
// ends with its list of differences. It is a library, not a server: the
// host owns the clock and the events, and nothing happens unless it calls.
// There is no RPC, no timer and no goroutine here; the hosts under examples/
// show how to run a cluster, a simulator or replicas on top. This root
// package imports no other package of Berth.
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
// Every component is built alike, New…(cfg XConfig) (*T, error), the
// clock and collaborators being fields of the config; values (a [Resource],
// a series, an ACL) have plain constructors.
//
// # Resources and calculators
//
// A [Resource] is a value holding memory (MB), vcores and any extended
// countable types (YARN 3 resource types such as [ResourceGPU]); a type a
// resource does not mention counts as zero. Arithmetic on memory+vcores
// resources allocates nothing. A [Calculator] compares and divides resources
// as a scheduler does: [MemoryCalculator] (YARN's DefaultResourceCalculator)
// looks at memory only, [DominantCalculator] (DominantResourceCalculator) at
// dominant shares over every type. [Min], [Max], [LessThan] and friends
// apply a calculator with YARN's tie rules. [ParseResource] reads the
// resource strings of both schedulers' configuration files, at the edge, so
// the core only ever sees typed Resources.
//
// # Durable state
//
// Every stateful object (the reservation system, both schedulers, the plan
// follower, the preemption policies) saves itself with a SaveState method
// and comes back with its package's Restore function, in one shared
// format: [NewStateEncoder] and [NewStateDecoder] frame a body with a
// kind, a body version and a CRC-32C trailer, so a reader refuses an
// unknown version ([ErrUnsupportedVersion]) and a truncated or corrupted
// snapshot ([ErrCorruptState]) instead of half-loading it. Because every
// decision is a deterministic function of the host's calls and clock, a
// snapshot plus a log of those calls rebuilds the state exactly; the
// examples/durable package shows that journal and examples/ha replicates
// it.
//
// # Glossary
//
// YARN's names and Berth's:
//
//	Resource, ResourceInformation         berth.Resource, berth.Quantity
//	Resources (static helpers)            Resource methods, berth.Min/Max/…
//	DefaultResourceCalculator             berth.MemoryCalculator
//	DominantResourceCalculator            berth.DominantCalculator
//	ReservationInterval                   berth.Interval (half-open)
//	Clock / UTCClock / ControlledClock    berth.Clock, berth.ClockFunc, berth.ManualClock
//	RLESparseResourceAllocation           rle.Series
//	PeriodicRLESparseResourceAllocation   rle.Periodic
//	ReservationId                         plan.ReservationID
//	ReservationDefinition / Request       plan.Definition, plan.Stage
//	ReservationRequestInterpreter         plan.Interpreter (RAny, RAll, ROrder, ROrderNoGap)
//	ReservationAllocation                 plan.Allocation
//	InMemoryPlan                          plan.Plan
//	ReservationInputValidator             plan.ValidateDefinition
//	ReservationSystem, ClientRMService    plan.System
//	GreedyReservationAgent                agent.NewGreedy
//	AlignedPlannerWithGreedy              agent.NewAlignedPlannerWithGreedy
//	TryManyReservationAgents              agent.TryMany
//	IterativePlanner, StageAllocator*     agent.IterativePlanner, agent.GreedyRLE, agent.LowCostAligned
//	NoOverCommitPolicy                    policy.NoOverCommit
//	CapacityOverTimePolicy                policy.CapacityOverTime
//	SimpleCapacityReplanner               policy.SimpleCapacityReplanner
//	*SchedulerPlanFollower                follower.Follower (CapacityFlavor, FairFlavor)
//	CSQueue, FSQueue, QueueManager        queue.Tree, queue.Queue
//	AppSchedulingInfo                     queue.Requests
//	CapacityScheduler                     capacity.Scheduler
//	FairScheduler                         fair.Scheduler
//	ComputeFairShares                     fair.ComputeShares
//	QueuePlacementPolicy                  fair.PlacementPolicy
//
// # Differences from YARN in this package
//
// Deliberate, each where YARN crashes, overflows, lets bad input through or
// would need global state:
//
//   - No registry of configured resource types: a calculator considers
//     memory, vcores and the extended types present in its operands. This
//     agrees with YARN for every operation except DominantCalculator's
//     IsInvalidDivisor and AnyMajorZeroOrNegative, which in YARN also report
//     a configured type that r lacks (see [DominantCalculator]).
//   - Natural order ([Resource.Compare]) orders extended types by name, not
//     by configuration order.
//   - Rounding never overflows: [RoundUpTo] and the calculators' Normalize
//     and RoundUp saturate at math.MaxInt64 where YARN's long arithmetic
//     wraps negative (e.g. normalizing against an unbounded maximum).
//   - Zero divisors never throw: MemoryCalculator.AvailableContainers with a
//     zero-memory request is math.MaxInt32, RoundDown and
//     MultiplyAndNormalizeDown with a zero step leave the value unrounded.
//   - Float-to-integer conversions follow Java's (long) cast (saturating, NaN
//     to 0) rather than Go's implementation-defined conversion.
//   - DominantCalculator.AvailableContainers returns an int64 rather than
//     narrowing to a Java int (which wraps for huge negative counts).
//   - [ParseResource] rejects what YARN lets through silently: a type given
//     twice (YARN keeps the last), an unknown unit or malformed entry in the
//     capacity scheduler's "[memory=…]" form (YARN skips it), and negative
//     amounts in every form.
//
// Integer Add and Sub wrap like Java's long, on purpose: they stay exactly
// invertible, which plan bookkeeping relies on.
//
// # Errors
//
// Every error wraps one of the kinds declared here ([ErrInvalidArgument],
// [ErrNotFound], …), usable with errors.Is; bad input is reported as a
// [*FieldError] naming the field and value. Mutations are all-or-nothing: a
// failed call leaves state as it was.
//
// A message reads once, from the outside in: the operation ([Wrap]), then
// the field, the reason and the value, then the cause. No part says again
// what an outer or inner part already said, while errors.Is still reaches
// the kind and the cause, and errors.As the *FieldError.
package berth
