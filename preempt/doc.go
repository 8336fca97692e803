// Package preempt is preemption for Berth's schedulers: the capacity
// scheduler's proportional preemption policy (YARN's
// ProportionalCapacityPreemptionPolicy) and the fair scheduler's
// starvation preemption. A policy reads a scheduler through a small
// interface declared here, decides which containers must give way so that
// starved queues get what they are guaranteed, and acts through the
// scheduler's own hooks (mark, kill, cancel a reservation). Like the rest
// of Berth it is driven by the host: the host calls a round at its own
// monitoring interval with its own clock's time; nothing runs by itself.
//
//	host loop:  heartbeats → capacity.Scheduler ← Proportional.Round(now)
//
// # The proportional policy: one round
//
// [Proportional.Round] is YARN's editSchedule (reference §3.2):
//
//  1. State. The policy reads the scheduler's aggregate state
//     ([CapacityScheduler.PreemptionState], one lock, no containers) into a
//     [CapacityView]: each queue with its guarantee, maximum, usage
//     (reserved included), and the demand its users' limits let through,
//     with and without what is reserved; each leaf's applications in
//     scheduling order with their live AM usage and their users' limits;
//     the reservations and the nodes holding them. Containers are read on
//     demand, only for the applications and nodes the selectors search
//     ([CapacityView.AppContainers], [CapacityView.NodeContainers]); the
//     FIFO selector pages through an application newest first and stops
//     once its leaf has given enough. The host should not change the
//     scheduler during a round; if it does, a container or application
//     that ended meanwhile is simply absent (or reported Vanished).
//  2. Extras. Bottom up, each queue's usage beyond its guarantee is split
//     into preemptable and untouchable parts (untouchable beneath a queue
//     with disable_preemption).
//  3. Ideal assignment. Top down, each parent's ideal assignment is shared
//     among its children by YARN's fix-point: every child first keeps
//     min(used, guaranteed) plus its untouchable part, then what is left
//     is offered to the most under-served children (ideal over guarantee,
//     queue priority under a priority-utilization parent) in proportion
//     to their guarantees, each taking no more than its maximum, its usage
//     plus demand, and, for a leaf, max(used, guaranteed); children
//     without guarantee share what remains evenly. A child's excess over
//     its ideal (never below min(used + demand, guaranteed)) is scaled
//     down when the sum exceeds the round's budget.
//  4. Amount per leaf. A leaf gives only when its usage exceeds its
//     guarantee by more than max_ignored_over_capacity (the dead zone),
//     and then natural_termination_factor of its excess: the rest is left
//     to containers that end by themselves.
//  5. Selection. The selectors run in YARN's order, each seeing what the
//     earlier ones chose and all drawing on one budget
//     (total_preemption_per_round of the cluster): [PrioritySelector],
//     [ReservedSelector], [FIFOSelector], the balance FIFOSelector and
//     [IntraQueueSelector], each when enabled ([DefaultSelectors]). The
//     FIFO selector walks each leaf's applications latest first, their
//     reservations, then their containers least important and newest
//     first, keeping AM containers for last (taken only while the leaf's
//     skipped AMs exceed its AM share). A container is taken only while it
//     helps what its leaf must give (see [ProportionalRound.TryPreempt]).
//     What a leaf must give is computed afresh by each selector, less the
//     containers earlier selectors chose from it, each taken off only
//     while what remains is greater than it (YARN's
//     deductActuallyToBePreempted): a remainder the size of the last
//     container stays, and the later selector takes one more.
//  6. Protocol. A container chosen for the first time is marked
//     ([CapacityScheduler.MarkForPreemption]: the application is told);
//     one chosen again once its selector's kill wait (max_wait_before_kill)
//     has passed since it was marked is killed
//     ([CapacityScheduler.PreemptContainer]). As in YARN (firstSeen + wait
//     <= now), the kill comes at the first round at least the wait after
//     the mark, so with rounds every monitoring_interval a wait counts in
//     whole intervals, rounded up: at the 3 s default, 15000 ms kills at
//     the fifth round after the mark and 15001 ms at the sixth, 3 s later
//     (fewer kills: more containers finish first). A chosen reservation is
//     cancelled at once. A mark not renewed for twice the wait, or whose
//     container ended, is forgotten. With observe_only the round computes
//     and reports but does nothing.
//
// Node partitions (capacity's node labels) are computed separately, as
// YARN's TempQueuePerPartition trees: each partition has its own
// guarantees, maximums, usage and demand within the users' limits there,
// its own ideal assignment (its resource is what comparisons there are
// relative to) and its own amount per leaf to give; every partition draws
// on the one budget. A container counts on its node's partition
// ([CapacityView.PartitionOf]). On a non-exclusive partition a queue
// without a maximum of its own there may use all of it, and the FIFO
// selector first takes a leaf's borrowed containers (default-partition
// asks placed on the partition, [QueueView].Borrowed) on the partitions it
// must give back.
//
// Each round returns a [ProportionalReport]: per queue its guarantee, usage,
// demand and [Assignment] (ideal, to be preempted, asked this round,
// preemptable, untouchable), on the default partition and on each labelled
// one (Partitions); per chosen container the selector that chose
// it and what was done ([Decision], [Action]); the containers killed, for
// the host to stop. [Proportional.Evaluate] computes a round without
// acting.
//
// # Configuration
//
// [ProportionalConfig] holds every key of YARN's policy with YARN's
// default, each field naming its key, and the per-queue disable_preemption
// and intra-queue-preemption.disable_preemption switches (inherited down
// the tree). [ParseProportionalXML] reads them from the same
// capacity-scheduler.xml (or yarn-site.xml) that capacity.ParseXML reads;
// queue priorities and ordering policies come from the scheduler's own
// configuration ([CapacityScheduler.Config]).
//
// # Extending
//
// Selection is open: a [Selector] chooses containers through the exported
// methods of [ProportionalRound] (the cluster view,
// [ProportionalRound.ComputeIdeal], [ProportionalRound.ToObtain],
// [ProportionalRound.TryPreempt], [ProportionalRound.Take], the budget),
// exactly as the built-in selectors do; [WithSelectors] installs a chain
// of the host's. The scheduler side is open too: any type with the methods of
// [CapacityScheduler] can be preempted (*capacity.Scheduler is one).
//
// # The host's role
//
// The host calls Round every monitoring_interval (3 s by default) with
// its clock's time, after heartbeats, from one goroutine: a Proportional
// is not safe for concurrent use. It logs or asserts on the reports,
// tells applications about marked containers if it models AMs, and stops
// killed containers on their nodes. Nothing in the package reads the
// wall clock, starts a goroutine or keeps global state.
//
// # Fair-scheduler preemption
//
// [FairPreemptor] is YARN 3.x's fair-scheduler preemption (the
// application-centric FSPreemptionThread) as a round the host calls at its
// own interval with its clock's time. It reads the fair scheduler through
// [FairScheduler], which *fair.Scheduler satisfies. [ParseFairConfig] reads
// the yarn-site keys (yarn.scheduler.fair.preemption, its
// cluster-utilization-threshold, waitTimeBeforeKill,
// waitTimeBeforeNextStarvationCheck, and the heartbeat keys that size the
// back-off) into a typed [FairConfig] with YARN's defaults;
// [FairConfig.ApplyTo] sets the scheduler's own switches, since the
// scheduler computes starvation only with preemption on. The per-queue
// settings (minSharePreemptionTimeout, fairSharePreemptionTimeout,
// fairSharePreemptionThreshold, allowPreemptionFrom) live in the
// allocation file that package fair parses.
//
// [FairPreemptor.Round]:
//
//  1. Finishes earlier work: a container marked waitTimeBeforeKill ago is
//     killed if the application it was chosen for still has pending demand,
//     otherwise unmarked; a marked container that ended by itself is
//     dropped.
//  2. If the cluster's utilization (the larger of the memory and vcores
//     ratios) is above the threshold, serves every application that the
//     scheduler's last update found starved for its fair or minimum share
//     and that is out of back-off, least starved first.
//  3. For each, takes the asks matching its starvation (one locality level
//     per priority, the most specific first, counts cut to what the
//     starvation covers) and asks the [FairVictimSelector] to make room for
//     each container of them.
//  4. Marks the victims (the application can be told) and earmarks their
//     room for the starved application on that node, whose heartbeats then
//     give it the room first; the application then backs off for the wait
//     plus a few heartbeats plus waitTimeBeforeNextStarvationCheck.
//
// Each round returns a [FairRound]: the starved applications with their
// requests and what was done for them, and one [FairDecision] per container
// (marked, killed, released or forgotten), with the application it serves
// and why; and, as a ProportionalReport does, the containers killed
// ([FairRound].Ended), for the host to stop.
//
// The built-in [FairYARNSelector] is YARN's identification: the nodes the
// ask names in node-id order; on each, running containers non-AM first and
// newest first, AMs last, while the container's queue and its ancestors
// allow preemption, it is not already marked, and its application stays at
// or above its fair share; taking stops when the request fits in the
// node's potential (unallocated minus the reserved container minus room
// already earmarked for others). The first set without an AM wins, else
// the one with the fewest. A selector of the host's is refused, with
// berth.ErrInvalidArgument, a set that takes a container twice, from
// another node, or below its application's fair share.
//
// The fair preemptor's state survives a restart:
// [FairPreemptor.SaveState] writes a snapshot of kind
// "preempt.FairPreemptor" (body version 1) holding its configuration, the
// round counter, the marked containers with the application each serves
// and when it was marked (in the order later rounds walk them), the room
// preempted on each node for each application and not yet handed over,
// and each application's back-off. [RestoreFairPreemptor] rebuilds it over
// the scheduler the host passes (typically one restored with
// fair.RestoreScheduler from a snapshot taken between the same two
// rounds) and the host's selector; the round's buffers and
// [FairYARNSelector]'s per-round cache hold nothing a later round decides
// with. The restored pair marks, kills and releases exactly as the
// original would have.
//
// # Performance
//
// A round is linear in queues, applications and reservations, plus the
// containers of the applications it searches: a leaf that must give a few
// containers reads a few pages of its newest application, not the
// cluster's containers, and no node list is copied. It allocates a
// bounded number of objects per queue and application and, for
// containers, O(log n) growing slabs. On 1,000 leaf queues in 3 levels,
// 10,000 nodes and 100,000 containers with 20% of the queues over their
// guarantee (BenchmarkProportionalRound), a full round, reading the
// scheduler's state included, takes 4.6–5.2 ms of CPU with intra-queue
// preemption off and 6.2–6.4 ms with it on, in 635 and 1,447 allocations
// (about 5 MB); the policy's own work on a state read once, 2.9–3.4 and
// 4.1–4.6 ms. These are the benchmark thread's CPU time on a shared,
// loaded machine (wall time there also carries other processes and the
// garbage collector's background work); the earlier design, copying
// every container through Snapshot, took 24–30 ms.
//
// A fair round reads queues, applications and nodes once, then only the
// containers of the nodes its selector examines; per marked container it
// does constant work and allocates nothing: marks are kept in a slice
// (their id index is extended only when a later lookup needs it), the
// view's per-node books and the containers it reads live in buffers the
// preemptor reuses from round to round, and [fair.Scheduler] appends a
// node's containers into them and marks each run of victim sets on one
// node in one call (the optional AppendNodeContainers and
// MarkForPreemptionOn; another scheduler is read through [FairScheduler]
// alone). A round allocates a bounded number of objects per starved
// application plus the decisions it returns. On the same shape with 200
// starved applications (10,000 containers marked, 1,080 nodes' containers
// read) a round takes 9.4–10.2 ms of process CPU (thread CPU 0.1 ms less)
// on a shared, loaded 2-core machine, with 653 allocations and 3.9 MB,
// 1.8 MB of it the returned decisions (BenchmarkFairRound; 16–18 ms,
// 18,000 allocations and 12.4 MB before); the first round of a new
// preemptor 9.7–11 ms and 11 MB (BenchmarkFairRoundCold).
//
// # Durable state
//
// [Proportional.SaveState] writes the proportional policy as one snapshot
// of kind "preempt.Proportional" (body version 1): its configuration, the
// names of its selector chain (and whether the host supplied it) and every
// marked container with the time it was first marked, which is what the
// kill wait of later rounds reads. A round keeps nothing else: the
// built-in selectors are plain values and each round reads the scheduler
// afresh. [RestoreProportional] rebuilds the policy over the scheduler the
// host passes (typically one restored with capacity.RestoreScheduler from
// a snapshot taken at the same moment); a host's selector chain comes back
// through [WithSelectors] and must carry the saved names in order. A
// damaged snapshot is refused with berth.ErrCorruptState.
//
// An observer is set again with [Proportional.SetObserver] on the
// restored policy.
//
// # Observing decisions
//
// [Proportional.SetObserver] and [FairPreemptor.SetObserver] make a
// host's [Observer] see each decision a round carries out, as a
// [PreemptionEvent]: a container marked, killed, unmarked (the mark
// forgotten or no longer needed), a reserved container cancelled. It is
// called synchronously during Round, in the order of the round's report;
// it must not call the policy back (a policy holds no lock and is driven
// by one loop) but may read the scheduler. The scheduler's own observer
// (package queue's Observer) sees the kills too, as containers ended
// with status Preempted, just before the policy's event. Observe-only
// rounds decide nothing and report nothing. Without an observer each
// decision costs one nil check.
//
// # Differences from YARN
//
//   - Marks survive a restart through [Proportional.SaveState]; YARN's
//     policy keeps them in memory only, so a failover restarts every
//     kill wait.
//   - The intra-queue selector balances the default partition only
//     (YARN's balances each partition's under-served leaves).
//   - A leaf's borrowed containers are walked in one order for all the
//     partitions it must give back (the latest application's first, each
//     newest first); YARN walks them partition by partition, the
//     partitions in hash order.
//   - No lazy preemption: a kill frees the container at once
//     (yarn.scheduler.capacity.lazy-preemption-enabled is not read); the
//     killable resource of every queue is zero.
//   - Containers chosen earlier in a round are taken off what a leaf must
//     give in the order they were chosen; YARN walks them in hash order,
//     which gives another remainder when their sizes differ.
//   - Ties in the ideal-assignment fix-point are broken by child order;
//     YARN's depend on the iteration order of a hash set. Leaves are
//     walked depth first (YARN: its leaf-name set order).
//   - The FIFO selector cancels a reservation only when it counts it
//     toward what the leaf must give; YARN cancels every reservation it
//     walks, even one it did not select (fixed: a reservation cancelled
//     for nothing).
//   - A mark whose container has ended is forgotten at the next round;
//     YARN keeps it until twice the wait. ForgetUnselected (no YARN key)
//     forgets a mark as soon as a round does not renew it.
//   - Kill and forget deadlines are compared without overflow: YARN's
//     firstSeen + 2 × max_wait_before_kill overflows for a huge wait and
//     forgets every mark at once (fixed).
//   - The queue-priority selector cannot move a reservation to another
//     node (Berth's scheduler has no such operation):
//     allow-move-reservation is read but only nodes holding the
//     reservation are freed.
//   - The intra-queue selector takes from each application up to its own
//     amount rather than from the leaf's total, and reads user limits
//     through [CapacityScheduler.UserLimit].
//   - A leaf's AM share is its guarantee times its
//     maximum-am-resource-percent (YARN: its effective capacity on the
//     partition).
//
// Fair-scheduler preemption:
//
//   - A node whose free, unreserved room already fits the request yields no
//     victim; YARN adds the node's first preemptable container before it
//     checks, preempting one container for nothing (fixed).
//   - Asks of zero capability drive no preemption (YARN's memory ratio
//     becomes infinite and, with the previous point, kills for nothing).
//   - Negative durations are refused by the parser; YARN's timer throws on
//     a negative delay, which silently stops its preemption thread.
//   - The back-off sum saturates instead of wrapping into the past (YARN's
//     long arithmetic would preempt for the application on every update).
//   - By default a marked container is killed after the wait only if the
//     application it was chosen for still has pending demand, otherwise it
//     is unmarked; YARN kills unconditionally, which
//     FairConfig.KillUnneeded (berth.preempt.fair.kill-unneeded)
//     reproduces.
//   - Orders are deterministic: nodes by id, a node's containers newest
//     first; a priority's starved request from hosts, then racks, then
//     ANY; starved applications least starved first (memory, vcores,
//     submission). YARN uses hash-map orders and a partial-order
//     comparator.
//   - One round serves every starved application out of back-off; YARN's
//     thread takes them one at a time as its update queues them.
//   - The utilization threshold also gates the round itself (kills of
//     earlier marks still happen); YARN gates only the starvation update.
//   - The preemptor keeps its own per-node "preempted for application"
//     totals to compute a node's potential; containers marked by others are
//     excluded as candidates but not counted.
//   - Marks, their wait and the back-off survive a restart through
//     [FairPreemptor.SaveState]; YARN keeps its kill timers and back-off
//     in memory only, so a failover loses them and preemption starts
//     over from the starvation the new ResourceManager computes.
package preempt
