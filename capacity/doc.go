// Package capacity is YARN's CapacityScheduler as a library the host drives.
//
// A [Scheduler] divides a cluster among a tree of queues with guaranteed
// and maximum capacities as YARN 3.3's CapacityScheduler does, with the
// queue features YARN 3.x added: on the same calls it makes the same
// allocations, reservations and activations, with user and AM limits,
// delay scheduling, node partitions, queue mappings and reservation queues
// for a plan. It keeps its orders instead of sorting on every visit, so a
// heartbeat costs about the same beside 10 or 10,000 idle queues, and a
// container costs about two heap allocations. The price is that nothing
// runs by itself: time is the host's berth.Clock, each of YARN's threads
// is a call the host makes, and one mutex serialises every call (safe for
// concurrent use, but heartbeats do not run in parallel). It launches no
// container and speaks to no node or AM (the host starts what a heartbeat
// returns), and preempts nothing on its own (package preempt does).
//
// # Usage
//
//   - [Config] is typed, a tree of [QueueConfig] carrying [QueueSettings];
//     [ParseXML] reads capacity-scheduler.xml at the edge, [ParseXMLReport]
//     also lists what Berth does not model and keys nobody knows (with the
//     closest known one), [XMLOptions].Strict refuses such a file.
//   - [New] builds a scheduler from a [Config] that carries the host's clock;
//     [Scheduler.Reconfigure] applies a new configuration atomically.
//   - [Scheduler.AddNode] and [Scheduler.RemoveNode] apply node events;
//     [Scheduler.SubmitApp] places an application (refused when its queue
//     does not exist), [Scheduler.Allocate] updates its asks and releases.
//   - [Scheduler.Heartbeat] returns the containers allocated on a node,
//     each with its application's headroom.
//   - [Config].Placement holds the queue mappings (u:, g: and app-name
//     mappings, or YARN 3.4's JSON rules, [ParseMappingRules]);
//     [Scheduler.Place] answers without submitting.
//   - [Scheduler.Snapshot] reports queues, applications and nodes, each
//     queue's partitions in [QueueInfo].Partitions; [Scheduler.Check]
//     verifies the books.
//   - *Scheduler is a follower.Scheduler as it is: a plan follower adds,
//     sizes and removes reservation queues under a reservable leaf
//     ([Scheduler.AddReservationQueue], [Scheduler.SetEntitlement],
//     [Scheduler.RemoveReservationQueue], [Scheduler.PlanResources]).
//   - An application submitted to a plan queue runs in its reservation's
//     queue (berth.ErrNotFound if the reservation is not active,
//     berth.ErrConflict if it is another plan's), or "<plan>-default".
//   - Package preempt reads [Scheduler.PreemptionState] and the containers
//     it searches ([Scheduler.AppendAppContainers] and its kin) and acts
//     with [Scheduler.MarkForPreemption], [Scheduler.PreemptContainer] and
//     [Scheduler.KillReservation].
//   - The host's records ([NodeSpec], [AppSpec], [Ask], [Container],
//     [Allocation], [Ended], …) are package queue's, shared with package
//     fair.
//
// # The host's role
//
// Each tick of its clock a host applies node events (stopping the
// containers a removal ends), runs the plan follower, submits applications
// and asks, sends each node's heartbeat and starts what it returns, and
// runs package preempt's rounds, stopping what they kill; package
// follower's Example (HostLoop) is this loop. What YARN does on a timer is
// a call at the host's clock: [Scheduler.ScheduleRound] (or
// [Scheduler.ScheduleRoundOn] over its own candidate nodes) for
// asynchronous scheduling, [Scheduler.ExpireApps] for application
// lifetimes, [Scheduler.ManageQueues] for auto-created queues. The host
// supplies users' groups (AppSpec.Groups, else Config.Groups).
//
// # Node partitions
//
// [Config].NodeLabels declares the partitions, exclusive or not; a node
// belongs to the one its NodeSpec.Label names. A queue's
// AccessibleNodeLabels, DefaultNodeLabelExpression and [LabelSettings]
// give what it may use and its capacity, maximum and AM share there; an
// ask's label is its own, else its application's, else its queue's
// default. Every quantity YARN keeps per partition is kept per partition.
// A labelled node serves asks for its partition; a non-exclusive one then
// lends its idle room to default-partition asks of any queue (never to an
// AM), which preemption takes back first. Without labels the scheduler
// keeps its memory layout and its cost per heartbeat. Reservation queues
// plan on the default partition only.
//
// # YARN 3.x queue features
//
//   - max-parallel-apps per queue, user and scheduler: later applications
//     wait, then run in submission order.
//   - Application priorities order a FIFO leaf
//     ([Scheduler.UpdateAppPriority], priority ACLs, workflow mappings).
//   - Lifetimes (AppSpec.LifetimeSeconds, queue maximum and default) end
//     in [Scheduler.ExpireApps]; [Scheduler.AppDeadline] tells when.
//   - Per-queue maximum-allocation, weight capacities ("2w") and
//     user-limit-factor -1.
//   - Auto-created queues ([AutoCreate]: legacy managed parents and v2)
//     appear when a submission names a missing queue under them;
//     [Scheduler.ManageQueues] re-balances managed parents and deletes
//     idle v2 queues.
//   - Asynchronous scheduling ([AsyncScheduling]): heartbeats only report
//     completions and the host calls [Scheduler.ScheduleRound].
//   - Multi-node placement ([MultiNodePlacement]) chooses among candidate
//     nodes in a [NodeSortingPolicy]'s order ([ResourceUsageNodes]).
//
// # Why an application waits
//
// A heartbeat's walk (YARN's allocateContainersToNode) visits a parent's
// children in its child ordering and a leaf's applications in its
// ordering policy, attempts (user limit, then each request with delay
// scheduling) and commits a proposal (allocate, reserve, unreserve). Each
// skip has a queue.Reason, recorded only on demand as YARN's scheduler-
// and app-activities calls do: [Scheduler.RecordHeartbeat] and
// [Scheduler.HeartbeatRecord] for a node's next heartbeat,
// [Scheduler.RecordApp] and [Scheduler.Explain] for an application's last
// attempts. Unrecorded, the walk pays one boolean test per heartbeat.
// [Scheduler.DryRun] answers what a node would get now, on a copy.
//
// # Observing decisions
//
// [Scheduler.SetObserver] makes a host's [Observer] see each decision as
// it is made: containers allocated and ended, applications added,
// activated, moved, finished and killed, queues added, removed and
// reconfigured, entitlements changed (not container reservations). It is
// called synchronously under the scheduler's lock, in decision order, must
// not call the scheduler back, and should only record, count or enqueue.
// Without an observer a decision costs one nil check; with one, a call and
// no allocation. The observer is not state: set it again after a restore.
//
// # Durable state
//
// [Scheduler.SaveState] writes the whole scheduler as one snapshot
// (versioned, streamed, CRC-checked; older versions still read) and
// [RestoreScheduler] builds a scheduler that decides exactly as the saved
// one would have: asks, delay counters, reservations, preemption marks
// and running float sums included, derived state rebuilt and checked.
// What is not data comes from [RestoreEnv]: the clock, the groups
// provider, host policies and calculator by name. A damaged snapshot is
// berth.ErrCorruptState; another kind berth.ErrInvalidArgument; a newer
// one berth.ErrUnsupportedVersion. The layout is documented in state.go.
//
// # Extending
//
// A leaf's [AppOrderingPolicy] (YARN's OrderingPolicy) and a parent's
// [ChildOrderingPolicy] see applications and queues only through read-only
// [AppView] and [QueueView]; the built-ins ([AppOrdering.Policy],
// [ChildOrdering.Policy]) go through them. A policy that also implements
// [AppKeyer] or [ChildKeyer] gives a key ordered as Compare, and the
// scheduler keeps the set ordered incrementally; without one it re-sorts
// with Compare. A bad Compare or a NaN key only permutes the visit. A host
// sets its policy in Go or registers it in [XMLOptions] (AppOrderings,
// ChildOrderings, NodeSortings); built-in names win, an unknown name is a
// *berth.FieldError that also matches *queue.UnknownNameError.
//
// # Differences from YARN
//
//   - Durable state is the whole scheduler, asks, delays, reservations and
//     marks included; YARN's RMStateStore rebuilds from node reports.
//   - Host ordering policies are registered Go values, not classes; an
//     unknown name is an error, and their orders cannot corrupt the state.
//   - Blacklists, container resizing and work-preserving recovery are not
//     modelled ([ParseXMLReport] lists the keys concerned).
//   - Timed work is the host's call (rounds, lifetimes, queue management):
//     an application expires once the clock is past its deadline; an idle
//     v2 queue goes on the call that finds it expired (YARN: the next
//     pass); multi-node sorters refresh at first use after their interval;
//     a node silent for Async.SkipNodeAfter of the host's clock is skipped.
//   - Asynchronous rounds start from a node that advances by one, in id
//     order (YARN: random) and commit each proposal before the next;
//     Async.Threads and MaxPendingBacklogs are read and kept only.
//   - With labels, a multi-node round takes one candidate set per
//     partition, the default first (YARN: its node tracker's order).
//   - ResourceUsageWithPartialShuffleMultiNodeLookupPolicy sorts as
//     ResourceUsageMultiNodeLookupPolicy, without the shuffle.
//   - maximum-am-resource-percent above 1 is read unchecked, as YARN does:
//     the AM limit then rarely holds applications back.
//   - ordering-policy fifo or fair on a parent is refused, as YARN 2.9+
//     does (XMLOptions.IgnoreLeafOrderingOnParents: YARN 2.8's ignoring);
//     priority-utilization or utilization on a leaf is refused.
//   - legacy-queue-mode.enabled=false is read, but the tree is validated
//     with the legacy rules (no mixing weights with percentages).
//   - A queue's maximum-allocation may not shrink on Reconfigure (as in
//     YARN); a template's is checked against the cluster's.
//   - AppSpec.Priority 0 is a priority, AppSpec.NoPriority the leaf's
//     default; with max-application-priority unset all are capped to 0.
//   - max-parallel-apps: removing a never-runnable application and moving
//     one keep the counts right (YARN 3.3 miscounts both).
//   - JSON mapping rules: no groups leaves %primary_group and
//     %secondary_group empty (YARN: the variable's name); a path with an
//     empty part is refused; text after the JSON object is ignored.
//   - Node labels are declared in Config.NodeLabels ([ParseXML] declares a
//     file's labels exclusive); a node's label is fixed while it is in the
//     cluster; Reconfigure may add labels but not drop them.
//   - The root holds every labelled partition whatever its keys say (YARN
//     3.4); YARN 3.1 to 3.3 give it none of a label it has no key for, and
//     3.1 and 3.2 read its keys' values.
//   - A labelled walk leaves the default partition's headroom limit alone;
//     YARN sets it from whichever walk ran last.
//   - PlanResources and ReservationQueueState scale the default
//     partition's resource; YARN scales the whole cluster's.
//   - Under the dominant calculator a labelled walk compares relative to
//     the partition's resource (YARN mixes partition and cluster).
//   - A host's child ordering orders default-partition walks; labelled
//     ones use the built-in comparator on the partition's usage.
//   - A moved application keeps its containers; the target must access
//     every partition it still asks for (YARN's checkQueuePartition).
//   - Queue mappings to a placeholder under a fixed, non-auto-creating
//     parent are accepted (YARN 3.3 refuses them, 3.4 accepts);
//     %application is a placeholder; custom placement classes are refused.
//   - Negative values in the XML are refused, naming the key, except where
//     YARN gives them a meaning: -1 for maximum-capacity and for a label's
//     capacity or maximum (unset; YARN 3 refuses a label's -1), a negative
//     maximum-applications (derived from the system limit) or
//     global-queue-max-application (unset), node-locality-delay -1
//     (rack-local at once), rack-locality-additional-delay -1 (the wait
//     factor), maximum-container-assignments -1 (unlimited),
//     maximum-offswitch-assignments below 1 (1) and queue priorities; a
//     negative maximum-am-resource-percent is refused too.
//   - A scheduler key is a request priority (no allocationRequestId), one
//     capability per priority, from its ANY ask.
//   - A resource name is a rack if it starts with "/" or names a current
//     node's rack, else a host.
//   - One attempt per application; with AppSpec.AMResource the scheduler
//     asks for the AM itself, and the first container is the AM.
//   - Preemption kills at once (no lazy preemption, no killable containers).
//   - A queue's "used" includes its reserved containers, as in YARN, and
//     so does the queue tree's accounting.
//   - Absolute-resource capacities use a simplified effective guarantee
//     and no absolute tie-break in child ordering.
//   - The fair ordering policy's demand is used plus pending memory.
//   - Headroom is computed after the allocation and never negative (YARN's
//     goes negative when vcores are over-committed).
//   - Under the dominant calculator a queue may pass its maximum in a
//     non-dominant resource, as in YARN.
//   - A node or an ask that would overflow int64 totals is refused
//     (berth.ErrCapacityExceeded); YARN wraps.
//   - Reservation keys are read into QueueSettings.Reservation and
//     Config.ReservationSystem and carried for the host's plans.
//   - Unknown ids in a heartbeat's completed list are ignored; releasing
//     an unknown container through Allocate is an error.
//   - A reservation whose ask changed size is cancelled, not filled (YARN
//     fills it without checking the queue's limits).
//   - A reservation queue takes all its plan queue's settings, not only
//     the four YARN re-applies.
//   - Entitlements with a maximum below the capacity are refused.
//   - In XML, maximum-capacity -1 means unset (100%); a duplicate child
//     queue name is an error naming the queues key.
package capacity
