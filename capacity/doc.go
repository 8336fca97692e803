// Package capacity is YARN's CapacityScheduler as a library the host drives.
//
// The host adds and removes nodes, submits applications to leaf queues,
// updates their asks, and calls [Scheduler.Heartbeat] for every node
// update; each heartbeat returns the containers allocated on that node,
// with the application's headroom. It sits on the queue tree of package
// queue (configuration, validation, ACLs, accounting, reservation queues)
// and is what the plan follower publishes reservations to:
//
//	definition → agent → plan → follower → capacity.Scheduler ← heartbeats
//
// # How a heartbeat allocates
//
// As in YARN 3.3 (reference §2.4–§2.7): from the root, children are visited
// least used first (used over guaranteed capacity; queue priority with
// priority-utilization; ties to the larger guarantee); the first child that
// assigns wins. A leaf walks its active applications in ordering-policy
// order (FIFO or fair), each user held to its user limit (user-limit-factor,
// minimum-user-limit-percent, weights); an application tries its request
// priorities, most important first, and for each, node-local, rack-local
// then off-switch with delay scheduling (node-locality-delay,
// rack-locality-additional-delay or the locality wait factor) and
// relaxLocality. One container per pass; passes repeat while the node has
// room, stopping after a reservation or the configured number of
// off-switch containers (1 by default). When an ask fits no room on the
// node but within the queue's limits, the node is reserved for it; the
// reservation is served first on later heartbeats and dropped when no
// longer needed. Applications start (activate) while their AM fits the
// queue's and the user's AM limits.
//
// # Node partitions
//
// Node labels partition the cluster as YARN's NodeLabel.md describes.
// [Config].NodeLabels declares the partitions, exclusive (YARN's default)
// or not; a node belongs to the one its NodeSpec.Label names, or to the
// default partition. A queue's settings say which labels it may use
// (AccessibleNodeLabels, inherited from its parent; the root uses all),
// its capacity, maximum capacity (percentages of its parent's on the
// label, or absolute resources) and AM share on each label (NodeLabels),
// and the label of its applications' asks that name none
// (DefaultNodeLabelExpression). An ask's label expression is its own, else
// its application's (AppSpec.NodeLabelExpression), else its queue's
// default; the AM's is AppSpec.AMNodeLabelExpression, then the same. The
// label must exist and be one the queue may use.
//
// Every quantity YARN keeps per partition is kept per partition: queue
// usage, reservations and demand, guarantees, maximums and used
// capacities, user usage and user limits, AM usage and AM limits,
// application usage and demand; [Snapshot] reports each queue's partitions
// (QueueInfo.Partitions). The default partition's values live where a
// scheduler without labels keeps them, and the walk of an unlabelled node
// reads only those; the labelled partitions' live in per-partition slices
// allocated only when labels are configured. A cluster without labels
// therefore keeps its memory layout and its work per heartbeat.
//
// A heartbeat on a labelled node walks the tree for its partition
// (YARN's RESPECT_PARTITION_EXCLUSIVITY): only queues that may use it and
// have asks labelled with it are visited, in the order of their used
// capacity on it (those that may use it first), within their maximums
// there and their users' limits there, and only such asks are served.
// When that gives nothing and the partition is non-exclusive, a second
// walk (IGNORE_PARTITION_EXCLUSIVITY) lends the node's idle room to asks
// of the default partition of any queue, bounded by the partition's size
// alone, never to an AM, and only after the ask has missed as many
// scheduling opportunities as there are nodes, so that unlabelled asks
// prefer unlabelled nodes. Such containers count in the partition's usage;
// the preemption policy takes them back first when the partition's own
// queues ask. The reservation system (PlanResources,
// ReservationQueueState) plans on the default partition, as YARN's does;
// reservation queues have no capacity on labels.
//
// Reservation queues: a reservable leaf is a plan queue with a
// "<plan>-default" child. A plan follower (package follower) drives them
// with [Scheduler.AddReservationQueue], [Scheduler.SetEntitlement] and
// [Scheduler.RemoveReservationQueue], reads [Scheduler.PlanResources],
// [Scheduler.ReservationQueueNames] and [Scheduler.ReservationQueueState],
// and handles expired queues with [Scheduler.AppsInQueue],
// [Scheduler.MoveApp] and [Scheduler.KillApp]: *Scheduler is a
// follower.Scheduler as it is. [Scheduler.ReservationQueues] reports the
// reservation queues with their usage. An
// application submitted to a plan queue runs in the queue of its
// reservation id, rejected when the reservation is not active
// (berth.ErrNotFound) or belongs to another plan (berth.ErrConflict), and
// in the default queue when it names none.
//
// The preemption policy (package preempt) reads
// [Scheduler.PreemptionState] each round (queues with their guarantees,
// usage and pending demand within user limits, applications with their
// users' limits, reservations; no containers), then only the containers it
// searches ([Scheduler.AppendAppContainersBefore],
// [Scheduler.AppendAppContainers], [Scheduler.AppendNodeContainers]), and
// acts with
// [Scheduler.MarkForPreemption], [Scheduler.PreemptContainer] and
// [Scheduler.KillReservation].
//
// The host's records ([NodeSpec], [AppSpec], [Ask], [Container],
// [Allocation], [Ended], [ReservationQueueInfo], ...) are package queue's,
// re-exported under capacity's names and shared with package fair.
//
// Configuration is typed ([Config], [QueueSettings] on queue.Config);
// [ParseXML] reads a capacity-scheduler.xml at the edge, and
// [Scheduler.Reconfigure] applies a new configuration atomically.
// [ParseXMLReport] also returns a queue.ConfigReport of what the file says
// that Berth does not model (lazy preemption, min-resource, recovery, …,
// each with what Berth does instead) and of the keys nobody knows (with
// the closest known key: usually a typo); with XMLOptions.Strict such a
// file is refused. The knowledge of YARN's keys is one typed table
// (keys.go); keys of the preemption policy (package preempt) are known
// and left to it.
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
// reservation; one whose queue does not exist yet is refused) and their
// asks ([Scheduler.Allocate]); sends each node's [Scheduler.Heartbeat] and
// starts the containers it returns; and runs the preemption rounds of
// package preempt, stopping what they kill. Package follower's
// Example (HostLoop) is this loop.
//
// # Queue mappings
//
// [Config].Placement is YARN 3.3's placement for the capacity scheduler:
// yarn.scheduler.capacity.queue-mappings ("u:" and "g:" mappings with
// %user, %primary_group, %secondary_group and parent-qualified targets
// such as u:%user:root.users.%user), the application-name mappings of
// yarn.scheduler.queue-placement-rules.app-name (%application), the rule
// order of yarn.scheduler.queue-placement-rules, and
// queue-mappings-override.enable. At submission, each rule in order looks
// for the first mapping that matches the user (or a group of theirs, or
// the application's name); that mapping alone decides the rule's answer,
// and the first rule that answers a queue places the application there
// when it asked for "default", for that queue, or override is on.
// Otherwise the application goes where it asked. Groups come from the
// host: AppSpec.Groups, else Config.Groups ([Scheduler.Place] shows the
// answer without submitting). A mapping that fixes its target must name an
// existing leaf: New, Reconfigure and ParseXML refuse it otherwise, naming
// the mapping (queue-mappings[i]); a mapping that reads the groups of a
// user who has none rejects the submission (kind berth.ErrNoPlacement).
//
// With yarn.scheduler.capacity.mapping-rule-format "json", the placement
// is YARN 3.4's JSON mapping rules instead (Placement.JSONRules, read from
// mapping-rule-json, or from mapping-rule-json-file through
// XMLOptions.ReadFile; [ParseMappingRules] reads the JSON): ordered rules
// matching a user, a group or an application name, each placing by a
// policy (user, primaryGroup, secondaryGroupUser, custom paths with
// variables, …) under an optional parent, creating the queue where a
// parent auto-creates unless "create" is false, and falling back (skip,
// reject, placeDefault) when the queue cannot take the application;
// setDefaultQueue changes %default. They are checked against the tree as
// YARN checks them at start-up, naming the rule (mapping-rule-json[i]).
//
// # YARN 3.x queue features
//
// Beyond YARN 3.3's walk, the scheduler has what YARN 3.x added to its
// queues, each read from its capacity-scheduler.xml keys:
// max-parallel-apps per queue, per user and scheduler-wide (applications
// past a limit are accepted and wait, not activated, until a runnable one
// ends, then become runnable in submission order); application
// priorities (default-application-priority, the cluster maximum
// yarn.cluster.max-application-priority, acl_application_max_priority
// with yarn.acl.enable, workflow-priority-mappings;
// [Scheduler.UpdateAppPriority]), which order a FIFO leaf's applications
// before their submission; application lifetimes
// (maximum-application-lifetime, default-application-lifetime;
// AppSpec.LifetimeSeconds), which [Scheduler.ExpireApps] enforces at the
// host's clock ([Scheduler.AppDeadline]); per-queue maximum-allocation;
// weight capacities ("2w") and user-limit-factor -1; auto-created queues,
// legacy managed parents (auto-create-child-queue, leaf-queue-template)
// and v2 (auto-queue-creation-v2 with its templates), created when a
// submission names a missing queue under them and managed by
// [Scheduler.ManageQueues] at the host's clock (re-balancing managed
// parents' guarantees, deleting idle v2 queues); and the global
// scheduler: with schedule-asynchronously.enable heartbeats only report
// completions and the host calls [Scheduler.ScheduleRound] at the
// scheduling interval of its clock (or [Scheduler.ScheduleRoundOn] over
// its own candidate nodes), and with multi-node-placement-enabled an
// allocation chooses among candidate nodes in the order of a
// [NodeSortingPolicy] ([ResourceUsageNodes], YARN's
// ResourceUsageMultiNodeLookupPolicy, or a host's registered in
// XMLOptions.NodeSortings). Nothing runs on its own: every clock-driven
// step is a call the host makes.
//
// Decisions are deterministic: applications are ordered by submission,
// containers by allocation sequence, and nothing depends on map order.
// The scheduler reads time only from the host's berth.Clock, starts no
// goroutine, and one mutex makes it safe for concurrent use.
//
// # Performance
//
// A parent's children and a leaf's schedulable applications are kept in
// sorted sets (a slice or a B-tree, by size) keyed by YARN's comparators (priority-utilization and
// utilization queue ordering, fair and FIFO ordering policies), re-keyed
// in O(log n) where their usage, demand or configuration changes, instead
// of re-sorted on every visit; decisions are those of sorting (a child
// with a NaN used capacity makes its parent sort as before). Parents with
// at most 16 children still insertion-sort them per visit, which is
// cheaper at that size. Queues and applications without
// outstanding asks are skipped without being visited: a kept child order
// holds only the children with pending demand (a child joins it, keyed
// afresh, when its demand becomes non-zero and leaves it when its demand
// becomes zero), so a heartbeat costs the same beside 10 or 10,000 idle
// sibling queues, as a plan has when it keeps its finished reservations'
// queues until they are archived; YARN walks past each of them, and idle
// queues, using nothing, come first under both orderings
// (BenchmarkHeartbeatByIdleQueues, beside 10,000 idle reservation queues:
// a placing heartbeat 130 µs of CPU before, 3–5 µs now, as beside 10; one
// that places nothing 120 µs before, 0.7 µs now). A parent whose child ordering has no key, or one of whose
// children's keys fails (NaN, refused), idle ones included, sorts every
// child on each visit as before: with a comparison that is not a strict
// weak order, leaving the idle children out could reorder the others.
// Containers live in intrusive lists of their node and application, so a
// container costs about two heap allocations. Per container, the walk computes an
// application's headroom only when the application gets nothing (the
// allocation's own headroom replaces it otherwise); user limits are cached
// per leaf until one of their inputs changes (usage, active users,
// weights, capacities, cluster, configuration); a utilization parent whose
// only changed child is the one just charged moves that child alone; the
// queue tree's accounting (package queue) is charged lazily, summed per
// user, before anything reads it (Snapshot, Check, Reconfigure, removing
// a reservation queue) or an application count changes; and the
// default memory calculator is called directly rather than through the
// interface. None of this changes a decision or a reported value
// (TestLazyValuesMatchEager and TestIncrementalOrderMatchesSort run random
// streams against references that compute eagerly and sort every child on
// every visit). Adding, entitling and removing a reservation
// queue touches only that queue and its plan's child lists (a plan
// follower does so every step), not the rest of the tree.
//
// # Extending
//
// A leaf's application ordering is an [AppOrderingPolicy] (YARN's
// OrderingPolicy) and a parent's child ordering a [ChildOrderingPolicy]
// (YARN's queue ordering policy); they see applications and queues only
// through read-only [AppView]s and [QueueView]s. The built-in fifo and
// fair ([AppOrdering.Policy]) and utilization and priority-utilization
// ([ChildOrdering.Policy]) go through them. A policy that also implements
// [AppKeyer] or [ChildKeyer] gives a key whose lexicographic order equals
// Compare's, and the scheduler keeps the set ordered incrementally (the
// built-ins use this same path); UsageInKey says whether an application's
// key must be recomputed when its usage or demand changes. Without a key,
// a leaf is re-ranked with Compare on every change of one of its
// applications (O(n log n)), and a parent sorts its children per visit.
// A Compare that is not a strict weak order only permutes the visit: the
// kept order compares plain numbers, so it cannot be corrupted, and every
// application and child is still visited. An application whose key is
// refused or holds NaN is placed after the keyed ones in submission order;
// a child's sends its parent to the per-visit sort. A host sets its policy
// in Go ([QueueSettings].AppOrderingPolicy, ChildOrderingPolicy) or
// registers it in the [queue.Registry] values of [XMLOptions]
// (AppOrderings for leaves, ChildOrderings for parents) for
// yarn.scheduler.capacity.<queue>.ordering-policy; the built-in names
// always win, and an unknown name is a *berth.FieldError naming the key
// that also matches *queue.UnknownNameError.
//
// # Durable state
//
// [Scheduler.SaveState] writes the whole scheduler as one snapshot of kind
// "capacity.Scheduler" (body version 3; versions 1 and 2, written before
// reservation settings and node labels, are still read, with or without
// the YARN 3.x block that opens the body) in the berth framing
// (versioned, streaming, CRC-32C checked); [RestoreScheduler] reads it
// into a new scheduler that decides exactly as the saved one would have:
// the same allocations, reservations, headrooms, activations and later
// snapshots for the same further calls. The body holds the primary state:
// the configuration (ordering policies as built-in tags or the host's
// names, the calculator as a built-in tag, the reservation settings, the
// YARN 3.x settings), every reservation queue with its own settings and
// entitlement, the auto-created queues, nodes with their partitions and
// last heartbeats, applications (user, groups, priority, label
// expressions, runnable mark, deadline, activation, start, AM state,
// headroom, every ask by priority and locality with its relaxLocality
// flag and the delay-scheduling, re-reservation and reservation
// counters), live containers with their ids and preemption marks and
// whether they borrow a shared partition, node reservations, the id and
// submission counters, and per leaf the limits of the last cluster update
// and walk and the usage ratio and user weights YARN keeps as running
// float sums (their rounding depends on history, so they are kept, not
// recomputed). The layout is
// documented in state.go. Queue, user and node usage, active users, the
// child and application orders, the id index and the queue tree's
// accounting are rebuilt through the code paths normal operation uses,
// then checked. What is not data comes back through [RestoreEnv]: the
// clock, the groups provider, and host ordering policies and a host
// calculator by name. A truncated or damaged snapshot is refused with
// berth.ErrCorruptState and returns no scheduler; another kind or a newer
// version with berth.ErrInvalidArgument or berth.ErrUnsupportedVersion.
//
// A 10,000-node scheduler with 100,000 live containers of 10,000
// applications (31 MB of heap) saves in 17 ms of CPU (12–50 ms wall on a
// shared machine) allocating 0.9 MB, and restores in 150 ms of CPU
// (250–370 ms wall) allocating 34.5 MB, 1.1 times the state
// (BenchmarkSaveRestore); the snapshot is 2.2 MB.
//
// An observer ([Scheduler.SetObserver]) is the host's, not state: set it
// again on the restored scheduler; restoring reports no events.
//
// # Observing decisions
//
// [Scheduler.SetObserver] makes a host's [Observer] (package queue's,
// shared with the fair scheduler) see every decision as it is made:
// containers allocated by a heartbeat and ended (completed, released,
// killed with their application or by KillContainer, preempted, lost with
// their node); applications added, activated within the AM limits, moved
// (then activated again in the target), finished, killed; queues added
// and removed (Reconfigure, a plan follower's reservation queues),
// reconfigured, and reservation queues' entitlements changed. The
// observer is called synchronously with the scheduler's lock held, in
// decision order: it must not call the scheduler back, and should only
// record, count or enqueue (package queue's documentation has the rules).
// Container reservations on nodes are not reported. Without an observer
// each decision point costs one nil check; with one, an event costs a
// call and no allocation (BenchmarkObservedThroughput, TestObserverAllocs).
//
// # Why an application waits
//
// A heartbeat's walk (CapacityScheduler.allocateContainersToNode) runs in
// phases: visit (a parent's children in the child ordering policy's order,
// a leaf's applications in its ordering policy's), attempt (offer the node
// to an application: its user limit, then its requests with delay
// scheduling), commit the proposal (allocate, reserve, unreserve). Every
// skip has a queue.Reason — queue at maximum-capacity or out of headroom,
// user limit, AM limit (the next application waiting to start), locality,
// locality delay, node too small or full, reservation rules, no
// reservation to give up, node reserved, the node's partition (a queue
// that cannot access it, a request for another partition, a
// non-exclusive partition not lent to an AM or not yet to a request),
// not reached — recorded only on demand, as YARN's scheduler-activities and
// app-activities calls do: [Scheduler.RecordHeartbeat] and
// [Scheduler.HeartbeatRecord] for a node's next heartbeat,
// [Scheduler.RecordApp] and [Scheduler.Explain] for an application's last
// attempts, queue.ActivityObserver for events. Unrecorded, the walk pays
// one boolean test per heartbeat. [Scheduler.DryRun] answers what a node
// would get now, on a copy.
//
// # Differences from YARN
//
//   - Durable state is a snapshot of the whole scheduler (see Durable
//     state), asks, delay counters, reservations and preemption marks
//     included; YARN's RMStateStore keeps applications and rebuilds
//     containers from node reports after a failover, losing outstanding
//     asks' history, reservations and marks.
//   - Ordering policies of a host are registered Go values, not classes
//     loaded by name (see Extending); an unknown name is an error, where
//     YARN fails to load the class. Their orders are used defensively: a
//     Compare that is not a strict weak order or a NaN key changes only
//     the visit order, never the scheduler's state.
//   - Blacklists, container resizing and work-preserving recovery are not
//     modelled ([ParseXMLReport] lists the keys concerned).
//   - Clock-driven work is the host's call, never a thread: scheduling
//     rounds ([Scheduler.ScheduleRound]), lifetime expiry
//     ([Scheduler.ExpireApps]; an application expires once the clock is
//     past its deadline), auto-created queues' management
//     ([Scheduler.ManageQueues]; an idle v2 queue is deleted on the call
//     that finds it expired, where YARN marks it on one pass and deletes
//     it on the next), and the multi-node sorters' refresh (at the first
//     use after their interval). A node missing heartbeats is skipped
//     after Async.SkipNodeAfter of the host's clock.
//   - Asynchronous rounds are deterministic: nodes in id order from a
//     start node that advances by one each round (YARN's is random), and
//     each proposal is committed before the next is made, so none goes
//     stale; Async.Threads and MaxPendingBacklogs are read and kept only.
//     A proposal on a node another application reserved is refused, as
//     YARN's committer refuses it.
//     With node labels, a multi-node round takes each partition's nodes as
//     one candidate set, the partitions in order (the default first),
//     where YARN's order is its node tracker's.
//     ResourceUsageWithPartialShuffleMultiNodeLookupPolicy sorts as
//     ResourceUsageMultiNodeLookupPolicy, without its random shuffle of
//     each ten nodes ([ParseXMLReport] notes it).
//   - maximum-am-resource-percent above 1 (10 in some EMR files) is read
//     unchecked, as YARN reads it: the AM limit is then that multiple of
//     the queue's capacity (capped, as YARN's, by what the queue can
//     reach), so in practice applications are not held back by it.
//   - ordering-policy fifo or fair on a parent queue is refused, as YARN
//     2.9 and later refuse it; XMLOptions.IgnoreLeafOrderingOnParents
//     reads it as YARN 2.8 did (ignored, noted in the report).
//     priority-utilization or utilization on a leaf is refused too.
//   - legacy-queue-mode.enabled=false is read, but the tree is validated
//     with the legacy rules (siblings may not mix weights with
//     percentages), which YARN's non-legacy mode relaxes.
//   - A queue's maximum-allocation may not shrink on Reconfigure while
//     the scheduler runs (YARN refuses the same), and a template's
//     maximum allocation is checked against the cluster's.
//   - AppSpec.Priority 0 is a priority; AppSpec.NoPriority asks for the
//     leaf's default, as a YARN submission without one does. With
//     yarn.cluster.max-application-priority unset (0, YARN's default)
//     every priority is capped to 0.
//   - max-parallel-apps: removing an application that was never runnable
//     leaves the counts right (YARN 3.3 decrements the user's runnable
//     count for it), and moving an application moves its runnable count
//     up the tree of the target too (YARN leaves the source's parents
//     counting it).
//   - JSON mapping rules: with no groups for the user, %primary_group and
//     %secondary_group are empty (YARN leaves them undefined, so the path
//     keeps the variable's name); a path with an empty part is refused
//     where YARN's split drops trailing empty parts; trailing text after
//     the JSON object is ignored, as Jackson ignores it.
//   - Node labels are declared in Config.NodeLabels (YARN: the
//     ResourceManager's label store and rmadmin); [ParseXML] declares the
//     labels a file names, exclusive, for the host to correct. A node's
//     label is fixed while it is in the cluster (remove and add it to
//     relabel it), and Reconfigure may add labels but not drop them.
//   - A labelled partition's walk leaves the default partition's headroom
//     limit of the leaves it visits as it was, and the headroom of the
//     applications it visits without allocating: YARN sets the default
//     partition's headroom limit from whatever walk visited last, a
//     labelled one's limit included.
//   - PlanResources and ReservationQueueState scale the default
//     partition's resource; YARN's plan follower scales the whole
//     cluster's by the default partition's capacity, promising the plan
//     resources only labelled nodes have.
//   - Under the dominant calculator, the comparisons of a labelled
//     partition's walk are made relative to the partition's resource
//     (YARN passes the partition's to some and the cluster's to others).
//   - A host's child ordering policy orders the default partition's walks;
//     a labelled partition's use the built-in comparator (utilization, or
//     priority-utilization when configured) on the partition's usage.
//   - Moving an application keeps its containers where they run; the
//     target must access every partition the application still asks for
//     (YARN's checkQueuePartition).
//   - Queue mappings: YARN 3.3 refuses at start-up a mapping whose target
//     is a placeholder under a fixed parent that does not auto-create
//     queues (u:%user:root.users.%user with a plain root.users), although
//     its own evaluator handles that case (placing only into existing
//     leaves) and YARN 3.4 accepts it; Berth accepts it and places as the
//     evaluator does. "%application" is a placeholder in the queue of an
//     app-name mapping (YARN 3.3's start-up check takes it for a queue
//     name). Custom placement rule classes are refused.
//   - Negative values written in capacity-scheduler.xml are refused, with
//     the key named, except where YARN gives them a meaning: -1 for
//     maximum-capacity (unset, 100%) and for a label's capacity or
//     maximum capacity (unset, as Ambari writes them; YARN 3 refuses a
//     label's -1), a negative per-queue
//     maximum-applications (derived from the system limit),
//     global-queue-max-application (unset), node-locality-delay -1
//     (rack-local at once), rack-locality-additional-delay -1 (the
//     wait-factor formula), maximum-container-assignments -1
//     (unlimited), maximum-offswitch-assignments below 1 (counts as 1) and
//     queue priorities (any integer). A negative per-queue
//     maximum-am-resource-percent, Berth's "use the system value" in Go,
//     is refused in the file.
//   - A scheduler key is a request priority (allocationRequestId is not
//     modelled); one capability per priority, taken from its ANY ask. A
//     resource name is a rack when it starts with "/" or names a rack of a
//     current node, else a host.
//   - An application has one attempt. When AppSpec.AMResource is set the
//     scheduler asks for the AM itself (priority 0, anywhere); the first
//     container the application gets is its AM.
//   - Preemption kills at once (no lazy preemption / killable containers).
//   - Queue "used" includes reserved containers, as YARN's capacity
//     scheduler counts them; the queue tree's accounting is charged the
//     same way (Used includes Reserved).
//   - Absolute-resource capacities use a simplified effective guarantee
//     (configured minimum scaled per type when siblings exceed the parent)
//     and no absolute tie-break in child ordering.
//   - The fair ordering policy's demand is used plus pending memory.
//   - The headroom returned with an allocation is computed after it, and
//     never negative: YARN subtracts the cluster's usage plainly, which goes
//     negative when vcores are over-committed under the memory calculator.
//   - Under the dominant calculator a queue can exceed its maximum in a
//     non-dominant resource, as in YARN (comparisons are by dominant share).
//   - Amounts that would overflow int64 are refused rather than wrapped:
//     a node that would take the cluster total past it
//     (berth.ErrCapacityExceeded, as in package fair), and an ask after
//     which the outstanding demand of all applications would pass it
//     (berth.ErrCapacityExceeded naming the ask: an ask of 2^53
//     containers left YARN's pending memory at −9.2e18).
//   - The reservation keys of each queue (reservation-window,
//     average-capacity, reservation-agent, …) and the ResourceManager's
//     reservation-system keys are read into QueueSettings.Reservation and
//     Config.ReservationSystem; the scheduler only carries them for the
//     host that builds the plans (examples/rm does, in one call).
//   - Unknown or foreign container ids in a heartbeat's completed list are
//     ignored (the application may have released them first); releasing an
//     unknown container through Allocate is an error.
//   - A node's reservation whose ask changed size since is cancelled when
//     the node is next served, not filled: YARN fills it with the new size
//     without checking queue limits, which can take a queue (even the
//     root) past its maximum.
//   - Besides the four limits YARN re-applies from the plan queue (user
//     limit, user-limit-factor, maximum applications per queue and per
//     user, re-read after a reconfiguration), a reservation queue uses its
//     plan queue's other settings (ordering, AM percent, user weights).
//   - Entitlements with a maximum below the capacity are refused (package
//     queue's rule; YARN accepts them).
//   - In XML, maximum-capacity -1 means unset (100%); a duplicate child
//     queue name is an error naming the queues key.
package capacity
