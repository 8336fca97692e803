// Package capacity is YARN's CapacityScheduler as a library the host
// drives: the host adds and removes nodes, submits applications to leaf
// queues, updates their asks, and calls [Scheduler.Heartbeat] for every node
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
// Reservation queues (§2.10): a reservable leaf is a plan queue with a
// "<plan>-default" child. A plan follower (package follower) drives them
// with [Scheduler.AddReservationQueue], [Scheduler.SetEntitlement] and
// [Scheduler.RemoveReservationQueue], reads [Scheduler.PlanResources],
// [Scheduler.ReservationQueueNames] and [Scheduler.ReservationQueueState],
// and handles expired queues with [Scheduler.AppsInQueue],
// [Scheduler.MoveApp] and [Scheduler.KillApp]: *Scheduler is a
// follower.Scheduler as it is. [Scheduler.ReservationQueues] reports the
// reservation queues with their usage. An
// application submitted to a plan queue runs in the queue of its
// reservation id, rejected when the reservation is not active or belongs to
// another plan, and in the default queue when it names none.
//
// The preemption policy reads [Scheduler.Snapshot] (queues with their
// guarantees and usage, applications, containers, reservations) and
// [Scheduler.PendingWithinUserLimits], and acts with
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
//
// Decisions are deterministic: applications are ordered by submission,
// containers by allocation sequence, and nothing depends on map order.
// The scheduler reads time only from the host's berth.Clock, starts no
// goroutine, and one mutex makes it safe for concurrent use.
//
// # Performance
//
// A parent's children and a leaf's schedulable applications are kept in
// queue.Order sets keyed by YARN's comparators (priority-utilization and
// utilization queue ordering, fair and FIFO ordering policies), re-keyed
// in O(log n) where their usage, demand or configuration changes, instead
// of re-sorted on every visit; decisions are those of sorting (a child
// with a NaN used capacity makes its parent sort as before). Parents with
// at most 16 children still insertion-sort them per visit, which is
// cheaper at that size. Queues and applications without
// outstanding asks are skipped without being visited; containers live in
// intrusive lists of their node and application, so a container costs
// about two heap allocations. Adding, entitling and removing a reservation
// queue touches only that queue and its plan's child lists (a plan
// follower does so every step), not the rest of the tree.
//
// # Differences from YARN
//
//   - One partition: node labels, non-exclusive partitions, multi-node
//     placement, asynchronous scheduling, placement rules (queue mappings),
//     auto-created leaf queues, blacklists, container resizing and
//     work-preserving recovery are not modelled.
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
