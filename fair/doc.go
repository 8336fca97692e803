// Package fair is YARN's FairScheduler as a library: a hierarchical queue
// scheduler that divides the cluster among queues and applications by
// weighted max-min fairness (memory only, FIFO, or dominant resource
// fairness per queue), driven by its host with node heartbeats and the
// host's clock. It sits at the end of Berth's pipeline beside package
// capacity and shares its host-facing shape (AddNode, SubmitApp, Allocate,
// Heartbeat returning containers, FinishApp, MoveApp, plan queues for
// reservations, Snapshot, PreemptContainer), so a host can swap one
// scheduler for the other.
//
// # Pieces
//
//   - [ParseAllocationFile] reads YARN's fair-scheduler.xml (every element:
//     nested and parent queues, min/max/maxChild resources, maxRunningApps,
//     maxAMShare, weight, schedulingPolicy, ACLs, preemption timeouts and
//     thresholds, allowPreemptionFrom, reservation, user limits, defaults,
//     queuePlacementPolicy) into a typed [AllocationFile]; [ParseResource]
//     reads resource strings in all of YARN's forms. Errors are
//     *berth.FieldError values naming the element.
//     [ParseAllocationFileReport] also returns a queue.ConfigReport of the
//     elements and attributes YARN's parser ignores (misspelt names, with
//     the closest known one); ParseOptions.Strict refuses such a file.
//     Berth has no yarn-site.xml reader: [Config] is set in Go.
//   - [ComputeShares] is ComputeFairShares exactly (25 bisection steps, the
//     upper bound kept, shares truncated), and [Policy] (fair, FIFO, DRF)
//     orders [Schedulable] values with YARN's comparators and divides
//     shares among them.
//   - [PlacementPolicy] places applications with YARN's rules (specified,
//     user, primaryGroup, secondaryGroupExistingQueue, nestedUserQueue,
//     default, reject) and their create flags; groups come from the host
//     (AppSpec.Groups for one submission, else Config.Groups).
//   - [Scheduler] satisfies follower.Scheduler as it is: plan and
//     reservation queue resources are steady fair shares, an entitlement's
//     capacity is the reservation queue's weight (YARN's
//     FairSchedulerPlanFollower), each accessor O(1) or O(answer). A plan
//     for a reservable queue is created with [Scheduler.PlanResources] as
//     its capacity and [Scheduler.ResourceCalculator] as its calculator
//     (YARN's FairReservationSystem), and the follower keeps the capacity
//     in step with the cluster.
//   - [Scheduler] keeps the queue tree (ad-hoc queues created by placement
//     and removed when empty), enforces maxRunningApps per queue and user,
//     recomputes instantaneous and steady fair shares, and allocates on
//     heartbeats with YARN's walk: queues and applications sorted by their
//     policy, delay scheduling by node/rack thresholds or by time,
//     assign-multiple and max-assign, maxAMShare, and node reservations for
//     starved applications.
//
// # The shared queue tree
//
// The queues are mirrored in a queue.Tree of package queue, the tree both
// schedulers share: it holds the hierarchy (configured, ad-hoc and
// reservation queues), answers ACL checks, and keeps the books — used and
// reserved resources and pending/active applications per queue and per
// user — which [Snapshot].Tree exposes. The scheduler's own queue nodes
// carry what only the fair scheduler needs (policies, weights, fair
// shares, runnable lists) as the tree's payload.
//
// # Extending
//
// A placement rule is a [Rule]: it reads a [PlacementRequest] (requested
// queue, user, groups, application tags and id) and the queue tree through
// a [QueueLookup], and answers a [RuleAnswer]: pass, reject, or a queue
// with whether it may be created. The seven built-ins are [PlacementRule]
// values and go through the same Rule.Place; a host's rule sits beside
// them as a PlacementRule whose Custom field holds it (its Create caps the
// rule's own). An allocation file names a host's rule in <rule name="…">
// when the host registered it in the [queue.Registry] it passes as
// [ParseOptions].Rules (no global registry); a name neither built in nor
// registered is a *berth.FieldError that also matches
// *queue.UnknownNameError. An answer naming a malformed queue, or an
// unknown verdict, fails the submission with a [*RuleError] (errors.Is
// [ErrBadRule] and berth.ErrInvalidArgument) and adds nothing; a parent
// queue is refused by the scheduler as for the built-ins. A host rule is
// never terminal for [PlacementPolicy.Validate]: a built-in terminal rule
// must follow it.
//
// A queue's scheduling policy is a [SchedulingPolicy] (YARN's
// SchedulingPolicy): a name, the calculator it decides with, Compare to
// order children or applications, ComputeShares to divide a fair or steady
// share, AllowsChild (isChildPolicyAllowed) and LeafOnly for where it may
// sit, and the headroom it grants. It sees queues and applications only
// through read-only [SchedulableView]s and a [PolicyEnv] (cluster, types).
// The built-in fair, FIFO and DRF ([Policy.SchedulingPolicy]) go through
// it. A policy that also implements [PolicyKeyer] gives a [SortKey] whose
// lexicographic order equals Compare's; the scheduler then keeps large
// sets ordered incrementally (the built-ins use the same path); without
// one, or for an item whose key is refused or holds NaN, the set is sorted
// with Compare on each visit, as YARN does. A Compare that is not a strict
// weak order only changes the order: every item is still visited once.
// A policy that divides each resource type on its own may also implement
// [TypeSharer]: it then writes one type's shares as integers and the
// scheduler installs only those components (the built-in fair and DRF
// divide this way, which keeps a division among thousands of items a few
// dense passes). A ComputeShares or ComputeTypeShares result with a
// negative component is rejected: the previous shares are kept and
// [Scheduler.PolicyError] returns a [*PolicyError]. A host names its policy in Go
// ([QueueConfig].SchedulingPolicy, [AllocationFile].DefaultSchedulingPolicy)
// or registers it in the [queue.Registry] passed as [ParseOptions].Policies
// for <schedulingPolicy> and <defaultQueueSchedulingPolicy>; built-in
// names always win, and an unknown name is a *berth.FieldError naming the
// element that also matches *queue.UnknownNameError.
//
// # A host's loop
//
// Each tick of its clock, a host applies node events ([Scheduler.AddNode],
// [Scheduler.RemoveNode], stopping the containers it ends); runs the plan
// follower when a plan step has passed; takes reservation requests
// (plan.System: with SystemConfig.Publish set to the follower's
// Publish, a reservation arriving within a step has its queue when Submit
// returns, as in YARN, and the follower's next run hands over what that
// publication ended); submits applications ([AppSpec] naming the
// reservation; one whose queue does not exist yet is refused with
// berth.ErrNotFound, as YARN refuses it) and their asks
// ([Scheduler.Allocate]); sends each node's [Scheduler.Heartbeat] (which
// runs [Scheduler.Update] when the update interval has passed) and starts
// the containers it returns; and runs fair preemption (package preempt)
// after the update, stopping what a round kills. Package follower's
// Example (HostLoop) is this loop on the capacity scheduler; the fair
// scheduler takes the same calls.
//
// # Time
//
// The scheduler never reads the wall clock and starts no goroutine. YARN's
// update thread becomes [Scheduler.Update]: a heartbeat runs it first when
// Config.UpdateInterval has passed on the host's clock (and on the very
// first heartbeat); hosts may call it at any time. As in YARN, demands and
// fair shares are those of the last update, so an ask made after it is
// served from the next update on.
//
// # Performance
//
// YARN sorts a parent's children and a leaf's runnable applications with
// the policy's comparator on every visit of every heartbeat, n log n per
// leaf and heartbeat. Berth keeps both orders in sorted sets instead,
// keyed by the comparator flattened into a lexicographic key, and re-keys
// an item where an input of its key changes: an application and its
// queue's path on every allocation, release and move (O(depth · log n));
// everything on an update (demands and application weights change there)
// and on reloads, reservation-queue and node changes (the DRF key depends
// on the cluster resource), lazily before the next walk (O(n) keys). A
// heartbeat therefore costs about the same with 100 or 100,000 runnable
// applications. The built-in policies' keys also carry an order-preserving
// prefix (a few integers compared first), so most comparisons inside a set are
// decided without reading the items. The shared tree's books are charged
// when read (a snapshot of the tree, Check, a move, a reload or a queue's
// removal), each application's containers and reservations since then in
// one update through a queue.UserRef, rather than per container and
// level: the scheduler decides from its own queue nodes, never from the
// books. Sets of at most eight (a parent's children, a leaf's
// applications) are still sorted per visit, which is cheaper at that
// size.
// Where a policy's comparator is not a strict weak order on
// some items (NaN ratios, e.g. DRF with zero weights or a resource type the
// cluster lacks) their queue or leaf is sorted as YARN does, so decisions
// are always those of sorting.
// YARN's walk also visits every child queue, those without a runnable
// application with pending demand below them included; Berth's skips
// them (visiting them decides nothing): a parent's kept order holds only
// its children with such demand, so a heartbeat costs the same with 10 or
// 10,000 idle sibling queues, e.g. a plan's finished reservations.
// A node added or removed re-resolves only what depends on the cluster's
// size (each queue's maximum share and the steady shares), not every
// queue's settings: 16 µs CPU per node event in the many-applications
// tree, from 42 µs (BenchmarkNodeEvent).
//
// # Observing decisions
//
// [Scheduler.SetObserver] makes a host's [Observer] (package queue's,
// shared with the capacity scheduler) see every decision as it is made:
// containers allocated and ended (completed, released, killed, preempted,
// lost); applications added, made runnable within maxRunningApps
// (activated), moved, finished, killed; queues added and removed —
// configured ones on a reload, ad-hoc ones the placement rules create and
// the update drops when idle, a plan follower's reservation queues — and
// reservation queues' weights changed (reported as entitlements, the
// weight as Capacity). A reload's changes to a surviving queue's settings
// are not reported. The observer is called synchronously with the
// scheduler's lock held, in decision order: it must not call the
// scheduler back, and should only record, count or enqueue (package
// queue's documentation has the rules). Without an observer each decision
// point costs one nil check; with one, an event costs a call and no
// allocation.
//
// # Why an application waits
//
// A heartbeat's walk (FairScheduler.attemptScheduling) runs in phases:
// visit a queue's children in policy order, attempt (offer the node to an
// application: its AM share, then its requests, with delay scheduling),
// commit the proposal (allocate, reserve, give a reservation up). Every
// skip has a queue.Reason — queue at maxResources, AM share, locality,
// locality delay, node too small or full, reservation refused, node
// reserved, not reached — recorded only on demand, as YARN's
// scheduler-activities and app-activities calls do:
// [Scheduler.RecordHeartbeat] and [Scheduler.HeartbeatRecord] for a
// node's next heartbeat, [Scheduler.RecordApp] and [Scheduler.Explain] for
// an application's last attempts, queue.ActivityObserver for events.
// Unrecorded, the walk pays one boolean test per heartbeat.
// [Scheduler.DryRun] answers what a node would get now, on a copy.
//
// # Durable state
//
// [Scheduler.SaveState] writes the scheduler as one snapshot of kind
// "fair.Scheduler" (body version 2) in Berth's shared format (package
// berth: versioned, streamed, CRC-checked), under the scheduler's lock so
// that it is a consistent cut; [RestoreScheduler] builds a new scheduler
// from it that decides exactly as the saved one would have: the same
// allocations, reservations, placements, starvation and later snapshots,
// byte for byte. The snapshot holds primary state only: the
// configuration and the allocation file in force, nodes, the queues with
// their kinds and policies, applications (user, queue, runnable or
// waiting, in their lists' order, asks with every locality and count, AM
// state, delay-scheduling state per request priority, starvation clocks
// and back-off), live containers with the id counter, node reservations,
// preemption marks and the room earmarked for starved applications. Fair
// shares and demands are those of the last update, so they are saved as
// they are: recomputing them would see asks made since. Usage, runnable
// counts, AM usage, the shared queue tree and its books, the container
// index, the per-node and per-application container lists and the walk's
// kept orders are rebuilt on restore through the scheduler's own helpers
// and then checked ([Scheduler.Check]); a snapshot whose books do not
// add up is refused as corrupt. What is a Go value comes from the host
// ([RestoreEnv]): the clock, the groups provider, the logger, and
// host placement rules and scheduling policies, which are saved by their
// Name and looked up in registries; an observer is set again with
// SetObserver. A truncated or damaged snapshot is refused with
// berth.ErrCorruptState, another kind with berth.ErrInvalidArgument, a
// newer body with berth.ErrUnsupportedVersion, and nothing is returned
// half-built. The body layout is documented in state.go.
//
// On a 10,000-node scheduler with 100,000 containers, 3,000 applications
// and 100 leaves (a 26.5 MB heap) a save takes 11–13 ms of CPU (21–32 ms
// of wall time) and allocates 0.4 MB; the snapshot is 2.0 MB; a restore
// takes 124–126 ms of CPU (0.29–0.52 s of wall time) and allocates
// 28.7 MB, the new scheduler included (1.08 times the state's heap)
// (BenchmarkStateSave, BenchmarkStateRestore, on a shared, loaded 2-core
// machine).
//
// # Differences from YARN
//
//   - A host's placement rule is a Go value registered by the host, not a
//     class loaded by name; its answer is checked ([RuleError]).
//   - A host's scheduling policy is likewise a registered Go value. Its
//     results are checked: a negative share is rejected and reported
//     ([PolicyError]) where YARN would install it; its sort order can
//     never corrupt the scheduler's kept orders. Registered names never
//     shadow fair, fifo and drf.
//   - Shares whose double arithmetic would round past a schedulable's
//     integer maximum (values above 2^53) are clamped to it; YARN can
//     hand out a share above the maximum there.
//   - When maxima above 2^53 round down in double precision so that even
//     an infinite ratio cannot reach the total, YARN's search doubles its
//     bound forever; Berth stops at +Inf (every share then sits at its
//     maximum).
//   - DRF with two resource types tests the second schedulable's
//     neediness with its own usage; YARN 3.3.2 reads the first one's (fixed
//     in later releases).
//   - minResources and maxContainerAllocation given as percentages are
//     refused (YARN stores a null resource and fails later); NaN or
//     infinite numbers and timeouts that overflow milliseconds are refused
//     (YARN accepts or wraps them); old-style amounts are read as int64
//     (YARN: int32, failing above 2^31).
//   - Queue names follow package queue: no white space anywhere (YARN only
//     trims it).
//   - Negative weights, application counts (maxRunningApps,
//     userMaxAppsDefault, queueMaxAppsDefault, a user's maxRunningApps),
//     maxAMShare values other than -1, and preemption timeouts are refused
//     with the element named; YARN reads them and then starves the queue
//     or preempts at once. Kept as in YARN: maxAMShare -1 (no AM limit),
//     thresholds clamped to [0, 1], weight 0 and maxRunningApps 0.
//   - The resources a plan follower reads ([Scheduler.PlanResources],
//     [Scheduler.ReservationQueueState]) are the steady fair share with
//     every resource type a policy above the queue does not divide (the
//     fair policy divides memory alone) set to the share's fraction of the
//     cluster's memory times the cluster's amount. YARN reports 0 vcores
//     there (or what a previous policy left), and since the reservation
//     system checks every type, a plan sized by it refuses every
//     reservation asking for vcores.
//   - Reservation queues are removed only by RemoveReservationQueue (or
//     with their plan when a reload drops it), never by the update's
//     clean-up of empty ad-hoc queues. A plan's default queue
//     ("root.plan.plan-default") is created with the plan, weight 1, as
//     package queue's shared tree does for every plan (the scheduler
//     mirrors that tree, so it cannot lag behind it); YARN creates it on
//     the first submission or the plan follower's first run, so its steady
//     fair share shows up earlier here. The plan queue's own steady share
//     (the follower's plan resources) is the same either way.
//   - A node whose capability would overflow the cluster total (int64)
//     is refused with berth.ErrCapacityExceeded; YARN's sum wraps negative.
//     So is an ask after which an application's outstanding demand would
//     overflow (as in package capacity); demands summed over applications
//     and queues saturate at the int64 bounds instead of wrapping.
//   - A node that leaves ends its containers as Lost; an application whose
//     AM was lost keeps its attempt (restarting it is the host's business).
//     YARN's work-preserving recovery (rebuilding containers from node
//     reports after a restart) is replaced by [Scheduler.SaveState] and
//     [RestoreScheduler]: the whole scheduler, including what YARN
//     loses on a restart (delay-scheduling counters, starvation clocks,
//     node reservations, preemption marks), comes back as it was.
//   - Starvation (fair-share and min-share, reference §4.13) is computed
//     when Config.Preemption is on, because reservations depend on it;
//     choosing and killing victims is left to a preemption policy (package
//     preempt's FairPreemptor), which reads [Scheduler.SnapshotOf],
//     [Scheduler.NodeContainers] (a large cluster is read without copying
//     every container) and [Scheduler.PendingAsks], marks and kills with
//     [Scheduler.MarkForPreemption] and [Scheduler.PreemptContainer],
//     earmarks the room with [Scheduler.ReservePreempted] (a node's
//     heartbeat then serves those applications first, YARN's
//     assignPreemptedContainers) and starts an application's back-off
//     with [Scheduler.PreemptionTriggered].
//   - A submission may carry the user's groups (AppSpec.Groups, shared
//     with the capacity scheduler); YARN always asks its group mapping
//     service, which Config.Groups stands for.
//   - [Scheduler.AppsInQueue] lists applications in submission order; YARN
//     lists each leaf's runnable then waiting applications in its own order.
//   - Names break ties by byte order; Java compares UTF-16 code units, which
//     differs only for characters outside the Basic Multilingual Plane.
//
// Faithful quirks kept on purpose: fair shares may add up to slightly more
// than the cluster (the search keeps its upper bound), every child of a
// tiny parent can get one unit, the fair policy computes memory only,
// FIFO gives everything to the earliest application, maxAMShare's float is
// widened to double before rounding up (10240 × 0.1 gives 1025), every
// application has priority 1 for ordering (AppSpec.Priority is recorded
// only), and reservations are made only for starved applications.
package fair
