// Package fair is YARN's FairScheduler as a library the host drives.
//
// A [Scheduler] divides a cluster among a tree of queues and their
// applications by weighted max-min fairness (memory only, FIFO, or
// dominant resource fairness per queue) as YARN 3.3's FairScheduler does:
// on the same calls it computes the same fair shares and makes the same
// placements, allocations and reservations, with delay scheduling,
// maxRunningApps, maxAMShare, placement rules and reservation queues for a
// plan. It keeps its orders instead of sorting on every visit, so a
// heartbeat costs about the same with 100 or 100,000 runnable applications
// and beside 10 or 10,000 idle queues. The price is that nothing runs by
// itself: time is the host's berth.Clock, YARN's update thread is a call
// (a heartbeat makes it when due), and one mutex serialises every call.
// It shares package capacity's host-facing calls and records, so a host
// can swap one scheduler for the other; it launches no container, reads no
// yarn-site.xml ([Config] is set in Go) and preempts nothing on its own
// (package preempt does).
//
// # Usage
//
//   - [ParseAllocationFile] reads fair-scheduler.xml (every element YARN
//     reads) into a typed [AllocationFile]; errors are *berth.FieldError
//     values naming the element.
//   - [ParseAllocationFileReport] also lists the elements and attributes
//     YARN ignores (misspellings, with the closest known name);
//     [ParseOptions].Strict refuses such a file.
//   - [ParseResource] reads a resource string in any of YARN's forms.
//   - [New] builds a scheduler from a [Config] that carries the
//     [AllocationFile] and the host's clock; [Scheduler.Reload] applies a
//     new allocation file with YARN's rules for what changes at once.
//   - [Scheduler.AddNode] and [Scheduler.RemoveNode] apply node events,
//     [Scheduler.SubmitApp] places an application through the file's
//     [PlacementPolicy] ([Scheduler.Place] answers without submitting),
//     [Scheduler.Allocate] updates its asks and releases.
//   - [Scheduler.Heartbeat] returns the containers allocated on a node.
//   - [Scheduler.Snapshot] reports queues (fair and steady shares),
//     applications and nodes, [Snapshot].Tree the shared queue tree's
//     books; [Scheduler.Check] verifies them.
//   - [ComputeShares] is YARN's ComputeFairShares exactly (25 bisection
//     steps, the upper bound kept, shares truncated); [Policy] (fair,
//     FIFO, DRF) orders [Schedulable] values with YARN's comparators.
//   - *Scheduler is a follower.Scheduler as it is (YARN's
//     FairSchedulerPlanFollower): a reservation queue's entitlement is its
//     weight, plan resources are steady fair shares.
//   - A plan for a reservable queue takes [Scheduler.PlanResources] as its
//     capacity and [Scheduler.ResourceCalculator] as its calculator (YARN's
//     FairReservationSystem).
//   - The host's records ([NodeSpec], [AppSpec], [Ask], [Container],
//     [Allocation], [Ended], …) are package queue's, shared with package
//     capacity.
//
// # The host's role
//
// Each tick of its clock a host applies node events (stopping the
// containers a removal ends), runs the plan follower, submits applications
// and asks, sends each node's heartbeat and starts what it returns, and
// runs fair preemption (package preempt) after the update, stopping what a
// round kills; package follower's Example (HostLoop) is this loop on the
// capacity scheduler, and the fair scheduler takes the same calls.
// [Scheduler.Update] is YARN's update thread: a heartbeat runs it first
// when Config.UpdateInterval has passed (and on the first heartbeat), and
// the host may call it at any time. As in YARN, demands and fair shares
// are those of the last update, so an ask is served from the next one.
// The host supplies users' groups (AppSpec.Groups, else Config.Groups).
//
// # Why an application waits
//
// A heartbeat's walk (YARN's attemptScheduling) visits a queue's children
// in policy order, attempts (AM share, then each request with delay
// scheduling) and commits a proposal (allocate, reserve, give a
// reservation up). Each skip has a queue.Reason, recorded only on demand
// as YARN's scheduler- and app-activities calls do:
// [Scheduler.RecordHeartbeat] and [Scheduler.HeartbeatRecord] for a node's
// next heartbeat, [Scheduler.RecordApp] and [Scheduler.Explain] for an
// application's last attempts. Unrecorded, the walk pays one boolean test
// per heartbeat. [Scheduler.DryRun] answers what a node would get now, on
// a copy.
//
// # Observing decisions
//
// [Scheduler.SetObserver] makes a host's [Observer] see each decision as
// it is made: containers allocated and ended, applications added, made
// runnable, moved, finished and killed, queues added and removed (on a
// reload, by placement and the update's clean-up, by a plan follower),
// reservation queues' weights changed (as entitlements); not a reload's
// changes to a surviving queue. It is called synchronously under the
// scheduler's lock, in decision order, must not call the scheduler back,
// and should only record, count or enqueue. Without an observer a decision
// costs one nil check; with one, a call and no allocation.
//
// # Durable state
//
// [Scheduler.SaveState] writes the scheduler as one consistent snapshot
// (versioned, streamed, CRC-checked) and [RestoreScheduler] builds a
// scheduler that decides exactly as the saved one would have, byte for
// byte: configuration and allocation file, queues, applications with
// their asks, delay-scheduling and starvation state, containers,
// reservations, preemption marks and earmarks. Fair shares and demands
// are saved as the last update left them; everything derived is rebuilt
// and checked. What is a Go value comes from [RestoreEnv] (clock, groups,
// logger, host rules and policies by name); set the observer again. A
// damaged snapshot is berth.ErrCorruptState, another kind
// berth.ErrInvalidArgument, a newer one berth.ErrUnsupportedVersion, and
// nothing half-built is returned. The layout is documented in state.go.
//
// # Extending
//
// A placement [Rule] reads a [PlacementRequest] and the tree through a
// [QueueLookup] and answers a [RuleAnswer]; the seven built-ins go through
// the same interface, and a host's rule sits among them as a
// [PlacementRule] whose Custom field holds it. A queue's scheduling policy
// is a [SchedulingPolicy] (YARN's SchedulingPolicy): a name and a
// calculator, seeing queues and applications only through
// [SchedulableView] and [PolicyEnv]. It implements only the extension
// points it changes, [Orderer], [ShareDivider], [ChildFilter],
// [LeafOnlyPolicy] and [Headroomer]; each one absent is the fair policy's
// behaviour. Fair, FIFO and DRF ([Policy.SchedulingPolicy]) implement them
// all through the same interfaces, and a policy can be built from their
// parts by embedding. Optional fast paths: [PolicyKeyer] gives a [SortKey]
// ordered as Compare, so large sets stay ordered incrementally;
// [TypeSharer] divides one resource type at a time.
// A host names its rule or policy in Go or registers it in the
// [queue.Registry] values of [ParseOptions]; built-in names win, an
// unknown name is a *berth.FieldError that also matches
// *queue.UnknownNameError. A rule's bad answer is a [*RuleError]
// (matching [ErrBadRule] and berth.ErrInvalidArgument) and adds nothing;
// a policy's negative share keeps the previous shares and shows in
// [Scheduler.PolicyError]; a Compare that is not a strict weak order only
// changes the visit order.
//
// # Differences from YARN
//
//   - Host placement rules and scheduling policies are registered Go
//     values, not classes; their answers are checked ([RuleError],
//     [PolicyError]), and registered names never shadow fair, fifo, drf.
//   - A host rule is never terminal: a built-in terminal rule must follow
//     it ([PlacementPolicy.Validate]).
//   - Shares that double arithmetic would round past a schedulable's
//     maximum (above 2^53) are clamped to it; YARN can exceed it.
//   - When maxima above 2^53 round so that no ratio reaches the total,
//     the search stops at +Inf (YARN doubles its bound forever).
//   - DRF with two resource types tests the second schedulable's neediness
//     with its own usage (YARN 3.3.2 reads the first's; fixed later).
//   - minResources and maxContainerAllocation as percentages are refused
//     (YARN stores null and fails later); so are NaN, infinite numbers and
//     timeouts overflowing milliseconds; old-style amounts are int64.
//   - Queue names may contain no white space anywhere (YARN trims it).
//   - Negative weights, application counts, maxAMShare other than -1 and
//     preemption timeouts are refused, naming the element (YARN starves
//     the queue or preempts at once); maxAMShare -1, thresholds clamped
//     to [0, 1], weight 0 and maxRunningApps 0 are kept as in YARN.
//   - [Scheduler.PlanResources] and [Scheduler.ReservationQueueState] give
//     every type a policy does not divide its share of the cluster (YARN:
//     0 vcores, so a plan refuses every reservation asking for vcores).
//   - Reservation queues go only by RemoveReservationQueue or with their
//     plan on a reload, never by the update's clean-up of idle queues.
//   - A plan's default queue ("<plan>-default", weight 1) is created with
//     the plan (YARN: on first use), so its steady share shows earlier.
//   - A node that would overflow the cluster total, or an ask an
//     application's demand, is refused (berth.ErrCapacityExceeded); sums
//     over applications and queues saturate; YARN wraps.
//   - A node that leaves ends its containers as Lost; an application whose
//     AM was lost keeps its attempt.
//   - Work-preserving recovery is replaced by [Scheduler.SaveState]: delay
//     counters, starvation clocks, reservations and marks come back too.
//   - Starvation (fair-share and min-share) is computed when
//     Config.Preemption is on; choosing and killing victims is package
//     preempt's FairPreemptor, through [Scheduler.SnapshotOf],
//     [Scheduler.NodeContainers], [Scheduler.PendingAsks],
//     [Scheduler.MarkForPreemption], [Scheduler.PreemptContainer],
//     [Scheduler.ReservePreempted] (YARN's assignPreemptedContainers) and
//     [Scheduler.PreemptionTriggered].
//   - A submission may carry its user's groups (AppSpec.Groups); YARN
//     always asks its group mapping service (Config.Groups).
//   - [Scheduler.AppsInQueue] lists applications in submission order (YARN:
//     a leaf's runnable, then waiting ones).
//   - Names break ties by byte order; Java compares UTF-16 code units
//     (different only outside the Basic Multilingual Plane).
//
// YARN's quirks kept on purpose: fair shares may add up to slightly more
// than the cluster; every child of a tiny parent can get one unit; the
// fair policy computes memory only; FIFO gives everything to the earliest
// application; maxAMShare's float is widened before rounding up (10240 ×
// 0.1 gives 1025); every application has priority 1 for ordering
// (AppSpec.Priority is recorded only); only starved applications reserve.
package fair
